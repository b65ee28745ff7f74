// GET /markets/live-activity/{condition_id} (no authentication; the official V2 client's getMarketTradesEvents):
// the market's most recent trades, newest first, at most MARKET_TRADE_EVENTS_LIMIT (100), as upstream's
// MarketTradeEvent (projections/readModel/marketTradeEvents.ts). Among the trading routes because it reads
// as they do: from ClickHouse once the projector holds every command this process acknowledged
// (readYourWrites.ts), so a trade a POST returned is already in the answer. A malformed condition id is 400
// `Invalid market`; one the engine does not list, 404 `market not found`; a listed market without trades, [].

import { marketTradeEvents } from '../../projections/readModel/marketTradeEvents.js';
import { ApiError } from '../http/apiErrors.js';
import { ok, type ApiRequest, type RouteDef } from '../http/apiTypes.js';
import { arr, int, obj, str } from '../schemas/common.js';
import { conditionIdOf } from '../clob/clobInputs.js';
import { conditionId } from '../schemas/formats.js';
import { engineMarket } from '../clob/marketRoutes.js';
import { projectionsCaughtUp } from './readYourWrites.js';
import type { TradingDeps } from './tradingDeps.js';

const MARKET_TRADE_EVENT = obj({
  event_type: str('trade.'),
  market: obj({ condition_id: str(), asset_id: str('Token id of the taker\'s order.'), question: str(), icon: str(), slug: str() }),
  user: obj({ address: str('The taker\'s account.'), username: str(), profile_picture: str(), optimized_profile_picture: str(), pseudonym: str() }),
  side: str('Side of the taker\'s order.'),
  size: str('Shares.'),
  fee_rate_bps: str(),
  price: str('In the taker\'s token.'),
  outcome: str(),
  outcome_index: int(),
  transaction_hash: str(),
  timestamp: str('Unix seconds.'),
});

export function marketActivityRoutes(deps: TradingDeps): RouteDef[] {
  return [
    {
      method: 'GET', path: '/markets/live-activity/{condition_id}', surface: 'clob', summary: "A market's most recent trades (at most 100), newest first, taker's side",
      response: arr(MARKET_TRADE_EVENT), errors: ['invalid_market', 'market_not_found', 'rate_limited', 'unavailable', 'internal'],
      params: { type: 'object', properties: { condition_id: conditionId() }, required: ['condition_id'] },
      handler: async (req: ApiRequest) => {
        const market = engineMarket(deps.host.engine, conditionIdOf(req.params.condition_id));
        if (market === undefined) throw new ApiError('market_not_found');
        await projectionsCaughtUp(deps);
        return ok(await marketTradeEvents(deps.reads, market.conditionId));
      },
    },
  ];
}
