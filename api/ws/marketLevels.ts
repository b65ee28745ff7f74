// A watched market's aggregate price levels in outcome 0's terms (the book the engine keeps), followed from
// durable records one record at a time, with what GET /book's hash covers beside them (trading parameters,
// last trade). A token of outcome 1 sees the mirror: outcome 0's asks at p are its bids at 1 - p.
//
// Contract: the levels start from the engine at a durable position (`fromEngine`) and then move only by
// the records after it (`move`), so after each record they equal the engine's book as of that record.
// `takeChanges` lists, per token, each level whose aggregate size differs from the end of the previous
// record, with the new size (0 = level gone): bids (BUY) then asks (SELL), each in ascending price of the
// token's own terms. `snapshot` is the token's book as GET /book shows it, hashed as GET /book hashes it.

import { formatUnits, PRICE_ONE, type Engine, type MarketParams, type Outcome } from '../../engine/index.js';
import { bookHash, type BookSnapshot, type WireLevel } from '../clob/bookView.js';

export interface LevelChange {
  readonly side: 'BUY' | 'SELL';
  /** Micro-units, in the token's own terms. */
  readonly price: number;
  /** The new aggregate size at the level (base units); 0 when the level is gone. */
  readonly size: number;
}

export class MarketLevels {
  readonly bids = new Map<number, number>();
  readonly asks = new Map<number, number>();
  /** Levels moved since the last takeChanges, with their size before: key = price, sign = side (bid > 0). */
  private readonly before = new Map<number, number>();

  private constructor(
    readonly conditionId: string,
    readonly tokens: readonly [string, string],
    public params: MarketParams,
    /** Last trade price in outcome 0's terms, undefined before the first. */
    public lastTrade: number | undefined,
  ) {}

  /** The market of `conditionId` as the engine holds it now (which must be a durable position). */
  static fromEngine(engine: Pick<Engine, 'book' | 'market'>, conditionId: string): MarketLevels | undefined {
    const market = engine.market(conditionId);
    if (market === undefined) return undefined;
    const levels = new MarketLevels(conditionId, market.tokenIds, { ...market.params }, market.lastTrade?.price);
    const book = engine.book(market.tokenIds[0]);
    for (const l of book?.bids ?? []) levels.bids.set(l.price, l.size);
    for (const l of book?.asks ?? []) levels.asks.set(l.price, l.size);
    return levels;
  }

  /** Adds `delta` (base units, may be negative) at a book price; `bid` in outcome 0's terms. */
  move(bid: boolean, price: number, delta: number): void {
    if (delta === 0) return;
    const side = bid ? this.bids : this.asks;
    const key = bid ? price + 1 : -(price + 1);
    const was = side.get(price) ?? 0;
    if (!this.before.has(key)) this.before.set(key, was);
    const next = was + delta;
    if (next <= 0) side.delete(price);
    else side.set(price, next);
  }

  get changed(): boolean {
    return this.before.size > 0;
  }

  /** Per outcome, the levels changed since the last call (see the contract); resets the tracking. */
  takeChanges(): [LevelChange[], LevelChange[]] {
    const out: [LevelChange[], LevelChange[]] = [[], []];
    for (const [key, was] of this.before) {
      const bid = key > 0;
      const price = Math.abs(key) - 1;
      const size = (bid ? this.bids : this.asks).get(price) ?? 0;
      if (size === was) continue;
      out[0].push({ side: bid ? 'BUY' : 'SELL', price, size });
      out[1].push({ side: bid ? 'SELL' : 'BUY', price: PRICE_ONE - price, size });
    }
    this.before.clear();
    for (const list of out) list.sort((a, b) => (a.side === b.side ? a.price - b.price : a.side === 'BUY' ? -1 : 1));
    return out;
  }

  /** Best bid and ask of `outcome`'s token (micro-units; undefined for an empty side). */
  best(outcome: Outcome): { bid: number | undefined; ask: number | undefined } {
    let bid0: number | undefined;
    let ask0: number | undefined;
    for (const p of this.bids.keys()) if (bid0 === undefined || p > bid0) bid0 = p;
    for (const p of this.asks.keys()) if (ask0 === undefined || p < ask0) ask0 = p;
    if (outcome === 0) return { bid: bid0, ask: ask0 };
    return { bid: ask0 === undefined ? undefined : PRICE_ONE - ask0, ask: bid0 === undefined ? undefined : PRICE_ONE - bid0 };
  }

  /** The token's book as GET /book gives it at `timestamp` (levels best last), with its hash. */
  snapshot(outcome: Outcome, timestamp: number): BookSnapshot {
    const wire = (levels: Map<number, number>, mirror: boolean, ascending: boolean): WireLevel[] => {
      const prices = [...levels.keys()].map((p) => (mirror ? PRICE_ONE - p : p)).sort((a, b) => (ascending ? a - b : b - a));
      return prices.map((p) => ({ price: formatUnits(p), size: formatUnits(levels.get(mirror ? PRICE_ONE - p : p) ?? 0) }));
    };
    // Best last: bids ascending, asks descending, in the token's own prices.
    const bids = outcome === 0 ? wire(this.bids, false, true) : wire(this.asks, true, true);
    const asks = outcome === 0 ? wire(this.asks, false, false) : wire(this.bids, true, false);
    const last = this.lastTrade === undefined ? '' : formatUnits(outcome === 0 ? this.lastTrade : PRICE_ONE - this.lastTrade);
    const snapshot: BookSnapshot = {
      market: this.conditionId,
      asset_id: this.tokens[outcome],
      timestamp: String(Math.floor(timestamp)),
      hash: '',
      bids,
      asks,
      min_order_size: formatUnits(this.params.minSize),
      tick_size: formatUnits(this.params.tickSize),
      neg_risk: this.params.negRisk,
      last_trade_price: last,
    };
    snapshot.hash = bookHash(snapshot);
    return snapshot;
  }
}
