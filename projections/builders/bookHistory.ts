// Book history: every change of every token's book, exact to the event, for /orderbook-history, GET /book?at=
// and analysts (docs/analysts.md).
//
//   book_level_changes  one row per price level whose aggregate size a record changed, per token, in the
//                       token's own terms (side BUY = its bids, SELL = its asks; price in the token's
//                       micro-units; size the level's new aggregate in base units, 0 = the level is gone)
//   book_changes        one row per token per record that changed what GET /book shows for it (its levels,
//                       its last trade price, its tick or minimum size, its neg-risk flag, or its listing):
//                       the index the history is paged by, with the non-level fields as they then stood
//   book_snapshots      the token's whole book (bids and asks, best first) after a change: at its first
//                       change, at its first change in each minute, and after SNAPSHOT_EVERY changes since
//                       the last: where a rebuild starts from, and a per-minute series for analysts
//
// A level's size is the one the projector's open orders give (orders.ts keeps each market's levels in
// outcome 0's terms; a token of outcome 1 sees the mirror), the same sum of remaining quantities the engine's
// book holds, so a snapshot rebuilt for a record equals what GET /book answered after it (test/projections/
// bookHistory.test.ts). Rows depend on the orders', markets' and prices' state before the batch; the tables
// come before price_history in PROJECTED_TABLES (recovery.ts), so the builder runs exactly when the price
// history builder does.

import type { EventsRecord } from '../../log/eventLog.js';
import { PRICE_ONE } from '../../engine/index.js';
import type { RowSink } from '../rows.js';
import type { MarketsBuilder } from './markets.js';
import type { OrdersBuilder } from './orders.js';
import type { PriceHistoryBuilder } from './priceHistory.js';

/** A token's whole book is stored after its first change and after every this many changes. */
export const SNAPSHOT_EVERY = 100;

/** Levels of one market side in outcome 0's terms: price → aggregate size. */
type Side = ReadonlyMap<number, number>;

export class BookHistoryBuilder {
  /**
   * The sizes the current record's changed levels had before it, per market: level key (a bid's price, or
   * -1 - price for an ask: one integer, no text or object made per level move) → its size before. A market's
   * map is kept, emptied, between records (one per market ever moved), so that a record allocates nothing per
   * market or level it moves.
   */
  private readonly before = new Map<string, Map<number, number>>();
  /** The markets with levels in `before` since the last reset, each once. */
  private readonly movedIn: string[] = [];
  /** Markets whose listing or parameters the current record changed. */
  private readonly marketsChanged = new Set<string>();
  /** Reused by apply(): the markets the current record changed, and one market's changed level keys. */
  private readonly changed: string[] = [];
  private readonly keys: number[] = [];
  /**
   * Per token: changes since its last snapshot and the minute (ms) of that snapshot (a token absent has none
   * yet: its next change takes one).
   */
  readonly sinceSnapshot = new Map<string, { changes: number; minute: number }>();

  constructor(
    private readonly markets: MarketsBuilder,
    private readonly orders: OrdersBuilder,
    private readonly prices: PriceHistoryBuilder,
  ) {}

  /** OrdersBuilder's level hook: a level of `conditionId` is about to change from `size`. */
  levelChanging(conditionId: string, bid: boolean, price: number, size: number): void {
    let market = this.before.get(conditionId);
    if (market === undefined) this.before.set(conditionId, (market = new Map()));
    const key = bid ? price : -1 - price;
    if (!market.has(key)) {
      if (market.size === 0) this.movedIn.push(conditionId);
      market.set(key, size);
    }
  }

  /** Forgets level changes seen outside a record (restoring the open orders). */
  reset(): void {
    for (const conditionId of this.movedIn) this.before.get(conditionId)?.clear();
    this.movedIn.length = 0;
    this.marketsChanged.clear();
  }

  /** Writes the rows of one record, applied to the other builders already. */
  apply(record: EventsRecord, out: RowSink): void {
    let seq = 0;
    let ms = 0;
    const changed = this.changed;
    changed.length = 0;
    for (const e of record.events) {
      seq = e.seq;
      ms = e.time;
      if (e.type === 'MarketListed' || e.type === 'MarketUpdated') this.marketsChanged.add(e.conditionId);
      else if (e.type === 'TradeExecuted' && !changed.includes(e.conditionId)) changed.push(e.conditionId);
    }
    if (this.movedIn.length === 0 && this.marketsChanged.size === 0 && changed.length === 0) return;
    if (!out.keeps) return this.reset();
    // A level moved and back within the record is no change: its size before is dropped from `before`, and a
    // market with no level left changed is written only if listed, updated or traded.
    for (const conditionId of this.movedIn) {
      const market = this.before.get(conditionId) as Map<number, number>;
      for (const [key, size] of market) if (this.levelSizeOf(conditionId, key) === size) market.delete(key);
      if (market.size > 0 && !changed.includes(conditionId)) changed.push(conditionId);
    }
    for (const conditionId of this.marketsChanged) if (!changed.includes(conditionId)) changed.push(conditionId);
    if (changed.length > 1) changed.sort();
    const minute = ms - (ms % 60_000);
    const keys = this.keys;
    for (const conditionId of changed) {
      const market = this.markets.markets.get(conditionId);
      if (market === undefined) continue;
      // Changed levels in a fixed order: bids then asks, by price (a bid's key is its price, an ask's -1 - price).
      keys.length = 0;
      const moved = this.before.get(conditionId);
      if (moved !== undefined) for (const key of moved.keys()) keys.push(key);
      if (keys.length > 1) keys.sort(byBidsThenPrice);
      const last = this.prices.lastTrade.get(conditionId);
      for (const outcome of [0, 1] as const) {
        const token = market.tokens[outcome];
        for (const key of keys) {
          const bid = key >= 0;
          const own = bid ? key : -1 - key;
          // Outcome 0 sees the market's book; outcome 1 its mirror (a bid for outcome 0 is an ask for outcome 1).
          const side = (bid === (outcome === 0)) ? 'BUY' : 'SELL';
          const price = outcome === 0 ? own : PRICE_ONE - own;
          out.row('book_level_changes').string(token).int(record.pos).int(seq).time(ms).string(side).int(price).int(this.orders.levelSize(conditionId, bid, own)).end();
        }
        const lastTrade = last === undefined ? null : outcome === 0 ? last : PRICE_ONE - last;
        const p = market.params;
        out.row('book_changes').string(token).string(conditionId).int(record.pos).int(seq).time(ms).nullInt(lastTrade).int(p.tickSize).int(p.minSize).bool(p.negRisk).int(keys.length).end();
        const since = this.sinceSnapshot.get(token);
        if (since === undefined || since.changes + 1 >= SNAPSHOT_EVERY || minute > since.minute) {
          const book = this.orders.levelsOf(conditionId);
          const [bids, asks] = outcome === 0 ? [book.bids, book.asks] : [book.asks, book.bids];
          out.row('book_snapshots').string(token).int(record.pos).int(seq).time(ms).pairs(levels(bids, outcome, true)).pairs(levels(asks, outcome, false)).end();
          this.sinceSnapshot.set(token, { changes: 0, minute });
        } else {
          since.changes += 1;
        }
      }
    }
    this.reset();
  }

  /** The aggregate size now of the level `key` (see `before`) of a market. */
  private levelSizeOf(conditionId: string, key: number): number {
    return key >= 0 ? this.orders.levelSize(conditionId, true, key) : this.orders.levelSize(conditionId, false, -1 - key);
  }
}

/** Bids (keys ≥ 0, the price) before asks (keys < 0, -1 - price), each by price ascending. */
function byBidsThenPrice(x: number, y: number): number {
  if (x >= 0) return y >= 0 ? x - y : -1;
  return y >= 0 ? 1 : y - x;
}

/** A side's levels as (price, size) pairs in the token's terms, best first: an Array(Tuple(Int64, Int64)) column. */
function levels(side: Side, outcome: 0 | 1, bids: boolean): [number, number][] {
  const prices = [...side.keys()].map((p) => (outcome === 0 ? p : PRICE_ONE - p));
  prices.sort((a, b) => (bids ? b - a : a - b));
  return prices.map((p) => [p, side.get(outcome === 0 ? p : PRICE_ONE - p) ?? 0]);
}
