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
import { bool, nullableInt, text, time } from '../tsv.js';
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
   * -1 - price for an ask: one integer, no text made per level move) → the level and its size before.
   */
  private readonly before = new Map<string, Map<number, { bid: boolean; price: number; size: number }>>();
  /** Markets whose listing or parameters the current record changed. */
  private readonly marketsChanged = new Set<string>();
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
    if (!market.has(key)) market.set(key, { bid, price, size });
  }

  /** Forgets level changes seen outside a record (restoring the open orders). */
  reset(): void {
    this.before.clear();
    this.marketsChanged.clear();
  }

  /** Writes the rows of one record, applied to the other builders already. */
  apply(record: EventsRecord, out: RowSink): void {
    let seq = 0;
    let ms = 0;
    let traded: Set<string> | undefined;
    for (const e of record.events) {
      seq = e.seq;
      ms = e.time;
      if (e.type === 'MarketListed' || e.type === 'MarketUpdated') this.marketsChanged.add(e.conditionId);
      else if (e.type === 'TradeExecuted') (traded ??= new Set()).add(e.conditionId);
    }
    if (this.before.size === 0 && this.marketsChanged.size === 0 && traded === undefined) return;
    if (!out.keeps) return this.reset();
    // Changed levels per market, in a fixed order: bids then asks, by price.
    const levels = new Map<string, { bid: boolean; price: number; size: number }[]>();
    for (const [conditionId, market] of this.before) {
      let list: { bid: boolean; price: number; size: number }[] | undefined;
      for (const b of market.values()) {
        const size = this.orders.levelSize(conditionId, b.bid, b.price);
        if (size === b.size) continue;
        if (list === undefined) levels.set(conditionId, (list = []));
        list.push({ bid: b.bid, price: b.price, size });
      }
    }
    const changed = new Set<string>([...levels.keys(), ...this.marketsChanged, ...(traded ?? [])]);
    const head = `\t${record.pos}\t${seq}\t${time(ms)}\t`;
    const minute = ms - (ms % 60_000);
    for (const conditionId of [...changed].sort()) {
      const market = this.markets.markets.get(conditionId);
      if (market === undefined) continue;
      const list = (levels.get(conditionId) ?? []).sort((x, y) => (x.bid === y.bid ? x.price - y.price : x.bid ? -1 : 1));
      const last = this.prices.lastTrade.get(conditionId);
      for (const outcome of [0, 1] as const) {
        const token = market.tokens[outcome];
        for (const l of list) {
          // Outcome 0 sees the market's book; outcome 1 its mirror (a bid for outcome 0 is an ask for outcome 1).
          const side = (l.bid === (outcome === 0)) ? 'BUY' : 'SELL';
          const price = outcome === 0 ? l.price : PRICE_ONE - l.price;
          out.add('book_level_changes', `${text(token)}${head}${side}\t${price}\t${l.size}\n`);
        }
        const lastTrade = last === undefined ? null : outcome === 0 ? last : PRICE_ONE - last;
        const p = market.params;
        out.add('book_changes', `${text(token)}\t${text(conditionId)}${head}${nullableInt(lastTrade)}\t${p.tickSize}\t${p.minSize}\t${bool(p.negRisk)}\t${list.length}\n`);
        const since = this.sinceSnapshot.get(token);
        if (since === undefined || since.changes + 1 >= SNAPSHOT_EVERY || minute > since.minute) {
          const book = this.orders.levelsOf(conditionId);
          const [bids, asks] = outcome === 0 ? [book.bids, book.asks] : [book.asks, book.bids];
          out.add('book_snapshots', `${text(token)}${head}${tuples(bids, outcome, true)}\t${tuples(asks, outcome, false)}\n`);
          this.sinceSnapshot.set(token, { changes: 0, minute });
        } else {
          since.changes += 1;
        }
      }
    }
    this.reset();
  }
}

/** A side's levels as an Array(Tuple(Int64, Int64)) of (price, size) in the token's terms, best first. */
function tuples(side: Side, outcome: 0 | 1, bids: boolean): string {
  const prices = [...side.keys()].map((p) => (outcome === 0 ? p : PRICE_ONE - p));
  prices.sort((a, b) => (bids ? b - a : a - b));
  let s = '[';
  for (let i = 0; i < prices.length; i++) {
    const p = prices[i] as number;
    s += `${i === 0 ? '' : ','}(${p},${side.get(outcome === 0 ? p : PRICE_ONE - p) ?? 0})`;
  }
  return `${s}]`;
}
