// Every order id the engine knows, in one map: an open order maps to its Order, a finished one (still
// refused as a duplicate) to its final status. One map means a new order costs one lookup to check for a
// duplicate, and finishing an open order one write that replaces the Order with its status.
//
// Two views keep the call sites plain: `live` (open orders) and `done` (finished ids with the time until
// which they are refused). Finished ids are forgotten oldest first: their ids and times sit in parallel
// arrays read from a head index, because walking a Map's front costs time on every command once entries
// have been deleted from it.

import type { Order, OrderStatus } from './order.js';

export type DoneStatus = Exclude<OrderStatus, 'LIVE'>;

export class OrderIds {
  private readonly byId = new Map<string, Order | DoneStatus>();
  private liveCount = 0;
  private doneIds: string[] = [];
  private doneUntils: number[] = [];
  private doneHead = 0;

  /** True when the id is open or still refused: a new order with it is a duplicate. */
  known(id: string): boolean {
    return this.byId.has(id);
  }

  readonly live = {
    get: (id: string): Order | undefined => {
      const v = this.byId.get(id);
      return typeof v === 'object' ? v : undefined;
    },
    has: (id: string): boolean => typeof this.byId.get(id) === 'object',
    set: (id: string, order: Order): void => {
      if (typeof this.byId.get(id) !== 'object') this.liveCount += 1;
      this.byId.set(id, order);
    },
    keys: (): string[] => [...this.byId].filter(([, v]) => typeof v === 'object').map(([k]) => k),
    size: (): number => this.liveCount,
  };

  readonly done = {
    get: (id: string): DoneStatus | undefined => {
      const v = this.byId.get(id);
      return typeof v === 'string' ? v : undefined;
    },
    has: (id: string): boolean => typeof this.byId.get(id) === 'string',
    size: (): number => this.doneIds.length - this.doneHead,
    /** [id, status, until] in insertion order. */
    entries: (): [string, DoneStatus, number][] => {
      const out: [string, DoneStatus, number][] = [];
      for (let i = this.doneHead; i < this.doneIds.length; i++) {
        const id = this.doneIds[i] as string;
        out.push([id, this.byId.get(id) as DoneStatus, this.doneUntils[i] as number]);
      }
      return out;
    },
    /** Remembers a finished id until `until` (restore from a snapshot). */
    add: (id: string, status: DoneStatus, until: number): void => {
      this.byId.set(id, status);
      this.doneIds.push(id);
      this.doneUntils.push(until);
    },
  };

  /** An order is no longer open: remember its id until `until`, or forget it now when `until` has passed. */
  finish(order: Order, status: DoneStatus, until: number, now: number): void {
    const wasLive = this.byId.get(order.id) === order;
    if (wasLive) this.liveCount -= 1;
    if (until > now) this.done.add(order.id, status, until);
    else if (wasLive) this.byId.delete(order.id);
  }

  /** Forgets finished ids, oldest first, while the oldest one's time has come (`until <= now`). */
  prune(now: number): void {
    const untils = this.doneUntils;
    let head = this.doneHead;
    if (head >= untils.length || (untils[head] as number) > now) return;
    while (head < untils.length && (untils[head] as number) <= now) {
      this.byId.delete(this.doneIds[head] as string);
      head += 1;
    }
    this.doneHead = head;
    if (head > 1024 && head * 2 > untils.length) {
      this.doneIds = this.doneIds.slice(head);
      this.doneUntils = this.doneUntils.slice(head);
      this.doneHead = 0;
    }
  }
}
