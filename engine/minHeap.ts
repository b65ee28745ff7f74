// A binary min-heap under a strict order `before` (ties must be broken inside it, so that what surfaces first
// is deterministic): the GTD expiry queue (expiryQueue.ts) and the heartbeat deadlines (heartbeats.ts).

export class MinHeap<T> {
  private items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get length(): number {
    return this.items.length;
  }

  /** The first item, left in place. */
  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const heap = this.items;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i] as T, heap[parent] as T)) break;
      [heap[i], heap[parent]] = [heap[parent] as T, heap[i] as T];
      i = parent;
    }
  }

  pop(): T | undefined {
    const heap = this.items;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    heap[0] = last;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let next = i;
      if (left < heap.length && this.before(heap[left] as T, heap[next] as T)) next = left;
      if (right < heap.length && this.before(heap[right] as T, heap[next] as T)) next = right;
      if (next === i) break;
      [heap[i], heap[next]] = [heap[next] as T, heap[i] as T];
      i = next;
    }
    return top;
  }

  /** Empties the heap. */
  clear(): void {
    this.items = [];
  }
}
