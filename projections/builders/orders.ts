// Orders: the latest state of every order (`orders`, versioned by log position, one row per order per batch)
// and its history (`order_events`). Keeps the open orders in memory and, from them, each market's book as price levels in
// outcome 0's terms, which is where midpoints for the price history come from.
//
// Status: LIVE while open; MATCHED once filled (also a FAK that filled partly before its remainder was
// killed); CANCELED, EXPIRED, CANCELED_MARKET_RESOLVED. An order rests only after its own command has
// matched it: a GTC/GTD taker with quantity left joins the book at the end of its record.

import type { LogRecord } from '../../log/eventLog.js';
import type { OrderType, Outcome, Side } from '../../engine/index.js';
import { PRICE_ONE } from '../../engine/index.js';
import { chTime, type Row, type RowSink } from '../rows.js';

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
  trades: string[];
  builder: string;
  createdAt: number;
  updatedAt: number;
  resting: boolean;
}

interface Levels {
  readonly bids: Map<number, number>;
  readonly asks: Map<number, number>;
}

function bookTerms(o: OpenOrder): { bid: boolean; price: number } {
  const bid = (o.outcome === 0) === (o.side === 'BUY');
  return { bid, price: o.outcome === 0 ? o.price : PRICE_ONE - o.price };
}

export class OrdersBuilder {
  readonly open = new Map<string, OpenOrder>();
  /** The latest row of each order changed in the current batch (one row per order per batch). */
  private pending = new Map<string, Row>();
  private readonly books = new Map<string, Levels>();

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
    const next = (side.get(price) ?? 0) + delta;
    if (next <= 0) side.delete(price);
    else side.set(price, next);
  }

  /** Restores an open (resting) order from its stored row. */
  restore(o: OpenOrder): void {
    o.resting = true;
    this.open.set(o.id, o);
    this.moveLevel(o, o.size - o.matched);
  }

  /** The builder code of an open order ('' when none or unknown). */
  builderOf(orderId: string): string {
    return this.open.get(orderId)?.builder ?? '';
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

  /** Applies one record; returns the markets whose book changed. */
  apply(record: LogRecord, out: RowSink): Set<string> {
    const touched = new Set<string>();
    const changed = new Map<string, OpenOrder>();
    const history = (o: { id: string; account: string }, seq: number, time: number, kind: string, remaining: number, fillId = '', detail = ''): void => {
      out.add('order_events', { order_id: o.id, pos: record.pos, seq, time: chTime(time), kind, account: o.account, remaining, fill_id: fillId, detail });
    };
    let taker: OpenOrder | undefined;
    for (const e of record.events) {
      switch (e.type) {
        case 'OrderAccepted': {
          const o: OpenOrder = {
            id: e.orderId, account: e.account, owner: e.owner, conditionId: e.conditionId, tokenId: e.tokenId, outcome: e.outcome, side: e.side,
            price: e.price, size: e.size, matched: 0, status: 'LIVE', orderType: e.orderType, postOnly: e.postOnly, expiration: e.expiration,
            makerAmount: e.makerAmount, takerAmount: e.takerAmount, trades: [], builder: e.builder ?? '', createdAt: e.time, updatedAt: e.time, resting: false,
          };
          this.open.set(o.id, o);
          changed.set(o.id, o);
          taker = o;
          history(o, e.seq, e.time, 'accepted', o.size);
          break;
        }
        case 'OrderRejected':
          history({ id: e.orderId, account: e.account }, e.seq, e.time, 'rejected', 0, '', e.message);
          break;
        case 'TradeExecuted': {
          touched.add(e.conditionId);
          for (const s of [e.taker, e.maker]) {
            const o = this.open.get(s.orderId);
            if (o === undefined) continue;
            o.matched += e.size;
            o.trades.push(e.tradeId);
            o.updatedAt = e.time;
            if (o.resting) this.moveLevel(o, -e.size);
            if (o.matched >= o.size) this.finish(o, 'MATCHED');
            changed.set(o.id, o);
            history(o, e.seq, e.time, 'fill', o.size - o.matched, e.tradeId);
          }
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
          changed.set(o.id, o);
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
    for (const o of changed.values()) {
      this.pending.set(o.id, {
        order_id: o.id, account: o.account, owner: o.owner, condition_id: o.conditionId, token_id: o.tokenId, outcome: o.outcome, side: o.side,
        price: o.price, original_size: o.size, size_matched: o.matched, status: o.status, order_type: o.orderType, post_only: o.postOnly,
        expiration: o.expiration, maker_amount: o.makerAmount, taker_amount: o.takerAmount, associate_trades: [...o.trades], builder: o.builder,
        created_at: chTime(o.createdAt), updated_at: chTime(o.updatedAt), version: record.pos,
      });
    }
    return touched;
  }

  /** Moves the batch's order rows into `out`: each changed order once, as it stands at the end of the batch. */
  flush(out: RowSink): void {
    for (const row of this.pending.values()) out.add('orders', row);
    this.pending = new Map();
  }
}
