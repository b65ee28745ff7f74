// The in-memory read model's state: what the per-user and per-market reads need, built from the log's
// records by the projector's own builders (so positions, order statuses and book midpoints are computed by
// the code that writes them to ClickHouse), without writing rows:
//
// - markets (tokens, resolution, neg-risk): MarketsBuilder;
// - positions per account and token (average cost, realised PnL): PositionsBuilder, plus an index of each
//   token's positions for /holders;
// - orders: every open order (OrdersBuilder, which also keeps the books' price levels for midpoints) and
//   every finished one until `maxFinishedOrders` newer ones finished after it, or one finished more than
//   `finishedOrderAgeMs` after it (by the records' time; oldest leave first). An order not in memory either
//   never existed or finished at or below `horizon`: ClickHouse has it once the projector has reached that
//   position;
// - the latest mark of each market (outcome 0's terms), as price_history and latest_prices define it: the mark
//   (readModel/marks.ts: the midpoint while the spread is at most 0.10, else the last trade) at the end of the
//   latest minute in which its book or last trade changed; when that minute has none, the mark at the end of
//   the latest earlier minute that had one;
// - the newest fills of each account (FillWindows): up to maxAccountFills per account and maxFills in all;
//   the JSON of up to maxShownJson of them, and of as many open orders, once shown (TradeJsonCache, OrderJsonCache);
// - the newest splits, merges, redemptions and conversions of each account (LedgerWindows), for GET /activity.
//
// Bounded by what the exchange holds anyway: one entry per (account, token) ever held, per open order, per
// market; finished orders up to maxFinishedOrders, and none finished more than finishedOrderAgeMs before the newest
// (so that at a light, steady load they stop growing within minutes, not hours); fills up to maxFills; shown JSON
// texts up to maxShownJson of each.

import type { EventsRecord } from '../../log/eventLog.js';
import { PRICE_ONE, type Outcome } from '../../engine/index.js';
import { MarketsBuilder } from '../builders/markets.js';
import { markFrom } from '../readModel/marks.js';
import { OrdersBuilder, type FillOrders, type OpenOrder } from '../builders/orders.js';
import { PositionsBuilder, type PositionState } from '../builders/positions.js';
import { DiscardRows } from '../rows.js';
import { DEFAULT_MAX_ACCOUNT_FILLS, DEFAULT_MAX_FILLS, FillWindows, type AccountFills } from './fillWindows.js';
import { LedgerWindows } from './ledgerWindows.js';
import { OrderJsonCache } from './orderJsonCache.js';
import { OrderPageCache } from './orderPageCache.js';
import { MarketInfoCache } from './marketInfoCache.js';
import { TradeJsonCache } from './tradeJsonCache.js';

/** Default most fills, and most open orders, whose JSON is kept once shown. */
export const DEFAULT_MAX_SHOWN_JSON = 20_000;

/** Default most finished orders kept in memory (~0.65 KB each). */
export const DEFAULT_MAX_FINISHED_ORDERS = 200_000;

/** Default longest a finished order stays in memory after a newer one finished (ms): 10 minutes. */
export const DEFAULT_FINISHED_ORDER_AGE_MS = 600_000;

/** A market's mark in outcome 0's terms (micro-units); null = none. */
export interface MarkState {
  /** Start (ms) of the latest minute in which the market's book or last trade changed. */
  minute: number;
  /** The mark at the end of that minute so far (readModel/marks.ts, markFrom). */
  mark: number | null;
  /** The mark at the end of the latest earlier minute that had one. */
  earlier: number | null;
}

export interface LiveStateOptions {
  /** The engine's fee account (its token fees enter positions at zero cost; it is no holder). */
  readonly feeAccount: string;
  /** Most finished orders kept (DEFAULT_MAX_FINISHED_ORDERS). */
  readonly maxFinishedOrders?: number;
  /**
   * A finished order leaves once one finishes more than this many ms after it, by the records' time
   * (DEFAULT_FINISHED_ORDER_AGE_MS); 0: finished orders leave by count alone.
   */
  readonly finishedOrderAgeMs?: number;
  /** Newest fills kept per account (DEFAULT_MAX_ACCOUNT_FILLS); 0: none, trade reads go to ClickHouse. */
  readonly maxAccountFills?: number;
  /** Most fills kept in all (DEFAULT_MAX_FILLS); 0: none. */
  readonly maxFills?: number;
  /** Most fills, and most open orders, whose JSON is kept once shown (DEFAULT_MAX_SHOWN_JSON); 0: none. */
  readonly maxShownJson?: number;
  /** Newest splits, merges, redemptions and conversions kept per account, and in all (ledgerWindows.ts defaults). */
  readonly maxAccountLedger?: number;
  readonly maxLedger?: number;
}

/** An account's fills memory holds, oldest first at fills[from..], and whether they are all of its fills. */
export interface HeldFills {
  readonly fills: AccountFills['fills'];
  readonly from: number;
  readonly complete: boolean;
}

const NO_FILLS: HeldFills = { fills: [], from: 0, complete: true };

export class LiveState {
  /** Last log position applied. */
  pos = 0;
  /** Orders whose last change is at or below this position may be absent from memory (see above). */
  horizon = 0;
  readonly feeAccount: string;
  readonly markets = new MarketsBuilder();
  readonly orders: OrdersBuilder;
  readonly positions: PositionsBuilder;
  /**
   * Finished orders in memory, by id (the open ones are the orders builder's `open`). Apart, so that a new
   * order is put in one map by id, not two: each put of a new (young) object into an old map is a pointer the
   * next young-generation collection must visit (bench/scavenge.ts). An order that rested is usually old by the
   * time it finishes and is put here.
   */
  private readonly finishedById = new Map<string, OpenOrder>();
  /** Open orders by account, then id. */
  readonly openByAccount = new Map<string, Map<string, OpenOrder>>();
  /** Positions of each token (any size, the fee account's too), in creation order. */
  readonly holdersByToken = new Map<string, PositionState[]>();
  /** The log position of the last change to any position of a token (absent: none since start-up). */
  readonly tokenVersions = new Map<string, number>();
  /** Answers computed from the holders of a token, kept while its version stands (liveReads.ts topHolders). */
  readonly holdersCache = new Map<string, { readonly version: number; readonly top: readonly PositionState[] }>();
  /** The newest fills of each account. */
  readonly fills: FillWindows;
  /** The newest splits, merges, redemptions and conversions of each account. */
  readonly ledger: LedgerWindows;
  /** The trade JSON of fills GET /data/trades has shown. */
  readonly tradeJson: TradeJsonCache;
  /** The JSON of open orders GET /data/orders has shown. */
  readonly orderJson: OrderJsonCache;
  /** The last GET /data/orders page of each account that asked, while none of its orders changes. */
  readonly orderPages = new OrderPageCache();
  /** The markets' MarketInfo as the reads show them, made once per change (marketInfoCache.ts). */
  readonly marketInfo = new MarketInfoCache();
  private readonly lastTrade = new Map<string, number>();
  private readonly marks = new Map<string, MarkState>();
  private readonly maxFinished: number;
  private readonly finishedAgeMs: number;
  /** Finished orders oldest first (ids, the position and the time they finished at): items[head..]. */
  private finished: { id: string; pos: number; at: number }[] = [];
  private finishedHead = 0;
  private readonly rows = new DiscardRows();
  private readonly fillOrders: FillOrders[] = [];

  constructor(options: LiveStateOptions) {
    this.feeAccount = options.feeAccount;
    this.maxFinished = options.maxFinishedOrders ?? DEFAULT_MAX_FINISHED_ORDERS;
    this.finishedAgeMs = options.finishedOrderAgeMs ?? DEFAULT_FINISHED_ORDER_AGE_MS;
    this.orders = new OrdersBuilder((o, pos) => this.orderChanged(o, pos));
    this.positions = new PositionsBuilder(this.markets, options.feeAccount, (p) => this.positionCreated(p));
    this.tradeJson = new TradeJsonCache(options.maxShownJson ?? DEFAULT_MAX_SHOWN_JSON);
    this.orderJson = new OrderJsonCache(options.maxShownJson ?? DEFAULT_MAX_SHOWN_JSON);
    const marketId = (id: string): string => {
      const market = this.markets.markets.get(id);
      if (market !== undefined) return market.conditionId;
      const ref = this.markets.byToken.get(id);
      return ref === undefined ? id : ref.market.tokens[ref.outcome];
    };
    this.fills = new FillWindows({
      maxAccountFills: options.maxAccountFills ?? DEFAULT_MAX_ACCOUNT_FILLS,
      maxFills: options.maxFills ?? DEFAULT_MAX_FILLS,
      orderId: (id) => this.order(id)?.id ?? id,
      marketId,
    });
    this.ledger = new LedgerWindows(options.maxAccountLedger, options.maxLedger, marketId);
  }

  /** An order in memory (open, or finished and still kept), by id. */
  order(id: string): OpenOrder | undefined {
    return this.orders.open.get(id) ?? this.finishedById.get(id);
  }

  /** Finished orders in memory. */
  get finishedCount(): number {
    return this.finishedById.size;
  }

  /** Applies the record that follows `pos`. */
  apply(record: EventsRecord): void {
    if (record.pos !== this.pos + 1) throw new Error(`live read model: record ${record.pos} follows ${this.pos}`);
    this.markets.apply(record, this.rows);
    // Its rows dropped (DiscardRows.keeps is false), the orders builder holds no batch of changed orders either.
    const touched = this.orders.apply(record, this.rows, this.fillOrders);
    this.positions.apply(record);
    for (const p of this.positions.changed()) this.tokenVersions.set(p.tokenId, record.pos);
    this.positions.discardPending();
    this.applyMarks(record, touched);
    this.fills.apply(record);
    this.ledger.apply(record);
    this.pos = record.pos;
  }

  /**
   * The account's fills memory holds, and whether they are all of them; undefined when memory cannot tell
   * (trade reads then go to ClickHouse). An account memory holds no fill of has none when it never held a
   * position: each side of a fill leaves one (PositionsBuilder keeps every entry).
   */
  fillsOf(account: string): HeldFills | undefined {
    if (!this.fills.enabled) return undefined;
    const w = this.fills.of(account);
    if (w !== undefined) return { fills: w.fills, from: w.head, complete: !w.dropped };
    return this.positions.positions.has(account) ? undefined : NO_FILLS;
  }

  /** Outcome `outcome`'s latest mark of a market (micro-units), or undefined when it has none. */
  markOf(conditionId: string, outcome: Outcome): number | undefined {
    const s = this.marks.get(conditionId);
    const mark = s === undefined ? null : (s.mark ?? s.earlier);
    if (mark === null) return undefined;
    return outcome === 0 ? mark : PRICE_ONE - mark;
  }

  /** Restores a market's last trade and mark state (start-up from the stored projections). */
  restoreMark(conditionId: string, lastTrade: number | undefined, minute: number, mark: number | null, earlier: number | null): void {
    if (lastTrade !== undefined) this.lastTrade.set(conditionId, lastTrade);
    this.marks.set(conditionId, { minute, mark, earlier });
  }

  /** Every market's last trade and mark state, for a snapshot (liveSnapshot.ts; serialised at once, so not copied). */
  exportMarks(): { lastTrades: [string, number][]; marks: [string, MarkState][] } {
    return { lastTrades: [...this.lastTrade], marks: [...this.marks] };
  }

  /** Sets the marks exportMarks() gave (a fresh state being restored, from objects of its own). */
  importMarks(lastTrades: readonly [string, number][], marks: readonly [string, MarkState][]): void {
    for (const [id, price] of lastTrades) this.lastTrade.set(id, price);
    for (const [id, m] of marks) this.marks.set(id, m);
  }

  /** The last trade price of a market (outcome 0's terms), if it traded. */
  lastTradeOf(conditionId: string): number | undefined {
    return this.lastTrade.get(conditionId);
  }

  /** The same arithmetic as PriceHistoryBuilder.apply(): the minute of the record's last event. */
  private applyMarks(record: EventsRecord, touched: ReadonlySet<string>): void {
    let time = 0;
    for (const e of record.events) {
      time = e.time;
      if (e.type === 'TradeExecuted') this.lastTrade.set(e.conditionId, e.price);
    }
    for (const conditionId of touched) {
      if (!this.markets.markets.has(conditionId)) continue;
      const { bid, ask } = this.orders.bestPrices(conditionId);
      const both = bid !== undefined && ask !== undefined;
      const mark = markFrom(both ? Math.round((bid + ask) / 2) : null, both ? ask - bid : null, this.lastTrade.get(conditionId) ?? null);
      const minute = time - (time % 60_000);
      const s = this.marks.get(conditionId);
      if (s === undefined) this.marks.set(conditionId, { minute, mark, earlier: null });
      else if (s.minute === minute) s.mark = mark;
      else {
        if (s.mark !== null) s.earlier = s.mark;
        s.minute = minute;
        s.mark = mark;
      }
    }
  }

  /** Every change of an order (pos -1: restored at start-up, at `pos`). */
  private orderChanged(o: OpenOrder, pos: number): void {
    this.orderPages.drop(o.account);
    let open = this.openByAccount.get(o.account);
    if (o.status === 'LIVE') {
      if (open === undefined) {
        open = new Map();
        this.openByAccount.set(o.account, open);
      }
      open.set(o.id, o);
      return;
    }
    if (open !== undefined) {
      open.delete(o.id);
      if (open.size === 0) this.openByAccount.delete(o.account);
    }
    this.finishedById.set(o.id, o);
    this.finished.push({ id: o.id, pos: pos < 0 ? this.pos : pos, at: o.updatedAt });
    // Times come from the records, so a replay, a restored copy and the live model let the same orders go.
    const oldest = this.finishedAgeMs > 0 ? o.updatedAt - this.finishedAgeMs : -Infinity;
    for (;;) {
      const old = this.finished[this.finishedHead];
      if (old === undefined || (this.finished.length - this.finishedHead <= this.maxFinished && old.at >= oldest)) break;
      this.finishedHead += 1;
      this.finishedById.delete(old.id);
      if (old.pos > this.horizon) this.horizon = old.pos;
    }
    if (this.finishedHead >= 1024 && 2 * this.finishedHead >= this.finished.length) {
      this.finished = this.finished.slice(this.finishedHead);
      this.finishedHead = 0;
    }
  }

  private positionCreated(p: PositionState): void {
    let list = this.holdersByToken.get(p.tokenId);
    if (list === undefined) {
      list = [];
      this.holdersByToken.set(p.tokenId, list);
    }
    list.push(p);
  }
}
