// A listed market: its trading parameters, lifecycle state, the collateral locked in its full sets and its
// one order book, kept in outcome 0's price.

import type { MarketParams, Outcome } from './commands.js';
import type { MarketStatus } from './events.js';
import type { OrderBook } from './book/orderBook.js';

/** Lifecycle of a market as a table: from each state, the states it may move to. */
export const MARKET_TRANSITIONS: Readonly<Record<MarketStatus, readonly MarketStatus[]>> = {
  active: ['paused', 'resolved'],
  paused: ['active', 'resolved'],
  resolved: [],
};

export function canTransition(from: MarketStatus, to: MarketStatus): boolean {
  return MARKET_TRANSITIONS[from].includes(to);
}

/** The last fill of a market, in outcome 0's price, with the taker's view of it (updated in place). */
export interface LastTrade {
  price: number;
  takerOutcome: Outcome;
  takerSide: 'BUY' | 'SELL';
}

export class Market {
  params: MarketParams;
  status: MarketStatus = 'active';
  winningOutcome: Outcome | null = null;
  /** Collateral held against full sets: minted minus merged minus redeemed. */
  locked = 0;
  lastTrade: LastTrade | null = null;
  /** The neg-risk event this market is a question of (negRisk.ts), or null for a market on its own. */
  negRiskMarketId: string | null = null;
  /** Its question index in that event (0..255); -1 outside an event. */
  questionIndex = -1;
  /**
   * Outcome-1 (NO) tokens taken out of circulation by conversions (the adapter's burn address): they stay
   * backed by `locked` but belong to no one and are never redeemed. 0 outside an event.
   */
  convertedNo = 0;

  constructor(
    readonly conditionId: string,
    readonly tokenIds: readonly [string, string],
    params: MarketParams,
    readonly book: OrderBook,
  ) {
    this.params = params;
  }
}
