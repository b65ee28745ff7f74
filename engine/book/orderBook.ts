// The order-book contract shared by the fast book and the reference book. One book per market, in outcome
// 0's price: an outcome-1 BUY at q rests as an ask at 1 - q, an outcome-1 SELL at q as a bid at 1 - q.
// A book only keeps resting orders in price-time priority; the engine does matching and settlement.

import type { Order } from '../order.js';

export const BID = 0;
export const ASK = 1;
export type BookSide = typeof BID | typeof ASK;

export function opposite(side: BookSide): BookSide {
  return side === BID ? ASK : BID;
}

/** True when a taker on `takerSide` with limit `limit` may trade with a resting order at `restingPrice`. */
export function crosses(takerSide: BookSide, limit: number, restingPrice: number): boolean {
  return takerSide === BID ? restingPrice <= limit : restingPrice >= limit;
}

/** An aggregated price level: total open quantity and number of orders at one price. */
export interface PriceLevel {
  readonly price: number;
  readonly size: number;
  readonly orders: number;
}

export interface OrderBook {
  /** Number of resting orders. */
  readonly size: number;
  /** Rests an order at the back of its price level. */
  add(order: Order): void;
  /** Takes a resting order out; its open quantity leaves its level. */
  remove(order: Order): void;
  /** Records that a resting order's `remaining` was just lowered by `qty` (a fill). */
  reduce(order: Order, qty: number): void;
  /** The resting order that trades first on `side`: best price, then earliest priority. */
  best(side: BookSide): Order | undefined;
  /** min(open quantity on `side` that a taker with limit `limit` could trade with, `enough`). */
  available(side: BookSide, limit: number, enough: number): number;
  /** Aggregated levels of `side`, best first, at most `depth` of them. */
  levels(side: BookSide, depth?: number): PriceLevel[];
  /** Resting orders of `side` in priority order (best price first, then time). */
  orders(side: BookSide): Order[];
}

export type BookFactory = () => OrderBook;
