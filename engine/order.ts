// An order the engine accepted: its terms in its own token and in the book's (outcome 0) terms, and what
// is still open. Order and market lifecycles are tables with a guard.

import type { OrderType, Outcome, Side } from './commands.js';
import type { Market } from './market.js';
import { ASK, BID, type BookSide } from './book/orderBook.js';
import type { Level } from './book/fastBook.js';
import type { Account, Holding } from './ledger.js';
import { PRICE_ONE } from './units.js';

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

// An Order is the engine's most numerous object, so it is kept small (the garbage collector copies less of
// it and the caches hold more of it): its small terms are packed into one integer (`Order.flags`), and what
// follows from other fields is computed (the token id from the market and outcome, the book price from the
// own price). The getters below read them under their usual names.
const OUTCOME_1 = 1;
const SELL = 2;
const BOOK_ASK = 4;
const POST_ONLY = 8;
const TYPE_SHIFT = 4;
const ORDER_TYPES: readonly OrderType[] = ['GTC', 'GTD', 'FOK', 'FAK'];
// A time in ms (about 1.7e12) is beyond V8's small integers (31 or 32 bits), so a field holding one points to a
// separate boxed number: one more object per order for the garbage collector to copy. Kept as two small
// integers, low and high 30 bits (times are below 2^52), it is two plain fields of the Order.
const SPLIT = 2 ** 30;

function packFlags(outcome: Outcome, side: Side, bookSide: BookSide, orderType: OrderType, postOnly: boolean): number {
  const type = ORDER_TYPES.indexOf(orderType);
  if (type < 0) throw new Error(`unknown order type ${String(orderType)}`);
  return (outcome === 1 ? OUTCOME_1 : 0) | (side === 'SELL' ? SELL : 0) | (bookSide === ASK ? BOOK_ASK : 0) | (postOnly ? POST_ONLY : 0) | (type << TYPE_SHIFT);
}

export class Order {
  /** Open quantity in tokens (whole lots). */
  remaining: number;
  /** outcome, side, bookSide, postOnly and orderType, packed (see packFlags). */
  private readonly flags: number;
  /** Intrusive links of the fast book's price-level queue, and the level the order rests in (null otherwise). */
  prev: Order | null = null;
  next: Order | null = null;
  level: Level | null = null;
  /**
   * The account's holding of `tokenId`, once settlement or a SELL reservation needed it (null until then).
   * A cache only: holdings are never removed from an account, so it stays the one the map holds, and
   * resolving it lazily creates a holding exactly when the map lookup it replaces would have.
   */
  holding: Holding | null = null;
  /** Index in its account's open-order list (AccountOrders), -1 when not in it. */
  accountIndex = -1;
  /** dedupeUntil split into two small integers (see SPLIT). */
  private readonly dedupeLow: number;
  private readonly dedupeHigh: number;
  /** dedupeUntil minus the signed order's timestamp (a small integer), or -1 when the command had none. */
  private readonly signedLag: number;

  constructor(
    readonly id: string,
    readonly account: Account,
    readonly owner: string,
    readonly market: Market,
    outcome: Outcome,
    side: Side,
    /** Limit price in the order's own token. */
    readonly ownPrice: number,
    bookSide: BookSide,
    /** Original token quantity. */
    readonly size: number,
    orderType: OrderType,
    postOnly: boolean,
    /** Unix seconds from the order, 0 = none. */
    readonly expiration: number,
    /** Engine time (ms) at which a GTD order leaves the book; 0 = never. */
    readonly expiresAt: number,
    /** Time priority: the sequence number of its OrderAccepted event. */
    readonly priority: number,
    dedupeUntil: number,
    /** The id's hash under its engine's key (OrderIds.hashOf): the order-id table's key. */
    readonly idHash: number,
    /** The signed order's timestamp (ms; at most dedupeUntil, within MAX_SIGNED_WINDOW_MS of it), -1 if unknown. */
    signedAt = -1,
  ) {
    this.remaining = size;
    this.flags = packFlags(outcome, side, bookSide, orderType, postOnly);
    // `| 0` makes each an int32, which V8 keeps as a small integer (both are below 2^30 and 2^22).
    this.dedupeLow = dedupeUntil % SPLIT | 0;
    this.dedupeHigh = Math.floor(dedupeUntil / SPLIT) | 0;
    this.signedLag = signedAt < 0 ? -1 : (dedupeUntil - signedAt) | 0;
  }

  /** The signed order's timestamp (ms), or -1 when its command carried none. */
  get signedAt(): number {
    return this.signedLag < 0 ? -1 : this.dedupeUntil - this.signedLag;
  }

  /** Until when (engine ms) the id is refused as a duplicate once the order is finished. */
  get dedupeUntil(): number {
    return this.dedupeHigh * SPLIT + this.dedupeLow;
  }

  /** The token the order trades: its market's token of its outcome. */
  get tokenId(): string {
    return this.market.tokenIds[this.outcome];
  }

  /** Limit price in outcome 0's terms: the own price, mirrored for outcome 1. */
  get bookPrice(): number {
    return (this.flags & OUTCOME_1) === 0 ? this.ownPrice : PRICE_ONE - this.ownPrice;
  }

  /** True while the order is in its account's open-order list (kept by AccountOrders). */
  get inAccount(): boolean {
    return this.accountIndex >= 0;
  }

  get outcome(): Outcome {
    return (this.flags & OUTCOME_1) === 0 ? 0 : 1;
  }

  get side(): Side {
    return (this.flags & SELL) === 0 ? 'BUY' : 'SELL';
  }

  get bookSide(): BookSide {
    return (this.flags & BOOK_ASK) === 0 ? BID : ASK;
  }

  get orderType(): OrderType {
    return ORDER_TYPES[this.flags >> TYPE_SHIFT] as OrderType;
  }

  get postOnly(): boolean {
    return (this.flags & POST_ONLY) !== 0;
  }

  /** The account's holding of this order's token (created on first use, as Account.holding does). */
  tokenHolding(): Holding {
    let holding = this.holding;
    if (holding === null) {
      holding = this.account.holding(this.tokenId);
      this.holding = holding;
    }
    return holding;
  }
}
