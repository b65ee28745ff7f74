// Orders: the latest state of every order (`orders`, versioned by log position, one row per order per batch)
// and its history (`order_events`: accepted, rejected, cancelled, expired here; the 'fill' rows ClickHouse
// derives from fills, which carry each order's remaining size from this builder). Keeps the open orders in
// memory and, from them, each market's book as price levels in outcome 0's terms, which is where midpoints
// for the price history come from.
//
// Status: LIVE while open; MATCHED once filled (also a FAK that filled partly before its remainder was
// killed); CANCELED, EXPIRED, CANCELED_MARKET_RESOLVED. An order rests only after its own command has
// matched it: a GTC/GTD taker with quantity left joins the book at the end of its record.

import type { EventsRecord } from '../../log/eventLog.js';
import type { OrderType, Outcome, Side } from '../../engine/index.js';
import { PRICE_ONE } from '../../engine/index.js';
import type { RowSink } from '../rows.js';

export interface OpenOrder {
  id: string;
  account: string;
  owner: string;
  conditionId: string;
  tokenId: string;
  outcome: Outcome;
  side: Side;
  price: number;
  size: number;
  matched: number;
  status: string;
  orderType: OrderType;
  postOnly: boolean;
  expiration: number;
  makerAmount: number;
  takerAmount: number;
  /** Its trade ids, oldest first: NO_TRADES until its first fill, then an array of its own (addTrade). */
  trades: readonly string[];
  builder: string;
  createdAt: number;
  updatedAt: number;
  resting: boolean;
}

/**
 * The trades of every order that has none yet: one shared frozen array, as most resting orders never fill (an
 * array of their own would be one more object per order to hold and to carry through the young generation).
 */
export const NO_TRADES: readonly string[] = Object.freeze([]);

/**
 * Adds a trade id to an order's trades: the first makes the order an array of its own, the next go into it.
 * Whatever builds an order elsewhere (a restore) must give it NO_TRADES or an array no other order holds.
 */
export function addTrade(o: { trades: readonly string[] }, tradeId: string): void {
  if (o.trades === NO_TRADES) o.trades = [tradeId];
  // Any other array is the order's own, made here or when it was restored.
  else (o.trades as string[]).push(tradeId);
}

/**
 * A fill's two orders right after the fill: builder code ('' when none or the order is unknown) and open
 * quantity left (-1 when the projector does not know the order; it then records no 'fill' event for it).
 */
export interface FillOrders {
  takerBuilder: string;
  takerRemaining: number;
  makerBuilder: string;
  makerRemaining: number;
}

interface Levels {
  readonly bids: Map<number, number>;
  readonly asks: Map<number, number>;
}

const EMPTY_LEVELS: Levels = { bids: new Map(), asks: new Map() };

function bookTerms(o: OpenOrder): { bid: boolean; price: number } {
  const bid = (o.outcome === 0) === (o.side === 'BUY');
  return { bid, price: o.outcome === 0 ? o.price : PRICE_ONE - o.price };
}

export class OrdersBuilder {
  readonly open = new Map<string, OpenOrder>();
  /**
   * Open orders changed in the current batch, with the position of their last change; their row is written
   * at flush, from the order as it then stands (its state after that change: nothing changed it since). A
   * finished order's row is written at once instead: nothing can change it any more, and holding it (its
   * strings included) to the end of the batch would carry it through the young generation's collections.
   */
  private pending = new Map<string, { order: OpenOrder; version: number }>();
  private readonly books = new Map<string, Levels>();
  /** Told of every level about to change (market, bid side or not, price, size before): the book history's hook. */
  levelHook: ((conditionId: string, bid: boolean, price: number, size: number) => void) | undefined;

  /**
   * `onChange` sees every order whenever its row would be written (restored, or changed at a log position),
   * as the same object the builder keeps changing: the in-memory read model's view of every order.
   */
  constructor(private readonly onChange?: (o: OpenOrder, pos: number) => void) {}

  private levels(conditionId: string): Levels {
    let l = this.books.get(conditionId);
    if (l === undefined) {
      l = { bids: new Map(), asks: new Map() };
      this.books.set(conditionId, l);
    }
    return l;
  }

  private moveLevel(o: OpenOrder, delta: number): void {
    const { bid, price } = bookTerms(o);
    const side = bid ? this.levels(o.conditionId).bids : this.levels(o.conditionId).asks;
    const current = side.get(price) ?? 0;
    this.levelHook?.(o.conditionId, bid, price, current);
    const next = current + delta;
    if (next <= 0) side.delete(price);
    else side.set(price, next);
  }

  /** Restores an open (resting) order from its stored row or a snapshot of the model. */
  restore(o: OpenOrder): void {
    // A snapshot keeps shared objects shared: every order that held NO_TRADES comes back holding one and the same
    // unfrozen array, which addTrade would take for the order's own. Each gets NO_TRADES, or an array of its own.
    o.trades = o.trades.length === 0 ? NO_TRADES : [...o.trades];
    o.resting = true;
    this.open.set(o.id, o);
    this.moveLevel(o, o.size - o.matched);
    this.onChange?.(o, -1);
  }

  /** The builder code of an open order ('' when none or unknown). */
  builderOf(orderId: string): string {
    return this.open.get(orderId)?.builder ?? '';
  }

  /** The aggregate size of a market's level in outcome 0's terms (0 when no order rests there). */
  levelSize(conditionId: string, bid: boolean, price: number): number {
    const l = this.books.get(conditionId);
    return (bid ? l?.bids : l?.asks)?.get(price) ?? 0;
  }

  /** A market's levels in outcome 0's terms: price → aggregate size, per side. */
  levelsOf(conditionId: string): { readonly bids: ReadonlyMap<number, number>; readonly asks: ReadonlyMap<number, number> } {
    return this.books.get(conditionId) ?? EMPTY_LEVELS;
  }

  /** Best bid and ask of a market in outcome 0's terms (undefined for an empty side). */
  bestPrices(conditionId: string): { bid: number | undefined; ask: number | undefined } {
    const l = this.books.get(conditionId);
    let bid: number | undefined;
    let ask: number | undefined;
    if (l !== undefined) {
      for (const p of l.bids.keys()) if (bid === undefined || p > bid) bid = p;
      for (const p of l.asks.keys()) if (ask === undefined || p < ask) ask = p;
    }
    return { bid, ask };
  }

  private finish(o: OpenOrder, status: string): void {
    if (o.resting) this.moveLevel(o, -(o.size - o.matched));
    o.resting = false;
    o.status = status;
    this.open.delete(o.id);
  }

  /** Reused by apply() for every record. */
  private readonly touched = new Set<string>();

  /**
   * Applies one record; returns the markets whose book changed (a set reused by the next call: read it
   * before). `fills` is emptied, then given one entry per TradeExecuted of the record, in order (what
   * projectFills writes of the fill's orders).
   */
  apply(record: EventsRecord, out: RowSink, fills: FillOrders[]): ReadonlySet<string> {
    fills.length = 0;
    const touched = this.touched;
    touched.clear();
    const pos = record.pos;
    const changed = (o: OpenOrder): void => this.changed(o, pos, out);
    const keeps = out.keeps;
    const history = (o: { id: string; account: string }, seq: number, ms: number, kind: string, remaining: number, detail = ''): void => {
      if (keeps) out.row('order_events').string(o.id).int(pos).int(seq).time(ms).string(kind).string(o.account).int(remaining).string('').string(detail).end();
    };
    let taker: OpenOrder | undefined;
    for (const e of record.events) {
      switch (e.type) {
        case 'OrderAccepted': {
          const o: OpenOrder = {
            id: e.orderId, account: e.account, owner: e.owner, conditionId: e.conditionId, tokenId: e.tokenId, outcome: e.outcome, side: e.side,
            price: e.price, size: e.size, matched: 0, status: 'LIVE', orderType: e.orderType, postOnly: e.postOnly, expiration: e.expiration,
            makerAmount: e.makerAmount, takerAmount: e.takerAmount, trades: NO_TRADES, builder: e.builder ?? '', createdAt: e.time, updatedAt: e.time, resting: false,
          };
          this.open.set(o.id, o);
          changed(o);
          taker = o;
          history(o, e.seq, e.time, 'accepted', o.size);
          break;
        }
        case 'OrderRejected':
          history({ id: e.orderId, account: e.account }, e.seq, e.time, 'rejected', 0, e.message);
          break;
        case 'TradeExecuted': {
          touched.add(e.conditionId);
          const t = this.fill(e.taker.orderId, e.size, e.tradeId, e.time);
          const m = this.fill(e.maker.orderId, e.size, e.tradeId, e.time);
          if (t !== undefined) changed(t);
          if (m !== undefined) changed(m);
          fills.push({
            takerBuilder: t?.builder ?? '', takerRemaining: t === undefined ? -1 : t.size - t.matched,
            makerBuilder: m?.builder ?? '', makerRemaining: m === undefined ? -1 : m.size - m.matched,
          });
          break;
        }
        case 'OrderCancelled':
        case 'OrderExpired': {
          const o = this.open.get(e.orderId);
          if (o === undefined) break;
          touched.add(o.conditionId);
          const status =
            e.type === 'OrderExpired' ? 'EXPIRED'
            : e.reason === 'market_resolved' ? 'CANCELED_MARKET_RESOLVED'
            : e.reason === 'unfilled' && o.matched > 0 ? 'MATCHED'
            : 'CANCELED';
          o.updatedAt = e.time;
          this.finish(o, status);
          changed(o);
          history(o, e.seq, e.time, e.type === 'OrderExpired' ? 'expired' : `cancelled:${e.reason}`, e.remaining);
          break;
        }
        default:
          break;
      }
    }
    if (taker !== undefined && this.open.get(taker.id) === taker && (taker.orderType === 'GTC' || taker.orderType === 'GTD')) {
      taker.resting = true;
      this.moveLevel(taker, taker.size - taker.matched);
      touched.add(taker.conditionId);
    }
    return touched;
  }

  /**
   * Marks an order changed at log position `pos`: an open one is written at flush, a finished one now (every
   * change that finishes an order is followed by this call, and no change follows it).
   */
  private changed(o: OpenOrder, pos: number, out: RowSink): void {
    this.onChange?.(o, pos);
    if (!out.keeps) return;
    if (o.status !== 'LIVE') {
      this.pending.delete(o.id);
      writeOrder(out, o, pos);
      return;
    }
    const p = this.pending.get(o.id);
    if (p === undefined) this.pending.set(o.id, { order: o, version: pos });
    else p.version = pos;
  }

  /** One fill of a known order (undefined for an unknown one): matched quantity, trades, book. */
  private fill(orderId: string, size: number, tradeId: string, ms: number): OpenOrder | undefined {
    const o = this.open.get(orderId);
    if (o === undefined) return undefined;
    o.matched += size;
    addTrade(o, tradeId);
    o.updatedAt = ms;
    if (o.resting) this.moveLevel(o, -size);
    if (o.matched >= o.size) this.finish(o, 'MATCHED');
    return o;
  }

  /**
   * Moves the batch's remaining order rows into `out`: each open order changed in the batch once, as it
   * stands at the end of the batch (finished ones were written when they finished).
   */
  flush(out: RowSink): void {
    for (const { order, version } of this.pending.values()) writeOrder(out, order, version);
    this.pending = new Map();
  }
}

/** An `orders` row: the order as it stands, versioned by the log position of its last change. */
function writeOrder(out: RowSink, o: OpenOrder, version: number): void {
  out
    .row('orders')
    .string(o.id).string(o.account).string(o.owner).string(o.conditionId).string(o.tokenId).int(o.outcome).string(o.side).int(o.price).int(o.size).int(o.matched).string(o.status)
    .string(o.orderType).bool(o.postOnly).int(o.expiration).int(o.makerAmount).int(o.takerAmount).strings(o.trades).string(o.builder).time(o.createdAt).time(o.updatedAt).int(version)
    .end();
}
