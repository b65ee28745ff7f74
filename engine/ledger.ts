// Balances per address: free and reserved collateral, and free and reserved amounts of each outcome token.
// Reserved amounts are held by the address's open orders (BUY: collateral, SELL: tokens).

import type { Order } from './order.js';

export class Holding {
  free = 0;
  reserved = 0;
}

/**
 * An account's open orders, oldest first: an intrusive doubly-linked list through Order.accountPrev/Next,
 * so adding and removing an order allocate nothing (a Set costs a hash-table entry per order).
 */
export class AccountOrders {
  private head: Order | null = null;
  private tail: Order | null = null;
  private count = 0;

  get size(): number {
    return this.count;
  }

  add(order: Order): void {
    if (order.inAccount) return;
    order.inAccount = true;
    order.accountPrev = this.tail;
    order.accountNext = null;
    if (this.tail === null) this.head = order;
    else this.tail.accountNext = order;
    this.tail = order;
    this.count += 1;
  }

  delete(order: Order): void {
    if (!order.inAccount) return;
    order.inAccount = false;
    if (order.accountPrev === null) this.head = order.accountNext;
    else order.accountPrev.accountNext = order.accountNext;
    if (order.accountNext === null) this.tail = order.accountPrev;
    else order.accountNext.accountPrev = order.accountPrev;
    order.accountPrev = null;
    order.accountNext = null;
    this.count -= 1;
  }

  has(order: Order): boolean {
    return order.inAccount && order.account.orders === this;
  }

  *[Symbol.iterator](): IterableIterator<Order> {
    for (let o = this.head; o !== null; o = o.accountNext) yield o;
  }
}

export class Account {
  free = 0;
  reserved = 0;
  readonly holdings = new Map<string, Holding>();
  /** Open (resting) orders of this account, oldest first. */
  readonly orders = new AccountOrders();

  constructor(readonly address: string) {}

  holding(tokenId: string): Holding {
    let holding = this.holdings.get(tokenId);
    if (holding === undefined) {
      holding = new Holding();
      this.holdings.set(tokenId, holding);
    }
    return holding;
  }

  /** Free tokens of one outcome, without creating a holding. */
  freeTokens(tokenId: string): number {
    return this.holdings.get(tokenId)?.free ?? 0;
  }
}

export class Ledger {
  readonly accounts = new Map<string, Account>();
  /** Lifetime collateral in and out, for the cash invariant. */
  deposits = 0;
  withdrawals = 0;

  get(address: string): Account | undefined {
    return this.accounts.get(address);
  }

  getOrCreate(address: string): Account {
    let account = this.accounts.get(address);
    if (account === undefined) {
      account = new Account(address);
      this.accounts.set(address, account);
    }
    return account;
  }
}
