// The fast book. Per side: a sorted array of level keys with the best level last (so the hot path, the
// best level, is an array tail), a map from price to level, and per level an intrusive FIFO list of orders
// (Order.prev/next), so add, cancel and fill are O(1) apart from creating or dropping a level, which is a
// binary search plus a splice near the tail in the usual case.
//
// Keys: a bid level's key is its price, an ask level's key is minus its price; keys ascend, so the best
// level is always the last key on both sides.

import type { Order } from '../order.js';
import { ASK, BID, type BookSide, type OrderBook, type PriceLevel } from './orderBook.js';

class Level {
  size = 0;
  count = 0;
  head: Order | null = null;
  tail: Order | null = null;
  constructor(readonly price: number) {}
}

class BookHalf {
  /** Ascending keys; the best level is last. */
  readonly keys: number[] = [];
  readonly levels = new Map<number, Level>();

  constructor(readonly side: BookSide) {}

  key(price: number): number {
    return this.side === BID ? price : -price;
  }

  /** Index of the first key greater than or equal to `key`. */
  private lowerBound(key: number): number {
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length;
    // Most activity is at the top of the book: check the tail before searching.
    if (hi > 0 && (keys[hi - 1] as number) < key) return hi;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((keys[mid] as number) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  levelFor(price: number): Level {
    let level = this.levels.get(price);
    if (level === undefined) {
      level = new Level(price);
      this.levels.set(price, level);
      const key = this.key(price);
      const at = this.lowerBound(key);
      if (at === this.keys.length) this.keys.push(key);
      else this.keys.splice(at, 0, key);
    }
    return level;
  }

  dropLevel(level: Level): void {
    this.levels.delete(level.price);
    const key = this.key(level.price);
    const keys = this.keys;
    if (keys[keys.length - 1] === key) keys.pop();
    else keys.splice(this.lowerBound(key), 1);
  }

  bestLevel(): Level | undefined {
    const keys = this.keys;
    if (keys.length === 0) return undefined;
    const key = keys[keys.length - 1] as number;
    return this.levels.get(this.side === BID ? key : -key);
  }
}

export class FastBook implements OrderBook {
  private readonly halves: readonly [BookHalf, BookHalf] = [new BookHalf(BID), new BookHalf(ASK)];
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(order: Order): void {
    const level = this.halves[order.bookSide].levelFor(order.bookPrice);
    order.prev = level.tail;
    order.next = null;
    if (level.tail === null) level.head = order;
    else level.tail.next = order;
    level.tail = order;
    level.size += order.remaining;
    level.count += 1;
    this.count += 1;
  }

  remove(order: Order): void {
    const half = this.halves[order.bookSide];
    const level = half.levels.get(order.bookPrice);
    if (level === undefined) throw new Error(`order ${order.id} is not in the book`);
    if (order.prev === null) level.head = order.next;
    else order.prev.next = order.next;
    if (order.next === null) level.tail = order.prev;
    else order.next.prev = order.prev;
    order.prev = null;
    order.next = null;
    level.size -= order.remaining;
    level.count -= 1;
    this.count -= 1;
    if (level.count === 0) half.dropLevel(level);
  }

  reduce(order: Order, qty: number): void {
    const level = this.halves[order.bookSide].levels.get(order.bookPrice);
    if (level === undefined) throw new Error(`order ${order.id} is not in the book`);
    level.size -= qty;
  }

  best(side: BookSide): Order | undefined {
    return this.halves[side].bestLevel()?.head ?? undefined;
  }

  available(side: BookSide, limit: number, enough: number): number {
    const half = this.halves[side];
    const keys = half.keys;
    let total = 0;
    for (let i = keys.length - 1; i >= 0 && total < enough; i--) {
      const key = keys[i] as number;
      const price = side === BID ? key : -key;
      // A taker buying (resting asks) trades at prices <= limit; a taker selling (resting bids) at >= limit.
      if (side === ASK ? price > limit : price < limit) break;
      total += (half.levels.get(price) as Level).size;
    }
    return Math.min(total, enough);
  }

  levels(side: BookSide, depth = Number.POSITIVE_INFINITY): PriceLevel[] {
    const half = this.halves[side];
    const keys = half.keys;
    const out: PriceLevel[] = [];
    for (let i = keys.length - 1; i >= 0 && out.length < depth; i--) {
      const key = keys[i] as number;
      const level = half.levels.get(side === BID ? key : -key) as Level;
      out.push({ price: level.price, size: level.size, orders: level.count });
    }
    return out;
  }

  orders(side: BookSide): Order[] {
    const half = this.halves[side];
    const out: Order[] = [];
    for (let i = half.keys.length - 1; i >= 0; i--) {
      const key = half.keys[i] as number;
      for (let o = (half.levels.get(side === BID ? key : -key) as Level).head; o !== null; o = o.next) out.push(o);
    }
    return out;
  }
}

export const fastBookFactory = (): OrderBook => new FastBook();
