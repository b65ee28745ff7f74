// Finished order ids the engine still refuses, each until its time: statuses in a Map (values are shared
// string constants, so an entry allocates nothing of its own) and, in insertion order, the ids and their
// times in parallel arrays read from a head index. Pruning walks the arrays, not the Map: a Map keeps
// deleted entries at its front until it is rebuilt, and walking them costs time on every command.

import type { OrderStatus } from './order.js';

export type DoneStatus = Exclude<OrderStatus, 'LIVE'>;

export class DoneOrders {
  private readonly status = new Map<string, DoneStatus>();
  private ids: string[] = [];
  private untils: number[] = [];
  private head = 0;

  get size(): number {
    return this.status.size;
  }

  has(id: string): boolean {
    return this.status.has(id);
  }

  get(id: string): DoneStatus | undefined {
    return this.status.get(id);
  }

  add(id: string, status: DoneStatus, until: number): void {
    this.status.set(id, status);
    this.ids.push(id);
    this.untils.push(until);
  }

  /** Forgets ids, oldest first, while the oldest one's time has come (`until <= now`). */
  prune(now: number): void {
    const untils = this.untils;
    let head = this.head;
    if (head >= untils.length || (untils[head] as number) > now) return;
    while (head < untils.length && (untils[head] as number) <= now) {
      this.status.delete(this.ids[head] as string);
      head += 1;
    }
    this.head = head;
    if (head > 1024 && head * 2 > untils.length) {
      this.ids = this.ids.slice(head);
      this.untils = this.untils.slice(head);
      this.head = 0;
    }
  }

  /** [id, status, until] in insertion order. */
  *entries(): IterableIterator<[string, DoneStatus, number]> {
    for (let i = this.head; i < this.ids.length; i++) {
      const id = this.ids[i] as string;
      yield [id, this.status.get(id) as DoneStatus, this.untils[i] as number];
    }
  }
}
