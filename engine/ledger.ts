// Balances per address: free and reserved collateral, and free and reserved amounts of each outcome token.
// Reserved amounts are held by the address's open orders (BUY: collateral, SELL: tokens).

import type { Order } from './order.js';

export class Holding {
  free = 0;
  reserved = 0;
}

export class Account {
  free = 0;
  reserved = 0;
  readonly holdings = new Map<string, Holding>();
  /** Open (resting) orders of this account. */
  readonly orders = new Set<Order>();

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
