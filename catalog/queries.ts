// The catalog read model: every read the catalog surface serves, over the ClickHouse tables of schema.ts.
// Handlers (api/catalog/) parse requests into these calls and never write SQL themselves.

export { listMarkets, findMarket, type MarketFilter, type MarketKey, type Page, type Sort } from './marketQueries.js';
export { listEvents, findEvent, type EventFilter, type EventKey } from './eventQueries.js';
export { listSeries, listTags } from './seriesTagQueries.js';
export { searchCatalog, searchTerms, MAX_SEARCH_TERMS, type SearchRequest, type SearchResult } from './searchQueries.js';
export { MARKET_SORT_COLUMNS, EVENT_SORT_COLUMNS, resolveOrder, sortNames, type SortColumns } from './sortColumns.js';
export type { CatalogDb } from './catalogDb.js';
