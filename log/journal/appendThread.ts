// The journal's own writer thread. Appends do not go through libuv's thread pool: that pool (4 threads) also
// runs chDB's queries (the projector's inserts, history reads, analysts' queries, which may take seconds)
// and the other file work of the process, so an append queued there could wait behind them, and every
// acknowledgement with it. One thread here does nothing but the journal's writes, one at a time, in order.
//
// Contract: write(fd, bytes) resolves once every byte is written to fd (durable, for a descriptor opened
// O_DSYNC), and rejects with the failure otherwise; writes are performed in the order they were asked for.
// If the thread itself dies, every pending and later write rejects. The thread keeps the process alive
// only while a write is pending. close() ends it (the caller waits for its writes first).
//
// A completed write is announced twice: in shared memory (the id of the last write done, stored once its
// bytes are written) and by a message. The message needs an event-loop turn of the calling thread; under
// load a turn runs every ready request first, milliseconds. poll() reads the shared memory instead and
// settles at once the writes it shows done: the host calls it between requests (EngineHost.poll), so an
// acknowledgement waits for one request, not for a turn. Whichever comes first settles a write; a failed
// write is only ever settled by its message.

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

/** Shared slots: the last id written whole, and the first id whose write failed (0: none). */
const DONE = 0;
const FAILED = 1;

/**
 * The thread's program: each request's bytes written whole to its descriptor with writeSync, its id stored
 * in the shared slot, then a reply. It is plain JavaScript given as source (no module to resolve or load, no
 * loader hooks, nothing of the pool), and names its thread pmx-journal for top -H and the benchmarks.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { writeSync, writeFileSync } = require('node:fs');
const shared = new Int32Array(workerData);
try { writeFileSync('/proc/thread-self/comm', 'pmx-journal'); } catch {}
parentPort.on('message', ({ id, fd, bytes }) => {
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    if (Atomics.load(shared, ${FAILED}) === 0) Atomics.store(shared, ${DONE}, id);
    parentPort.postMessage({ id });
  } catch (error) {
    Atomics.compareExchange(shared, ${FAILED}, 0, id);
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
  private readonly shared = new Int32Array(new SharedArrayBuffer(8));
  /** Writes asked for and not settled, by id; ids are consecutive from `oldest`. */
  private readonly pending = new Map<number, Pending>();
  private oldest = 1;
  private next = 1;
  private dead: Error | null = null;
  private ready: Pending | undefined;

  /** A thread that is running: its first write does not wait for it to start. */
  static async start(): Promise<AppendThread> {
    const thread = new AppendThread();
    await new Promise<void>((resolve, reject) => {
      thread.ready = { resolve, reject };
    });
    return thread;
  }

  private constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: this.shared.buffer, execArgv: [], env: {}, stdout: false, stderr: false });
    this.worker.on('message', (reply: AppendReply) => {
      if (reply.id === 0) {
        this.ready?.resolve();
        this.ready = undefined;
        this.idle();
      } else if (reply.error === undefined) {
        this.settle(reply.id);
      } else {
        this.settle(reply.id - 1);
        this.take(reply.id)?.reject(new Error(reply.error));
        this.idle();
      }
    });
    const die = (error: Error): void => {
      this.dead ??= error;
      this.ready?.reject(error);
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

  /** Settles now the writes the thread has finished, without waiting for their messages. Cheap when none has. */
  poll(): void {
    if (this.oldest >= this.next) return;
    const done = Atomics.load(this.shared, DONE);
    if (done >= this.oldest) this.settle(done);
  }

  /** Resolves every pending write up to `upTo` (all written whole: writes complete in order). */
  private settle(upTo: number): void {
    while (this.oldest <= upTo) this.take(this.oldest)?.resolve();
    this.idle();
  }

  private take(id: number): Pending | undefined {
    const waiting = this.pending.get(id);
    this.pending.delete(id);
    if (id === this.oldest) this.oldest++;
    return waiting;
  }

  private idle(): void {
    if (this.pending.size === 0) this.worker.unref();
  }

  async close(): Promise<void> {
    // terminate()'s promise alone does not always hold the event loop open (seen on Node 20 with the worker
    // unreferenced before): a timer does, until the thread has exited.
    const hold = setInterval(() => undefined, 60_000);
    try {
      await this.worker.terminate();
    } finally {
      clearInterval(hold);
    }
  }
}
