// What the rewards endpoints read: the trading deps (authentication, the engine through the host, the
// ClickHouse projections and how far they are) and the catalog index (questions, slugs, images).

import type { TradingDeps } from '../trading/tradingDeps.js';
import type { MarketLookup } from '../clob/marketForms.js';

export interface RewardsDeps {
  readonly trading: TradingDeps;
  readonly markets: MarketLookup;
}
