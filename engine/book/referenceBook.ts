// The reference book: a plain list of resting orders, searched and sorted on every question. Slow and
// obviously correct; property tests use it as the oracle for the fast book (same contract, same answers).

import type { Order } from '../order.js';
import { BID, type BookSide, type OrderBook, type PriceLevel } from './orderBook.js';

/** Negative when `a` trades before `b` on `side`: better price first, then earlier priority. */
function priorityOrder(side: BookSide, a: Order, b: Order): number {
  if (a.bookPrice !== b.bookPrice) return side === BID ? b.bookPrice - a.bookPrice : a.bookPrice - b.bookPrice;
  return a.priority - b.priority;
}

export class ReferenceBook implements OrderBook {
  private resting: Order[] = [];

  get size(): number {
    return this.resting.length;
  }

  add(order: Order): void {
    if (this.resting.includes(order)) throw new Error(`order ${order.id} is already in the book`);
    this.resting.push(order);
  }

  remove(order: Order): void {
    const at = this.resting.indexOf(order);
    if (at < 0) throw new Error(`order ${order.id} is not in the book`);
    this.resting.splice(at, 1);
  }

  reduce(order: Order, _qty: number): void {
    if (!this.resting.includes(order)) throw new Error(`order ${order.id} is not in the book`);
  }

  orders(side: BookSide): Order[] {
    return this.resting.filter((o) => o.bookSide === side).sort((a, b) => priorityOrder(side, a, b));
  }

  best(side: BookSide): Order | undefined {
    return this.orders(side)[0];
  }

  available(side: BookSide, limit: number, enough: number): number {
    let total = 0;
    for (const order of this.orders(side)) {
      const tradable = side === BID ? order.bookPrice >= limit : order.bookPrice <= limit;
      if (tradable) total += order.remaining;
    }
    return Math.min(total, enough);
  }

  levels(side: BookSide, depth = Number.POSITIVE_INFINITY): PriceLevel[] {
    const out: { price: number; size: number; orders: number }[] = [];
    for (const order of this.orders(side)) {
      const last = out[out.length - 1];
      if (last !== undefined && last.price === order.bookPrice) {
        last.size += order.remaining;
        last.orders += 1;
      } else {
        out.push({ price: order.bookPrice, size: order.remaining, orders: 1 });
      }
    }
    return out.slice(0, depth);
  }
}

export const referenceBookFactory = (): OrderBook => new ReferenceBook();
