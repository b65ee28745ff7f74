// Every order id the engine knows, in one map: an open order maps to its Order, a finished one (still
// refused as a duplicate) to its final status. One map means a new order costs one lookup to check for a
// duplicate, and finishing an open order one write that replaces the Order with its status.
//
// Two views keep the call sites plain: `live` (open orders) and `done` (finished ids with the time until
// which they are refused). The views are classes, not objects of arrow functions: their methods are then
// the same functions for every engine, so optimised code that inlined them stays valid when another
// engine is created (a fresh closure per engine would deoptimise every caller).
//
// Finished ids are forgotten oldest first: their ids and times sit in a ring buffer read from its head
// (walking a Map's front costs time on every command once entries have been deleted from it, and a ring
// needs no periodic compaction); it doubles when full.

import type { Order, OrderStatus } from './order.js';

export type DoneStatus = Exclude<OrderStatus, 'LIVE'>;

const INITIAL_RING = 1024;

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

  /** Records an open order (restore from a snapshot); replaces what the id held. */
  set(id: string, order: Order): void {
    this.ids.setLive(id, order);
  }

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

  /** [id, status, until] in insertion order. */
  entries(): [string, DoneStatus, number][] {
    return this.ids.doneEntries();
  }

  /** Remembers a finished id until `until` (restore from a snapshot). */
  add(id: string, status: DoneStatus, until: number): void {
    this.ids.remember(id, status, until);
  }
}

export class OrderIds {
  /** id → open Order, or the final status of a finished order still refused. */
  private readonly byId = new Map<string, Order | DoneStatus>();
  private liveCount = 0;
  /** Finished ids in insertion order: ring buffer of `ringIds` and `ringUntils` (same index), `count` from `head`. */
  private ringIds: string[] = new Array<string>(INITIAL_RING).fill('');
  private ringUntils = new Float64Array(INITIAL_RING);
  private head = 0;
  private count = 0;

  readonly live = new LiveOrders(this);
  readonly done = new DoneIds(this);

  /** True when the id is open or still refused: a new order with it is a duplicate. */
  known(id: string): boolean {
    return this.byId.has(id);
  }

  /** What the id holds: its open Order, its final status, or undefined when unknown. */
  lookup(id: string): Order | DoneStatus | undefined {
    return this.byId.get(id);
  }

  /** Records an open order, replacing what the id held (restore from a snapshot). */
  setLive(id: string, order: Order): void {
    if (typeof this.byId.get(id) !== 'object') this.liveCount += 1;
    this.byId.set(id, order);
  }

  liveSize(): number {
    return this.liveCount;
  }

  /** Ids of the open orders, in the order they were recorded. */
  liveIds(): string[] {
    return [...this.byId].filter(([, v]) => typeof v === 'object').map(([k]) => k);
  }

  /**
   * Records a new open order. Contract: `known(order.id)` was false for this command, so the write is a
   * plain insert and needs no lookup first (the hot path: one map operation per resting order).
   */
  open(order: Order): void {
    this.byId.set(order.id, order);
    this.liveCount += 1;
  }

  /**
   * An order is no longer open: remember its id until `until`, or forget it now when `until` has passed.
   * `wasLive` says whether the order was open (recorded by `open` or `live.set`); the caller knows it from
   * the order itself, which spares a lookup. A taker that never rested was never recorded.
   */
  finish(order: Order, status: DoneStatus, wasLive: boolean, until: number, now: number): void {
    if (wasLive) this.liveCount -= 1;
    if (until > now) this.remember(order.id, status, until);
    else if (wasLive) this.byId.delete(order.id);
  }

  /** Refuses `id` as a duplicate until `until`, after every id remembered before it. */
  remember(id: string, status: DoneStatus, until: number): void {
    this.byId.set(id, status);
    if (this.count === this.ringIds.length) this.grow();
    const at = (this.head + this.count) & (this.ringIds.length - 1);
    this.ringIds[at] = id;
    this.ringUntils[at] = until;
    this.count += 1;
  }

  /** Forgets finished ids, oldest first, while the oldest one's time has come (`until <= now`). */
  prune(now: number): void {
    const ids = this.ringIds;
    const untils = this.ringUntils;
    const mask = ids.length - 1;
    let head = this.head;
    let count = this.count;
    while (count > 0 && (untils[head] as number) <= now) {
      this.byId.delete(ids[head] as string);
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

  /** [id, status, until] of the finished ids still remembered, oldest first. */
  doneEntries(): [string, DoneStatus, number][] {
    const out: [string, DoneStatus, number][] = [];
    const mask = this.ringIds.length - 1;
    for (let i = 0; i < this.count; i++) {
      const at = (this.head + i) & mask;
      const id = this.ringIds[at] as string;
      out.push([id, this.byId.get(id) as DoneStatus, this.ringUntils[at] as number]);
    }
    return out;
  }

  /** Doubles the ring, keeping the ids in order from index 0. */
  private grow(): void {
    const capacity = this.ringIds.length;
    const ids = new Array<string>(capacity * 2).fill('');
    const untils = new Float64Array(capacity * 2);
    for (let i = 0; i < this.count; i++) {
      const from = (this.head + i) & (capacity - 1);
      ids[i] = this.ringIds[from] as string;
      untils[i] = this.ringUntils[from] as number;
    }
    this.ringIds = ids;
    this.ringUntils = untils;
    this.head = 0;
  }
}
