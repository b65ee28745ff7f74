// Every order id the engine knows, in one table (orderIdTable.ts): an open order's slot holds its Order, a
// finished one's (still refused as a duplicate) its id and final status. One table means a new order costs
// one probe sequence to check for a duplicate, and finishing an open order one write that replaces the Order
// with its id. The id's hash (orderIdHash.ts) is computed once per command that names an id and kept on the
// Order (Order.idHash) and in the ring below, so finishing or forgetting an id never hashes it again.
//
// Two views keep the call sites plain: `live` (open orders) and `done` (finished ids with the time until
// which they are refused). The views are classes, not objects of arrow functions: their methods are then
// the same functions for every engine, so optimised code that inlined them stays valid when another
// engine is created (a fresh closure per engine would deoptimise every caller).
//
// Finished ids are forgotten oldest first: their ids, hashes and times sit in a ring buffer read from its
// head (a ring needs no periodic compaction); it doubles when full.
//
// Forgetting an id moves `forgottenThrough` to its order's signed timestamp when that is later: placeOrder
// refuses every order signed at or before it (the at-most-once rule, see commands.ts PlaceOrder.signedAt).

import type { Order, OrderStatus } from './order.js';
import { orderIdHash } from './orderIdHash.js';
import { OrderIdTable } from './orderIdTable.js';

export type DoneStatus = Exclude<OrderStatus, 'LIVE'>;

const DONE_STATUSES: readonly DoneStatus[] = ['MATCHED', 'CANCELED', 'EXPIRED', 'CANCELED_MARKET_RESOLVED'];
const INITIAL_RING = 1024;

/** The index of a status in DONE_STATUSES (compares of constant strings, cheaper than indexOf's builtin). */
function doneCode(status: DoneStatus): number {
  return status === 'MATCHED' ? 0 : status === 'CANCELED' ? 1 : status === 'EXPIRED' ? 2 : 3;
}

/** The open orders by id. */
export class LiveOrders {
  constructor(private readonly ids: OrderIds) {}

  get(id: string): Order | undefined {
    const v = this.ids.lookup(id);
    return typeof v === 'object' ? v : undefined;
  }

  has(id: string): boolean {
    return typeof this.ids.lookup(id) === 'object';
  }

  /** Records an open order (restore from a snapshot); replaces what the id held. `id` is `order.id`. */
  set(id: string, order: Order): void {
    if (id !== order.id) throw new Error(`live.set: id ${id} is not the order's id ${order.id}`);
    this.ids.setLive(order);
  }

  /** Ids of the open orders, oldest (lowest priority) first. */
  keys(): string[] {
    return this.ids.liveIds();
  }

  size(): number {
    return this.ids.liveSize();
  }
}

/** The finished ids still refused as duplicates, with their final status. */
export class DoneIds {
  constructor(private readonly ids: OrderIds) {}

  get(id: string): DoneStatus | undefined {
    const v = this.ids.lookup(id);
    return typeof v === 'string' ? v : undefined;
  }

  has(id: string): boolean {
    return typeof this.ids.lookup(id) === 'string';
  }

  size(): number {
    return this.ids.doneSize();
  }

  /** [id, status, until, signedAt (-1: unknown)] in insertion order. */
  entries(): [string, DoneStatus, number, number][] {
    return this.ids.doneEntries();
  }

  /** Remembers a finished id until `until` (restore from a snapshot); `signedAt` -1 when unknown. */
  add(id: string, status: DoneStatus, until: number, signedAt = -1): void {
    this.ids.remember(id, status, until, signedAt);
  }
}

export class OrderIds {
  /** `key`: the host's key of the id hash (orderIdHash.ts); 0 where no host chose one (tests, tools). */
  constructor(readonly key: number = 0) {}

  /** The id's hash under this table's key: what the table and every Order of this engine carry. */
  hashOf(id: string): number {
    return orderIdHash(id, this.key);
  }

  /** id → open Order, or the final status (index in DONE_STATUSES) of a finished order still refused. */
  private readonly table = new OrderIdTable();
  private liveCount = 0;
  /** Finished ids in insertion order: ring of `ringIds`, `ringHashes`, `ringUntils` (same index), `count` from `head`. */
  private ringIds: string[] = new Array<string>(INITIAL_RING).fill('');
  private ringHashes = new Int32Array(INITIAL_RING);
  private ringUntils = new Float64Array(INITIAL_RING);
  /** Signed timestamp of each remembered id's order (-1: unknown). */
  private ringSigned = new Float64Array(INITIAL_RING);
  private head = 0;
  private count = 0;

  readonly live = new LiveOrders(this);
  readonly done = new DoneIds(this);
  /** Latest signed timestamp of any forgotten order (0: none known): orders signed at or before it are stale. */
  forgottenThrough = 0;

  /** True when the id is open or still refused: a new order with it is a duplicate. `h` is its orderIdHash. */
  known(id: string, h: number = this.hashOf(id)): boolean {
    return this.table.find(id, h) >= 0;
  }

  /** What the id holds: its open Order, its final status, or undefined when unknown. */
  lookup(id: string): Order | DoneStatus | undefined {
    const table = this.table;
    const at = table.find(id, this.hashOf(id));
    if (at < 0) return undefined;
    const ref = table.refAt(at);
    return typeof ref === 'object' ? ref : (DONE_STATUSES[table.codeAt(at)] as DoneStatus);
  }

  /** Records an open order, replacing what its id held (restore from a snapshot). */
  setLive(order: Order): void {
    const table = this.table;
    const at = table.find(order.id, order.idHash);
    if (at < 0) {
      table.insert(order.idHash, order);
      this.liveCount += 1;
      return;
    }
    if (typeof table.refAt(at) !== 'object') this.liveCount += 1;
    table.setOrder(at, order);
  }

  liveSize(): number {
    return this.liveCount;
  }

  /** Ids of the open orders, oldest (lowest priority) first. */
  liveIds(): string[] {
    return this.table.orders().sort((a, b) => a.priority - b.priority).map((o) => o.id);
  }

  /**
   * Records a new open order. Contract: `known(order.id)` was false for this command, so the write is a
   * plain insert and needs no lookup first (the hot path: one probe sequence per resting order).
   */
  open(order: Order): void {
    this.table.insert(order.idHash, order);
    this.liveCount += 1;
  }

  /**
   * An order is no longer open: remember its id until `until`, or forget it now when `until` has passed.
   * `wasLive` says whether the order was open (recorded by `open` or `live.set`); the caller knows it from
   * the order itself. A taker that never rested was never recorded.
   */
  finish(order: Order, status: DoneStatus, wasLive: boolean, until: number, now: number): void {
    if (!wasLive) {
      if (until > now) this.remember(order.id, status, until, order.signedAt, order.idHash);
      else this.forgot(order.signedAt);
      return;
    }
    this.liveCount -= 1;
    const table = this.table;
    const at = table.find(order.id, order.idHash);
    if (at < 0) return;
    if (until > now) {
      table.setDone(at, order.id, doneCode(status));
      this.pushRing(order.id, order.idHash, until, order.signedAt);
    } else {
      table.removeAt(at);
      this.forgot(order.signedAt);
    }
  }

  /**
   * Refuses `id` as a duplicate until `until`, after every id remembered before it. `signedAt`: its order's
   * signed timestamp (-1: unknown). `h` is its orderIdHash.
   */
  remember(id: string, status: DoneStatus, until: number, signedAt: number, h: number = this.hashOf(id)): void {
    const table = this.table;
    let at = table.find(id, h);
    if (at < 0) at = table.insert(h, id);
    table.setDone(at, id, doneCode(status));
    this.pushRing(id, h, until, signedAt);
  }

  /** An id whose order was signed at `signedAt` (-1: unknown) is forgotten: move the horizon. */
  private forgot(signedAt: number): void {
    if (signedAt > this.forgottenThrough) this.forgottenThrough = signedAt;
  }

  /** Forgets finished ids, oldest first, while the oldest one's time has come (`until <= now`). */
  prune(now: number): void {
    const ids = this.ringIds;
    const untils = this.ringUntils;
    const hashes = this.ringHashes;
    const mask = ids.length - 1;
    let head = this.head;
    let count = this.count;
    const signed = this.ringSigned;
    while (count > 0 && (untils[head] as number) <= now) {
      const at = this.table.find(ids[head] as string, hashes[head] as number);
      if (at >= 0) this.table.removeAt(at);
      this.forgot(signed[head] as number);
      ids[head] = '';
      head = (head + 1) & mask;
      count -= 1;
    }
    this.head = head;
    this.count = count;
  }

  /** Number of finished ids still remembered. */
  doneSize(): number {
    return this.count;
  }

  /** [id, status, until, signedAt] of the finished ids still remembered, oldest first. */
  doneEntries(): [string, DoneStatus, number, number][] {
    const out: [string, DoneStatus, number, number][] = [];
    const mask = this.ringIds.length - 1;
    for (let i = 0; i < this.count; i++) {
      const at = (this.head + i) & mask;
      const id = this.ringIds[at] as string;
      out.push([id, this.lookup(id) as DoneStatus, this.ringUntils[at] as number, this.ringSigned[at] as number]);
    }
    return out;
  }

  private pushRing(id: string, h: number, until: number, signedAt: number): void {
    if (this.count === this.ringIds.length) this.growRing();
    const at = (this.head + this.count) & (this.ringIds.length - 1);
    this.ringIds[at] = id;
    this.ringHashes[at] = h;
    this.ringUntils[at] = until;
    this.ringSigned[at] = signedAt;
    this.count += 1;
  }

  /** Doubles the ring, keeping the ids in order from index 0. */
  private growRing(): void {
    const capacity = this.ringIds.length;
    const ids = new Array<string>(capacity * 2).fill('');
    const hashes = new Int32Array(capacity * 2);
    const untils = new Float64Array(capacity * 2);
    const signed = new Float64Array(capacity * 2);
    for (let i = 0; i < this.count; i++) {
      const from = (this.head + i) & (capacity - 1);
      ids[i] = this.ringIds[from] as string;
      hashes[i] = this.ringHashes[from] as number;
      untils[i] = this.ringUntils[from] as number;
      signed[i] = this.ringSigned[from] as number;
    }
    this.ringIds = ids;
    this.ringHashes = hashes;
    this.ringUntils = untils;
    this.ringSigned = signed;
    this.head = 0;
  }
}
