// The JS heaps of the service's worker threads, for /metrics: each V8 isolate has a heap of its own, and the
// process's resident memory holds them all, while Node's own gauges (nodejs_heap_size_*) see the main thread's
// only. A thread with an event loop calls answerHeapQueries(name) once at start; threadHeaps() asks every such
// thread over one BroadcastChannel and gathers the answers that arrive within a short wait. Nothing runs until
// a scrape asks. The threads that sleep in Atomics.wait between jobs (the journal's writer, the signature
// workers) never turn their event loop and are not asked: they hold no state of their own beyond a job.

import { BroadcastChannel } from 'node:worker_threads';
import { getHeapStatistics } from 'node:v8';

const CHANNEL = 'pmx-thread-heaps';
const ASK = 'heaps?';

export interface ThreadHeap {
  /** The thread's name (threads/threadName.ts). */
  readonly thread: string;
  /** Bytes of live and not yet collected objects. */
  readonly usedBytes: number;
  /** Bytes the heap has committed (what it holds of the process's memory). */
  readonly totalBytes: number;
}

function isThreadHeap(value: unknown): value is ThreadHeap {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.thread === 'string' && typeof v.usedBytes === 'number' && typeof v.totalBytes === 'number';
}

/** Answers every later threadHeaps() with this thread's heap. The channel does not keep the thread alive. */
export function answerHeapQueries(thread: string): void {
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event) => {
    if ((event as MessageEvent).data !== ASK) return;
    const heap = getHeapStatistics();
    channel.postMessage({ thread, usedBytes: heap.used_heap_size, totalBytes: heap.total_heap_size } satisfies ThreadHeap);
  };
  channel.unref();
}

/** The heaps of the threads that answer within `waitMs`, one entry per thread name (the latest answer). */
export function threadHeaps(waitMs = 50): Promise<ThreadHeap[]> {
  return new Promise((done) => {
    const channel = new BroadcastChannel(CHANNEL);
    const heaps = new Map<string, ThreadHeap>();
    channel.onmessage = (event) => {
      const data = (event as MessageEvent).data as unknown;
      if (isThreadHeap(data)) heaps.set(data.thread, data);
    };
    channel.postMessage(ASK);
    setTimeout(() => {
      channel.close();
      done([...heaps.values()]);
    }, waitMs).unref();
  });
}
