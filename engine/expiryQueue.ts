// GTD orders by the time they leave the book: a binary min-heap on (expiresAt, priority), so expiry is
// deterministic. Cancelled or filled orders are not taken out; the engine skips them when they surface.

import type { Order } from './order.js';

function earlier(a: Order, b: Order): boolean {
  return a.expiresAt < b.expiresAt || (a.expiresAt === b.expiresAt && a.priority < b.priority);
}

export class ExpiryQueue {
  private readonly heap: Order[] = [];

  get length(): number {
    return this.heap.length;
  }

  push(order: Order): void {
    const heap = this.heap;
    heap.push(order);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!earlier(heap[i] as Order, heap[parent] as Order)) break;
      [heap[i], heap[parent]] = [heap[parent] as Order, heap[i] as Order];
      i = parent;
    }
  }

  /** The earliest order, if it is due at `now`. */
  peekDue(now: number): Order | undefined {
    const top = this.heap[0];
    return top !== undefined && top.expiresAt <= now ? top : undefined;
  }

  pop(): Order | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let next = i;
      if (left < heap.length && earlier(heap[left] as Order, heap[next] as Order)) next = left;
      if (right < heap.length && earlier(heap[right] as Order, heap[next] as Order)) next = right;
      if (next === i) break;
      [heap[i], heap[next]] = [heap[next] as Order, heap[i] as Order];
      i = next;
    }
    return top;
  }
}
