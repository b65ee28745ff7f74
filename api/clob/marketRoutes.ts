// The order-book market lists and lookups (spec §4.3, §2.7, §2.8; upstream §2.9, §3.1):
//
// | endpoint                              | answers                                                      |
// |---------------------------------------|--------------------------------------------------------------|
// | GET /markets?next_cursor              | page of every engine market, list form                        |
// | GET /markets/{id}                     | one market by condition id, full form (400 Invalid market, 404) |
// | GET /sampling-markets                 | page of sampling markets, full form                           |
// | GET /simplified-markets               | page of every engine market, simplified form                  |
// | GET /sampling-simplified-markets      | page of sampling markets, simplified form                     |
// | GET /markets-by-token/{token_id}      | {condition_id} of the token's market                          |
// | GET /clob-markets/{condition_id}      | the compact form of the official V2 client                    |
//
// Lists iterate the engine's markets ordered by condition id (so a page boundary is stable while no
// market is listed; one listed meanwhile may shift later pages by one), joined with the catalog index.
// Pages hold PAGE_SIZE markets; cursors are base64 offsets: `MA==` (or none) first, `LTE=` once no page
// follows (asking with `LTE=` gives an empty page); a cursor of another form than those this service issues
// is a 400 (CURSOR_PATTERN, projections/readModel/cursor.ts, stated in the OpenAPI document). Sampling markets are, as
// upstream's, those of the liquidity rewards program (engine/rewards/) trading now: accepting orders and not
// closed (marketForms.ts).

import { ApiError } from '../http/apiErrors.js';
import { ok, type RouteDef } from '../http/apiTypes.js';
import { obj, str } from '../schemas/common.js';
import { END_CURSOR, cursorFor, parseCursor } from '../../projections/readModel/cursor.js';
import type { Market } from '../../engine/market.js';
import type { IndexedMarket } from '../../catalog/marketIndex.js';
import type { EngineReads } from './bookView.js';
import { conditionId, cursor } from '../schemas/formats.js';
import { conditionIdOf, tokenId, tokenIdOf } from './clobInputs.js';
import { compactForm, fullForm, isSampling, listForm, simplifiedForm, type MarketLookup } from './marketForms.js';
import { COMPACT_MARKET, FULL_MARKET, LIST_MARKET, pageOf, SIMPLIFIED_MARKET } from './marketSchemas.js';

export const PAGE_SIZE = 500;

export interface MarketRouteDeps {
  readonly engine: EngineReads;
  readonly markets: MarketLookup;
}

type Form = (engine: EngineReads, market: Market, info: IndexedMarket | undefined) => Record<string, unknown>;

export interface MarketPage {
  limit: number;
  count: number;
  next_cursor: string;
  data: Record<string, unknown>[];
}

/**
 * The engine's markets ordered by condition id. Markets are listed and never removed, so the sorted list
 * is kept until the count changes.
 */
function sortedMarkets(engine: EngineReads): () => readonly Market[] {
  let sorted: Market[] = [];
  return () => {
    const all = [...engine.markets()];
    if (all.length !== sorted.length) sorted = all.sort((a, b) => (a.conditionId < b.conditionId ? -1 : a.conditionId > b.conditionId ? 1 : 0));
    return sorted;
  };
}

/** The engine's market for a condition id in any letter case. */
export function engineMarket(engine: EngineReads, conditionId: string): Market | undefined {
  return engine.market(conditionId) ?? engine.market(conditionId.toLowerCase());
}

export function marketRoutes(deps: MarketRouteDeps): RouteDef[] {
  const { engine, markets } = deps;
  const all = sortedMarkets(engine);

  const page = (cursor: unknown, sampling: boolean, form: Form): MarketPage => {
    const offset = parseCursor('next_cursor', typeof cursor === 'string' ? cursor : undefined);
    if (offset === 'end') return { limit: PAGE_SIZE, count: 0, next_cursor: END_CURSOR, data: [] };
    const list = sampling ? all().filter((m) => isSampling(engine, m, markets.get(m.conditionId))) : all();
    const slice = list.slice(offset, offset + PAGE_SIZE);
    const next = offset + slice.length < list.length ? cursorFor(offset + slice.length) : END_CURSOR;
    return { limit: PAGE_SIZE, count: slice.length, next_cursor: next, data: slice.map((m) => form(engine, m, markets.get(m.conditionId))) };
  };

  const cursorQuery = { type: 'object', properties: { next_cursor: cursor() } };
  const lists: [string, string, boolean, Form, typeof FULL_MARKET][] = [
    ['/markets', 'Order-book markets, list form, by condition id (at the root: only with next_cursor).', false, listForm, LIST_MARKET],
    ['/sampling-markets', 'Markets trading now (accepting orders, not closed), full form.', true, fullForm, FULL_MARKET],
    ['/simplified-markets', 'Every order-book market, simplified form.', false, simplifiedForm, SIMPLIFIED_MARKET],
    ['/sampling-simplified-markets', 'Markets trading now, simplified form.', true, simplifiedForm, SIMPLIFIED_MARKET],
  ];

  return [
    ...lists.map(([path, summary, sampling, form, item]): RouteDef => ({
      method: 'GET', path, surface: 'clob', engineState: true, summary, query: cursorQuery, response: pageOf(item), errors: ['bad_request'],
      handler: (req) => ok(page(req.query.next_cursor, sampling, form)),
    })),
    {
      method: 'GET', path: '/markets/{id}', surface: 'clob', engineState: true, summary: 'One order-book market by condition id, full form.',
      params: { type: 'object', properties: { id: conditionId() }, required: ['id'] },
      response: FULL_MARKET, errors: ['invalid_market', 'market_not_found'],
      handler: (req) => {
        const market = engineMarket(engine, conditionIdOf(req.params.id));
        if (market === undefined) throw new ApiError('market_not_found');
        return ok(fullForm(engine, market, markets.get(market.conditionId)));
      },
    },
    {
      method: 'GET', path: '/markets-by-token/{token_id}', surface: 'clob', engineState: true, summary: 'The condition id of a token\'s market.',
      params: { type: 'object', properties: { token_id: tokenId() }, required: ['token_id'] },
      response: obj({ condition_id: str() }), errors: ['invalid_token_id', 'no_orderbook'],
      handler: (req) => {
        const ref = engine.marketOfToken(tokenIdOf(req.params.token_id));
        if (ref === undefined) throw new ApiError('no_orderbook');
        return ok({ condition_id: ref.market.conditionId });
      },
    },
    {
      method: 'GET', path: '/clob-markets/{condition_id}', surface: 'clob', engineState: true, summary: 'Trading parameters in the compact form of the V2 client.',
      params: { type: 'object', properties: { condition_id: conditionId() }, required: ['condition_id'] },
      response: COMPACT_MARKET, errors: ['invalid_market', 'market_not_found'],
      handler: (req) => {
        const market = engineMarket(engine, conditionIdOf(req.params.condition_id));
        if (market === undefined) throw new ApiError('market_not_found');
        return ok(compactForm(engine, market, markets.get(market.conditionId)));
      },
    },
  ];
}
