// bench:ws's client: `subscribers` WebSocket subscribers spread over `threads` worker threads
// (bench/ws/subscriberWorker.ts), each thread with its own event loop and sockets, so that no one loop has
// to read every subscriber's every frame. Every subscriber is a real client over TCP that reads all it is
// sent; the main thread only coordinates.

import { Worker } from 'node:worker_threads';
import type { PoolMessage, WorkerMessage, WorkerReceipts, WorkerSetup } from './subscriberWorker.js';

export interface PoolOptions {
  readonly threads: number;
  readonly port: number;
  readonly path: string;
  readonly subscribe: string;
  readonly subscribers: number;
  readonly record: boolean;
}

/** Every thread's receipts together (loop delays: the worst thread's). */
export type PoolReceipts = Omit<WorkerReceipts, 'kind'>;

/** The receipts of every thread (or process) of a client as one client's. */
export function mergeReceipts(parts: readonly PoolReceipts[]): PoolReceipts {
  const total = parts.reduce((s, p) => s + p.ts.length, 0);
  const ts = new Float64Array(total);
  const at = new Float64Array(total);
  let o = 0;
  for (const p of parts) {
    ts.set(p.ts, o);
    at.set(p.at, o);
    o += p.ts.length;
  }
  return {
    ts,
    at,
    delivered: parts.reduce((s, p) => s + p.delivered, 0),
    held: parts.reduce((s, p) => s + p.held, 0),
    first: Math.min(...parts.map((p) => p.first)),
    last: Math.max(...parts.map((p) => p.last)),
    messageBytes: Math.max(...parts.map((p) => p.messageBytes)),
    loopDelayP99Ms: Math.max(...parts.map((p) => p.loopDelayP99Ms)),
    loopDelayMaxMs: Math.max(...parts.map((p) => p.loopDelayMaxMs)),
  };
}

interface Thread {
  readonly worker: Worker;
  next(kind: WorkerMessage['kind']): Promise<WorkerMessage>;
  seen: number;
}

function startThread(setup: WorkerSetup): Thread {
  const worker = new Worker(new URL('./subscriberWorker.js', import.meta.url), { workerData: setup });
  const waiting = new Map<string, { resolve: (m: WorkerMessage) => void; reject: (error: Error) => void }>();
  const early = new Map<string, WorkerMessage>();
  let failed: Error | undefined;
  const thread: Thread = {
    worker,
    seen: 0,
    next: (kind) =>
      new Promise((resolve, reject) => {
        if (failed !== undefined) return reject(failed);
        const m = early.get(kind);
        if (m !== undefined) {
          early.delete(kind);
          return resolve(m);
        }
        waiting.set(kind, { resolve, reject });
      }),
  };
  worker.on('message', (m: WorkerMessage) => {
    if (m.kind === 'seen') {
      thread.seen = m.seen;
      return;
    }
    const w = waiting.get(m.kind);
    if (w === undefined) early.set(m.kind, m);
    else {
      waiting.delete(m.kind);
      w.resolve(m);
    }
  });
  worker.on('error', (error) => {
    failed = error;
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  });
  return thread;
}

export class SubscriberPool {
  private constructor(private readonly threads: readonly Thread[]) {}

  /** Resolves once every subscriber is subscribed (has its first frame). */
  static async start(options: PoolOptions): Promise<SubscriberPool> {
    const n = Math.max(1, Math.min(options.threads, options.subscribers));
    const threads: Thread[] = [];
    for (let t = 0; t < n; t++) {
      const share = Math.floor(options.subscribers / n) + (t < options.subscribers % n ? 1 : 0);
      threads.push(startThread({ port: options.port, path: options.path, subscribe: options.subscribe, subscribers: share, record: options.record }));
    }
    await Promise.all(threads.map((t) => t.next('subscribed')));
    return new SubscriberPool(threads);
  }

  /** From now on price changes count; resolves once every thread counts them. */
  async drive(): Promise<void> {
    for (const t of this.threads) t.worker.postMessage('drive' satisfies PoolMessage);
    await Promise.all(this.threads.map((t) => t.next('driving')));
  }

  /** The fewest price changes any subscriber has received (max mode; as of the threads' last reports). */
  get seen(): number {
    return Math.min(...this.threads.map((t) => t.seen));
  }

  async finish(): Promise<PoolReceipts> {
    for (const t of this.threads) t.worker.postMessage('finish' satisfies PoolMessage);
    const parts = (await Promise.all(this.threads.map((t) => t.next('receipts')))) as WorkerReceipts[];
    return mergeReceipts(parts);
  }

  async close(): Promise<void> {
    await Promise.all(
      this.threads.map(
        (t) =>
          new Promise<void>((resolve) => {
            t.worker.once('exit', () => resolve());
            t.worker.postMessage('close' satisfies PoolMessage);
          }),
      ),
    );
  }
}
