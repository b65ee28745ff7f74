// The open orders the stream publisher follows from durable records: what an `order` event needs that the
// record does not repeat (owner, original size, type, expiry, creation time, trades so far), and whether the
// order rests in the book (which price levels it counts in: an order rests only once its own record has
// matched it, when it is a GTC/GTD with quantity left, as in the engine). The
// same transitions as the orders projection (projections/builders/orders.ts), so an event's status is the
// one GET /data/order/{id} shows once the projection holds the record:
// LIVE while open; MATCHED once filled, or when a FAK/FOK remainder is killed after a partial fill;
// CANCELED, EXPIRED, CANCELED_MARKET_RESOLVED.
//
// Only the orders someone watches are followed (the publisher says which: those of an API key with a user
// connection, and those resting in a market with a market subscriber). An order starts being followed either
// at its acceptance or from the engine's state at a durable position (`follow`); the engine keeps no creation
// time or trade list, so such an order's are 0 and none here until the publisher fills them in from a read
// model that holds them (StreamPublisherOptions.knownOrder).

import { addTrade, NO_TRADES } from '../../projections/builders/orders.js';
import { PRICE_ONE, type Engine, type OrderCancelled, type OrderExpired, type OrderStatus, type OrderType, type Outcome, type Side } from '../../engine/index.js';

export interface TrackedOrder {
  readonly id: string;
  readonly account: string;
  readonly owner: string;
  readonly conditionId: string;
  readonly tokenId: string;
  readonly outcome: Outcome;
  readonly side: Side;
  /** Micro-units in the order's own token. */
  readonly price: number;
  readonly size: number;
  matched: number;
  status: OrderStatus;
  readonly orderType: OrderType;
  /** Unix seconds, 0 = none. */
  readonly expiration: number;
  /** ms; 0 while unknown (an order open when the tracker started, until the publisher finds its time). */
  createdAt: number;
  /** Its trade ids: NO_TRADES until its first fill (addTrade). */
  trades: readonly string[];
  /** In the book: its open quantity counts in a price level. */
  resting: boolean;
}

/** Where an order rests in the book: outcome 0's terms. */
export function bookTermsOf(o: TrackedOrder): { bid: boolean; price: number } {
  return { bid: (o.outcome === 0) === (o.side === 'BUY'), price: o.outcome === 0 ? o.price : PRICE_ONE - o.price };
}

/** An open order as the engine holds it (Engine.order). */
export type EngineOrder = NonNullable<ReturnType<Engine['order']>>;

export class UserOrders {
  private readonly open = new Map<string, TrackedOrder>();

  /**
   * Starts following an open order of the engine (which must be at a durable position), unless it is followed
   * already; returns the tracked order either way.
   */
  follow(o: EngineOrder): TrackedOrder {
    const known = this.open.get(o.id);
    if (known !== undefined) return known;
    const tracked: TrackedOrder = {
      id: o.id,
      account: o.account.address,
      owner: o.owner,
      conditionId: o.market.conditionId,
      tokenId: o.tokenId,
      outcome: o.outcome,
      side: o.side,
      price: o.ownPrice,
      size: o.size,
      matched: o.size - o.remaining,
      status: 'LIVE',
      orderType: o.orderType,
      expiration: o.expiration,
      createdAt: 0,
      trades: NO_TRADES,
      // Open in the engine at a durable position, so past its own record: in the book (a FOK/FAK is never open then).
      resting: true,
    };
    this.open.set(o.id, tracked);
    return tracked;
  }

  /** Stops following the orders `drop` is true of. */
  forget(drop: (o: TrackedOrder) => boolean): void {
    for (const [id, o] of this.open) if (drop(o)) this.open.delete(id);
  }

  get size(): number {
    return this.open.size;
  }

  accepted(o: TrackedOrder): void {
    this.open.set(o.id, o);
  }

  isOpen(o: TrackedOrder): boolean {
    return this.open.get(o.id) === o;
  }

  /** A fill of a known order (undefined for an unknown one); a filled order leaves the tracker. */
  filled(orderId: string, size: number, tradeId: string): TrackedOrder | undefined {
    const o = this.open.get(orderId);
    if (o === undefined) return undefined;
    o.matched += size;
    addTrade(o, tradeId);
    if (o.matched >= o.size) {
      o.status = 'MATCHED';
      this.open.delete(orderId);
    }
    return o;
  }

  /** A cancelled or expired order leaves the tracker with its final status (undefined when unknown). */
  ended(e: OrderCancelled | OrderExpired): TrackedOrder | undefined {
    const o = this.open.get(e.orderId);
    if (o === undefined) return undefined;
    o.status =
      e.type === 'OrderExpired' ? 'EXPIRED'
      : e.reason === 'market_resolved' ? 'CANCELED_MARKET_RESOLVED'
      : e.reason === 'unfilled' && o.matched > 0 ? 'MATCHED'
      : 'CANCELED';
    this.open.delete(e.orderId);
    return o;
  }
}
