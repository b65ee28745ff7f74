// The `creator` parameter (spec 4.1: "a creator wallet address or a site identifier; scopes results to
// markets available on that site"). Attribution, decided here:
// - a market's creator is the wallet the upstream names in `submitted_by` (lowercased);
// - a market's site is the catalog source it came from: the upstream's host name for synced markets
//   (e.g. gamma-api.polymarket.com), `demo` for the demo catalog, the dump's `site` (default `import`) for
//   imported dumps.
// A market is visible under `creator=X` when X (case-insensitive) is its creator or its site. An event is
// visible when at least one of its markets is; a series when one of its events is; a tag when one of the
// events carrying it is. Nested lists (an event's markets, a series' events) are scoped the same way.
// A deleted market (store/tombstones.ts) makes nothing visible.

import { tableOf, type CatalogDb } from './catalogDb.js';
import type { SqlWhere } from './sqlWhere.js';
import { LIVE_ROW } from './store/tombstones.js';

export function normaliseCreator(value: string): string {
  return value.trim().toLowerCase();
}

/** SQL selecting the ids of the markets visible under `creator` (bound into `where`). */
export function visibleMarketIds(catalog: CatalogDb, where: SqlWhere, creator: string): string {
  const c = where.bind(normaliseCreator(creator), 'String');
  return `SELECT id FROM ${tableOf(catalog, 'markets')} FINAL WHERE (creator = ${c} OR site = ${c}) AND ${LIVE_ROW}`;
}

export function visibleEventIds(catalog: CatalogDb, where: SqlWhere, creator: string): string {
  return `SELECT event_id FROM ${tableOf(catalog, 'eventMarkets')} FINAL WHERE linked = 1 AND market_id IN (${visibleMarketIds(catalog, where, creator)})`;
}

export function visibleSeriesIds(catalog: CatalogDb, where: SqlWhere, creator: string): string {
  return `SELECT series_id FROM ${tableOf(catalog, 'seriesEvents')} FINAL WHERE linked = 1 AND event_id IN (${visibleEventIds(catalog, where, creator)})`;
}

export function visibleTagIds(catalog: CatalogDb, where: SqlWhere, creator: string): string {
  return `SELECT tag_id FROM ${tableOf(catalog, 'eventTags')} FINAL WHERE linked = 1 AND event_id IN (${visibleEventIds(catalog, where, creator)})`;
}
