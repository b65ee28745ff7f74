// The public rewards configuration (the official client's getCurrentRewards and getRawRewardsForMarket):
//
// - GET /rewards/markets/current?next_cursor: every market with a rewards program now (the engine's, set by
//   the operator or the catalog hand-off), by condition id, 500 a page. `sponsored=true` asks for sponsored
//   programs instead: there are none here, so the page is empty.
// - GET /rewards/markets/{condition_id}?next_cursor: the market with its program, one item, or none (an empty
//   page) when the market has no program or is unknown; 400 `Invalid market` for a malformed id.
//
// Cursors as the order-book lists (MA== first, LTE= once no page follows).

import { ok, type ApiRequest, type RouteDef } from '../http/apiTypes.js';
import { conditionId, cursor } from '../schemas/formats.js';
import { END_CURSOR, cursorFor, parseCursor } from '../../projections/readModel/cursor.js';
import { conditionIdOf } from '../clob/clobInputs.js';
import { engineMarket } from '../clob/marketRoutes.js';
import type { RewardsDeps } from './rewardsDeps.js';
import { CURRENT_REWARD, MARKET_REWARD, currentReward, marketReward, rewardsPage } from './rewardViews.js';

const CURRENT_PAGE = 500;
const MARKET_PAGE = 100;

const SPONSORED = { type: 'string', enum: ['true', 'false', 'True', 'False', '1', '0'], description: 'true: sponsored programs instead (none here).' };

function page<T>(items: readonly T[], cursorText: unknown, size: number): { limit: number; count: number; next_cursor: string; data: T[] } {
  const offset = parseCursor('next_cursor', typeof cursorText === 'string' ? cursorText : undefined);
  if (offset === 'end') return { limit: size, count: 0, next_cursor: END_CURSOR, data: [] };
  const data = items.slice(offset, offset + size);
  return { limit: size, count: data.length, next_cursor: offset + data.length < items.length ? cursorFor(offset + data.length) : END_CURSOR, data };
}

const sponsoredOnly = (q: Readonly<Record<string, unknown>>): boolean => /^(true|1)$/i.test(String(q.sponsored ?? ''));

export function rewardMarketRoutes(deps: RewardsDeps): RouteDef[] {
  const engine = () => deps.trading.host.engine;
  return [
    {
      method: 'GET', path: '/rewards/markets/current', surface: 'clob', engineState: true, summary: 'Every market with a liquidity rewards program now, with its terms',
      query: { type: 'object', properties: { next_cursor: cursor(), sponsored: SPONSORED } },
      response: rewardsPage(CURRENT_REWARD), errors: ['bad_request'],
      handler: (req: ApiRequest) => {
        const programs = sponsoredOnly(req.query) ? [] : [...engine().rewardTerms()].sort((a, b) => (a[0] < b[0] ? -1 : 1));
        return ok(page(programs.map(([cid, p]) => currentReward(cid, p)), req.query.next_cursor, CURRENT_PAGE));
      },
    },
    {
      method: 'GET', path: '/rewards/markets/{condition_id}', surface: 'clob', engineState: true, summary: "A market's liquidity rewards program, with the market",
      params: { type: 'object', properties: { condition_id: conditionId() }, required: ['condition_id'] },
      query: { type: 'object', properties: { next_cursor: cursor(), sponsored: SPONSORED } },
      response: rewardsPage(MARKET_REWARD), errors: ['invalid_market', 'bad_request'],
      handler: (req: ApiRequest) => {
        const e = engine();
        const market = engineMarket(e, conditionIdOf(req.params.condition_id as string));
        const program = market === undefined ? undefined : e.rewardTerms().get(market.conditionId);
        const items = market === undefined || program === undefined || sponsoredOnly(req.query) ? [] : [marketReward(e, market, program, deps.markets.get(market.conditionId))];
        return ok(page(items, req.query.next_cursor, MARKET_PAGE));
      },
    },
  ];
}
