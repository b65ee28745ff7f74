// The journal's own writer thread. Appends do not go through libuv's thread pool: that pool (4 threads) also
// runs chDB's queries (the projector's inserts, history reads, analysts' queries, which may take seconds)
// and the other file work of the process, so an append queued there could wait behind them, and every
// acknowledgement with it. One thread here does nothing but the journal's writes, one at a time, in order.
//
// Contract: write(fd, bytes) resolves once every byte is written to fd (durable, for a descriptor opened
// O_DSYNC), and rejects with the failure otherwise; writes are performed in the order they were asked for.
// If the thread itself dies, every pending and later write rejects. The thread keeps the process alive
// only while a write is pending. close() ends it (the caller waits for its writes first).

import { Worker } from 'node:worker_threads';

interface AppendRequest {
  readonly id: number;
  readonly fd: number;
  readonly bytes: Uint8Array;
}

interface AppendReply {
  /** 0: the thread is running and ready (sent once, first). */
  readonly id: number;
  /** Absent when every byte was written. */
  readonly error?: string;
}

/**
 * The thread's program: each request's bytes written whole to its descriptor with writeSync, then a reply.
 * It is plain JavaScript given as source (no module to resolve or load, no loader hooks, nothing of the pool),
 * and names its thread pmx-journal for top -H and the benchmarks.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { writeSync, writeFileSync } = require('node:fs');
try { writeFileSync('/proc/thread-self/comm', 'pmx-journal'); } catch {}
parentPort.on('message', ({ id, fd, bytes }) => {
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    parentPort.postMessage({ id });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
parentPort.postMessage({ id: 0 });
`;

interface Pending {
  resolve(): void;
  reject(error: Error): void;
}

export class AppendThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private next = 1;
  private dead: Error | null = null;

  /** A thread that is running: its first write does not wait for it to start. */
  static async start(): Promise<AppendThread> {
    const thread = new AppendThread();
    await new Promise<void>((resolve, reject) => thread.pending.set(0, { resolve, reject }));
    return thread;
  }

  private constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], env: {}, stdout: false, stderr: false });
    this.worker.on('message', (reply: AppendReply) => {
      const waiting = this.pending.get(reply.id);
      if (waiting === undefined) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) this.worker.unref();
      if (reply.error === undefined) waiting.resolve();
      else waiting.reject(new Error(reply.error));
    });
    const die = (error: Error): void => {
      this.dead ??= error;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    this.worker.on('error', die);
    this.worker.on('exit', (code) => die(new Error(`the journal's writer thread exited (code ${code})`)));
  }

  /**
   * `bytes` must span the whole of its own ArrayBuffer (Buffer.allocUnsafeSlow), which moves to the thread
   * without a copy: it is detached here once this returns.
   */
  write(fd: number, bytes: Uint8Array): Promise<void> {
    if (this.dead !== null) return Promise.reject(this.dead);
    if (bytes.byteOffset !== 0 || bytes.byteLength !== bytes.buffer.byteLength) throw new RangeError('AppendThread.write needs a buffer of its own');
    const id = this.next++;
    return new Promise<void>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      const request: AppendRequest = { id, fd, bytes };
      this.worker.postMessage(request, [bytes.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
