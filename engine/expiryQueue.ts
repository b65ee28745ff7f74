// GTD orders by the time they leave the book: a binary min-heap on (expiresAt, priority), so expiry is
// deterministic. Cancelled or filled orders are not taken out; the engine skips them when they surface.

import { MinHeap } from './minHeap.js';
import type { Order } from './order.js';

function earlier(a: Order, b: Order): boolean {
  return a.expiresAt < b.expiresAt || (a.expiresAt === b.expiresAt && a.priority < b.priority);
}

export class ExpiryQueue {
  private readonly heap = new MinHeap<Order>(earlier);

  get length(): number {
    return this.heap.length;
  }

  push(order: Order): void {
    this.heap.push(order);
  }

  /** The earliest order, if it is due at `now`. */
  peekDue(now: number): Order | undefined {
    const top = this.heap.peek();
    return top !== undefined && top.expiresAt <= now ? top : undefined;
  }

  pop(): Order | undefined {
    return this.heap.pop();
  }
}
