// GET /markets (catalog variant), GET /markets/{id} (numeric id or condition id), GET /markets/slug/{slug}.

import { findMarket, listMarkets, MARKET_SORT_COLUMNS, type CatalogDb, type MarketFilter } from '../../catalog/queries.js';
import { answering, idNotFound, ok, slugNotFound } from './catalogErrors.js';
import type { Handler } from './handlerTypes.js';
import { bool, creatorOf, intList, list, LIMITS, pageOf, sortOf } from './queryParams.js';

/** The filters of GET /markets, with every alias of spec 4.1 (tag = tag_slug, eventSlug, condition_id) and upstream Gamma's condition_ids. */
export function marketFilterOf(query: URLSearchParams): MarketFilter {
  return {
    ids: intList(query, 'id'),
    active: bool(query, 'active'),
    closed: bool(query, 'closed'),
    archived: bool(query, 'archived'),
    tagSlugs: list(query, 'tag_slug', 'tag'),
    tagIds: intList(query, 'tag_id'),
    eventIds: intList(query, 'event_id'),
    eventSlugs: list(query, 'event_slug', 'eventSlug'),
    conditionIds: list(query, 'conditionId', 'condition_id', 'condition_ids'),
    slugs: list(query, 'slug'),
    creator: creatorOf(query),
  };
}

export interface MarketsHandlers {
  readonly list: Handler;
  readonly byId: Handler;
  readonly bySlug: Handler;
}

export function marketsHandlers(catalog: CatalogDb): MarketsHandlers {
  return {
    list: (req) =>
      answering(async () => {
        const filter = marketFilterOf(req.query);
        return ok(await listMarkets(catalog, filter, sortOf(req.query, MARKET_SORT_COLUMNS), pageOf(req.query, LIMITS.markets)));
      }),
    byId: (req) =>
      answering(async () => {
        const id = (req.params.id ?? '').trim();
        const key = /^\d{1,20}$/.test(id) ? { id } : /^0x[0-9a-fA-F]{1,64}$/.test(id) ? { conditionId: id } : undefined;
        if (key === undefined) return idNotFound();
        const market = await findMarket(catalog, key, creatorOf(req.query));
        return market === undefined ? idNotFound() : ok(market);
      }),
    bySlug: (req) =>
      answering(async () => {
        const slug = (req.params.slug ?? '').trim();
        const market = slug === '' ? undefined : await findMarket(catalog, { slug }, creatorOf(req.query));
        return market === undefined ? slugNotFound() : ok(market);
      }),
  };
}
