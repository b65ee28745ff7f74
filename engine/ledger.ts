// Balances per address: free and reserved collateral, and free and reserved amounts of each outcome token.
// Reserved amounts are held by the address's open orders (BUY: collateral, SELL: tokens).

import type { Order } from './order.js';
import { AMOUNT_ZERO } from './units.js';

export class Holding {
  free = AMOUNT_ZERO;
  reserved = AMOUNT_ZERO;
}

/**
 * An account's open orders, in no particular order (every reader sorts them by priority): an array, each
 * order knowing its index (Order.accountIndex), so adding is a push and removing moves the last order into
 * the gap. Both touch the account's array and at most one other order; a linked list would touch the
 * order's two neighbours, and a Set costs a hash-table entry per order.
 */
export class AccountOrders {
  private readonly list: Order[] = [];

  get size(): number {
    return this.list.length;
  }

  add(order: Order): void {
    if (order.accountIndex >= 0) return;
    order.accountIndex = this.list.length;
    this.list.push(order);
  }

  delete(order: Order): void {
    const at = order.accountIndex;
    if (at < 0 || this.list[at] !== order) return;
    const last = this.list.pop() as Order;
    if (last !== order) {
      this.list[at] = last;
      last.accountIndex = at;
    }
    order.accountIndex = -1;
  }

  has(order: Order): boolean {
    const at = order.accountIndex;
    return at >= 0 && this.list[at] === order;
  }

  [Symbol.iterator](): IterableIterator<Order> {
    return this.list.values();
  }
}

export class Account {
  free = AMOUNT_ZERO;
  reserved = AMOUNT_ZERO;
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
  deposits = AMOUNT_ZERO;
  withdrawals = AMOUNT_ZERO;

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
