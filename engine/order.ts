// An order the engine accepted: its terms in its own token and in the book's (outcome 0) terms, and what
// is still open. Order and market lifecycles are tables with a guard.

import type { OrderType, Outcome, Side } from './commands.js';
import type { Account } from './ledger.js';
import type { Market } from './market.js';
import type { BookSide } from './book/orderBook.js';

export type OrderStatus = 'LIVE' | 'MATCHED' | 'CANCELED' | 'EXPIRED' | 'CANCELED_MARKET_RESOLVED';

/** From each status, the statuses an order may move to (LIVE → LIVE is a partial fill). */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  LIVE: ['LIVE', 'MATCHED', 'CANCELED', 'EXPIRED', 'CANCELED_MARKET_RESOLVED'],
  MATCHED: [],
  CANCELED: [],
  EXPIRED: [],
  CANCELED_MARKET_RESOLVED: [],
};

export function canMoveOrder(from: OrderStatus, to: OrderStatus): boolean {
  return ORDER_TRANSITIONS[from].includes(to);
}

export class Order {
  /** Open quantity in tokens (whole lots). */
  remaining: number;
  /** Intrusive links of the fast book's price-level queue. */
  prev: Order | null = null;
  next: Order | null = null;
  /** Intrusive links of the account's open-order list. */
  accountPrev: Order | null = null;
  accountNext: Order | null = null;
  inAccount = false;

  constructor(
    readonly id: string,
    readonly account: Account,
    readonly owner: string,
    readonly market: Market,
    readonly outcome: Outcome,
    readonly tokenId: string,
    readonly side: Side,
    /** Limit price in the order's own token. */
    readonly ownPrice: number,
    readonly bookSide: BookSide,
    /** Limit price in outcome 0's terms. */
    readonly bookPrice: number,
    /** Original token quantity. */
    readonly size: number,
    readonly orderType: OrderType,
    readonly postOnly: boolean,
    /** Unix seconds from the order, 0 = none. */
    readonly expiration: number,
    /** Engine time (ms) at which a GTD order leaves the book; 0 = never. */
    readonly expiresAt: number,
    /** Time priority: the sequence number of its OrderAccepted event. */
    readonly priority: number,
    readonly dedupeUntil: number,
  ) {
    this.remaining = size;
  }
}
