// The fast book. Per side: a sorted array of level keys with the best level last (so the hot path, the
// best level, is an array tail), the levels themselves in a parallel array in the same order, and per level
// an intrusive FIFO list of orders (Order.prev/next). A resting order points at its level (Order.level), so
// cancel and fill find it without a search: add, cancel and fill are O(1) apart from finding or creating a
// level for a new order, which is a short scan down from the top of the book (where most orders arrive),
// then a binary search, plus a splice near the tail when the level is new.
//
// Keys: a bid level's key is its price, an ask level's key is minus its price; keys ascend, so the best
// level is always the last key on both sides.

import type { Order } from '../order.js';
import { AMOUNT_ZERO } from '../units.js';
import { ASK, BID, type BookSide, type OrderBook, type PriceLevel } from './orderBook.js';

/** One price level: its orders in time priority and their total open quantity. */
export class Level {
  size = AMOUNT_ZERO;
  count = 0;
  head: Order | null = null;
  tail: Order | null = null;
  constructor(readonly price: number) {}
}

/** How many levels down from the best a new order's level is looked for one by one, before bisecting. */
const TOP_SCAN = 8;

class BookHalf {
  /** Ascending keys; the best level is last. */
  readonly keys: number[] = [];
  /** The level of each key, same index as `keys`. */
  readonly ordered: Level[] = [];

  constructor(readonly side: BookSide) {}

  key(price: number): number {
    return this.side === BID ? price : -price;
  }

  /** Index of the first key greater than or equal to `key`. */
  private lowerBound(key: number): number {
    const keys = this.keys;
    // Most activity is at the top of the book: walk down a few keys from the best before bisecting.
    let hi = keys.length;
    const stop = hi > TOP_SCAN ? hi - TOP_SCAN : 0;
    while (hi > stop && (keys[hi - 1] as number) >= key) hi -= 1;
    if (hi > stop || hi === 0) return hi;
    let lo = 0;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((keys[mid] as number) < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  levelFor(price: number): Level {
    const key = this.key(price);
    const at = this.lowerBound(key);
    const keys = this.keys;
    if (at < keys.length && keys[at] === key) return this.ordered[at] as Level;
    const level = new Level(price);
    if (at === keys.length) {
      keys.push(key);
      this.ordered.push(level);
    } else {
      keys.splice(at, 0, key);
      this.ordered.splice(at, 0, level);
    }
    return level;
  }

  dropLevel(level: Level): void {
    const key = this.key(level.price);
    const keys = this.keys;
    if (keys[keys.length - 1] === key) {
      keys.pop();
      this.ordered.pop();
    } else {
      const at = this.lowerBound(key);
      keys.splice(at, 1);
      this.ordered.splice(at, 1);
    }
  }

  bestLevel(): Level | undefined {
    const ordered = this.ordered;
    return ordered.length === 0 ? undefined : ordered[ordered.length - 1];
  }
}

/** The level a resting order is in; an order that is not resting is a caller's bug. */
function levelOf(order: Order): Level {
  const level = order.level;
  if (level === null) throw new Error(`order ${order.id} is not in the book`);
  return level;
}

export class FastBook implements OrderBook {
  private readonly halves: readonly [BookHalf, BookHalf] = [new BookHalf(BID), new BookHalf(ASK)];
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(order: Order): void {
    const level = this.halves[order.bookSide].levelFor(order.bookPrice);
    order.level = level;
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
    const level = levelOf(order);
    if (order.prev === null) level.head = order.next;
    else order.prev.next = order.next;
    if (order.next === null) level.tail = order.prev;
    else order.next.prev = order.prev;
    order.prev = null;
    order.next = null;
    order.level = null;
    level.size -= order.remaining;
    level.count -= 1;
    this.count -= 1;
    if (level.count === 0) this.halves[order.bookSide].dropLevel(level);
  }

  reduce(order: Order, qty: number): void {
    levelOf(order).size -= qty;
  }

  best(side: BookSide): Order | undefined {
    return this.halves[side].bestLevel()?.head ?? undefined;
  }

  available(side: BookSide, limit: number, enough: number): number {
    const ordered = this.halves[side].ordered;
    let total = 0;
    for (let i = ordered.length - 1; i >= 0 && total < enough; i--) {
      const level = ordered[i] as Level;
      // A taker buying (resting asks) trades at prices <= limit; a taker selling (resting bids) at >= limit.
      if (side === ASK ? level.price > limit : level.price < limit) break;
      total += level.size;
    }
    return Math.min(total, enough);
  }

  levels(side: BookSide, depth = Number.POSITIVE_INFINITY): PriceLevel[] {
    const ordered = this.halves[side].ordered;
    const out: PriceLevel[] = [];
    for (let i = ordered.length - 1; i >= 0 && out.length < depth; i--) {
      const level = ordered[i] as Level;
      out.push({ price: level.price, size: level.size, orders: level.count });
    }
    return out;
  }

  orders(side: BookSide): Order[] {
    const ordered = this.halves[side].ordered;
    const out: Order[] = [];
    for (let i = ordered.length - 1; i >= 0; i--) {
      for (let o = (ordered[i] as Level).head; o !== null; o = o.next) out.push(o);
    }
    return out;
  }
}

export const fastBookFactory = (): OrderBook => new FastBook();
