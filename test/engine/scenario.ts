// A small given/when/then vocabulary for engine tests. Amounts are written in shares and USDC, prices as
// decimals; builders turn them into the engine's integer units. Every command applied through `Scenario`
// is followed by checkInvariants(), so each test also checks the invariants at every step.

import type { Test } from 'tap';
import { Engine, referenceBookFactory, type BookFactory, type Command, type EngineEvent, type PlaceOrder } from '../../engine/index.js';

export const T0 = 1_700_000_000_000;
export const YES = '1001';
export const NO = '1002';
export const CID = '0xc0ffee';
export const YES2 = '2001';
export const NO2 = '2002';
export const CID2 = '0xbeef';

/** Shares or USDC → base units (exact for up to 6 decimals). */
export function units(amount: number): number {
  return Math.round(amount * 1_000_000);
}

export function listMarket(over: Partial<Extract<Command, { type: 'ListMarket' }>> = {}): Command {
  return {
    type: 'ListMarket', time: T0, conditionId: CID, tokenIds: [YES, NO], tickSize: 10_000, minSize: units(5),
    makerFeeBps: 0, takerFeeBps: 0, negRisk: false, ...over,
  };
}

export function deposit(account: string, usdc: number, time = T0): Command {
  return { type: 'Deposit', time, account, amount: units(usdc) };
}

export function split(account: string, amount: number, conditionId = CID, time = T0): Command {
  return { type: 'Split', time, account, conditionId, amount: units(amount) };
}

interface OrderOptions {
  orderType?: PlaceOrder['orderType'];
  postOnly?: boolean;
  expiration?: number;
  time?: number;
  owner?: string;
  dedupeUntil?: number;
}

/** A limit order of `size` shares at `price`, with amounts computed the way the public clients do. */
export function limit(side: 'BUY' | 'SELL', id: string, account: string, tokenId: string, size: number, price: number, opts: OrderOptions = {}): PlaceOrder {
  const qty = units(size);
  const cash = Math.round((qty * Math.round(price * 1_000_000)) / 1_000_000);
  return order(side, id, account, tokenId, side === 'BUY' ? cash : qty, side === 'BUY' ? qty : cash, opts);
}

export function buy(id: string, account: string, tokenId: string, size: number, price: number, opts: OrderOptions = {}): PlaceOrder {
  return limit('BUY', id, account, tokenId, size, price, opts);
}

export function sell(id: string, account: string, tokenId: string, size: number, price: number, opts: OrderOptions = {}): PlaceOrder {
  return limit('SELL', id, account, tokenId, size, price, opts);
}

/** An order with raw base-unit amounts. */
export function order(side: 'BUY' | 'SELL', id: string, account: string, tokenId: string, makerAmount: number, takerAmount: number, opts: OrderOptions = {}): PlaceOrder {
  const time = opts.time ?? T0;
  return {
    type: 'PlaceOrder', time, orderId: id, account, owner: opts.owner ?? `key-${account}`, tokenId, side, makerAmount, takerAmount,
    orderType: opts.orderType ?? 'GTC', postOnly: opts.postOnly ?? false, expiration: opts.expiration ?? 0,
    dedupeUntil: opts.dedupeUntil ?? time + 3_600_000,
  };
}

export function cancel(orderId: string, account: string, time = T0): Command {
  return { type: 'CancelOrder', time, orderId, account };
}

export class Scenario {
  readonly engine: Engine;
  constructor(
    private readonly t: Test,
    bookFactory?: BookFactory,
  ) {
    this.engine = new Engine(undefined, bookFactory);
  }

  apply(cmd: Command): EngineEvent[] {
    const events = this.engine.apply(cmd);
    const problems = this.engine.checkInvariants();
    if (problems.length > 0) this.t.fail(`invariants broken after ${cmd.type}`, { problems });
    return events;
  }

  /** Applies commands and fails the test if any of them was refused. */
  given(...cmds: Command[]): this {
    for (const cmd of cmds) {
      const refused = this.apply(cmd).filter((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected' || e.type === 'CancelRejected');
      if (refused.length > 0) this.t.fail(`given: ${cmd.type} was refused`, { refused });
    }
    return this;
  }

  /** Applies one command and returns its events, for the `then` assertions. */
  when(cmd: Command): EngineEvent[] {
    return this.apply(cmd);
  }

  free(account: string): number {
    return this.engine.balances(account)?.free ?? 0;
  }

  reserved(account: string): number {
    return this.engine.balances(account)?.reserved ?? 0;
  }

  tokens(account: string, tokenId: string): number {
    return this.engine.balances(account)?.tokens.get(tokenId)?.free ?? 0;
  }

  reservedTokens(account: string, tokenId: string): number {
    return this.engine.balances(account)?.tokens.get(tokenId)?.reserved ?? 0;
  }
}

/** The engine both ways: once with the fast book and once with the reference book. */
export const BOOKS: readonly [string, BookFactory | undefined][] = [
  ['fast book', undefined],
  ['reference book', referenceBookFactory],
];

export function types(events: readonly EngineEvent[]): string[] {
  return events.map((e) => e.type);
}

/** The events of one type, narrowed. */
export function ofType<K extends EngineEvent['type']>(events: readonly EngineEvent[], type: K): Extract<EngineEvent, { type: K }>[] {
  return events.filter((e): e is Extract<EngineEvent, { type: K }> => e.type === type);
}
