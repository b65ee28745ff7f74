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
// The two threads talk through shared memory only, never by message: a region the bytes are copied into and
// a few words (the request's id, descriptor and length; the id last answered; the id that failed, with its
// error text). The thread sleeps in Atomics.wait and is woken by Atomics.notify, a futex wake; a postMessage
// to a sleeping worker costs the posting thread several times that (serialising, queueing, libuv's async
// handle: ~44 µs against ~12 µs on the AMD EPYC, measured), and at a steady rate the request thread pays it
// once per order. A write larger than the region goes in consecutive pieces of it (a crash between pieces
// leaves a torn tail, which the journal's recovery truncates as it does a torn single write).
//
// A completed piece is announced in the shared words, and the request thread learns of it three ways: poll()
// reads them (the host calls it between requests, EngineHost.poll, so an acknowledgement waits for one
// request, not for an event-loop turn, which under load runs every ready request first), and an AnswerWatch
// (threads/answerWatch.ts) settles it otherwise: an Atomics.waitAsync on the answered id, and a fallback read
// while a piece is in flight, in case that wake-up is lost. Whichever comes first settles the write.

import { Worker } from 'node:worker_threads';
import { AnswerWatch } from '../../threads/answerWatch.js';

/** Shared words (Int32), each written by one side only. */
const REQUEST = 0; // request thread: id of the piece to write; -1 asks the thread to end
const FD = 1; // request thread: the piece's descriptor
const LENGTH = 2; // request thread: the piece's length in bytes
const ANSWERED = 3; // writer: id of the last piece it finished, written whole or failed
const FAILED = 4; // writer: id of the last piece that failed (0: none)
const ERROR_LENGTH = 5; // writer: bytes of that failure's text
const WORDS = 8;
const ERROR_BYTES = 1024;
/** Bytes of the region a piece is copied into (pages are committed only as they are touched). */
export const REGION_BYTES = 8 << 20;

/**
 * The thread's program: wait for a piece, write it whole to its descriptor with writeSync, answer, wait again.
 * It is plain JavaScript given as source (no module to resolve or load, no loader hooks, nothing of the pool),
 * and names its thread pmx-journal for top -H and the benchmarks.
 */
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { writeSync, writeFileSync } = require('node:fs');
const words = new Int32Array(workerData, 0, ${WORDS});
const errorText = new Uint8Array(workerData, ${WORDS * 4}, ${ERROR_BYTES});
const region = new Uint8Array(workerData, ${WORDS * 4 + ERROR_BYTES});
try { writeFileSync('/proc/thread-self/comm', 'pmx-journal'); } catch {}
let seen = 0;
for (;;) {
  Atomics.wait(words, ${REQUEST}, seen);
  const id = Atomics.load(words, ${REQUEST});
  if (id === -1) break;
  if (id === seen) continue;
  seen = id;
  const fd = Atomics.load(words, ${FD});
  const length = Atomics.load(words, ${LENGTH});
  try {
    let written = 0;
    while (written < length) written += writeSync(fd, region, written, length - written);
  } catch (error) {
    const text = Buffer.from(error instanceof Error ? error.message : String(error)).subarray(0, ${ERROR_BYTES});
    errorText.set(text);
    Atomics.store(words, ${ERROR_LENGTH}, text.length);
    Atomics.store(words, ${FAILED}, id);
  }
  Atomics.store(words, ${ANSWERED}, id);
  Atomics.notify(words, ${ANSWERED});
}
`;

interface Write {
  readonly fd: number;
  readonly bytes: Uint8Array;
  /** Bytes of it handed to the thread so far. */
  sent: number;
  resolve(): void;
  reject(error: Error): void;
}

export class AppendThread {
  private readonly worker: Worker;
  private readonly memory = new SharedArrayBuffer(WORDS * 4 + ERROR_BYTES + REGION_BYTES);
  private readonly words = new Int32Array(this.memory, 0, WORDS);
  private readonly region = new Uint8Array(this.memory, WORDS * 4 + ERROR_BYTES);
  /** Writes asked for and not settled, oldest (the one whose piece the thread has, if any) first. */
  private readonly queue: Write[] = [];
  /** Id of the piece the thread was last given; it holds one when `inFlight`. */
  private id = 0;
  private inFlight = false;
  private dead: Error | null = null;
  /** Settles the piece in flight when the thread answers it (the answered id's wake-up, or its fallback read). */
  private readonly watch = new AnswerWatch('journal', () => this.poll(), () => this.inFlight);

  /** A thread that is running: its first write does not wait for it to start. */
  static async start(): Promise<AppendThread> {
    const thread = new AppendThread();
    await new Promise<void>((resolve, reject) => {
      thread.worker.once('online', resolve);
      thread.worker.once('error', reject);
    });
    thread.worker.unref();
    return thread;
  }

  private constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: this.memory, execArgv: [], env: {}, stdout: false, stderr: false });
    const die = (error: Error): void => {
      this.dead ??= error;
      for (const waiting of this.queue.splice(0)) waiting.reject(error);
      this.inFlight = false;
      this.watch.close();
    };
    this.worker.on('error', die);
    this.worker.on('exit', (code) => die(new Error(`the journal's writer thread exited (code ${code})`)));
  }

  /** Writes `bytes` to `fd` after every earlier write. The caller leaves `bytes` unchanged until it settles (they are copied into the shared region piece by piece). */
  write(fd: number, bytes: Uint8Array): Promise<void> {
    if (this.dead !== null) return Promise.reject(this.dead);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ fd, bytes, sent: 0, resolve, reject });
      if (!this.inFlight) this.send();
    });
  }

  /**
   * Settles now the write whose piece the thread has finished, without an event-loop turn; true when the piece
   * in flight was answered. Cheap when none was.
   */
  poll(): boolean {
    if (!this.inFlight || Atomics.load(this.words, ANSWERED) !== this.id) return false;
    this.answered();
    return true;
  }

  /** Hands the next piece of the oldest write to the thread and wakes it. */
  private send(): void {
    const write = this.queue[0];
    if (write === undefined) {
      this.worker.unref();
      return;
    }
    const length = Math.min(REGION_BYTES, write.bytes.length - write.sent);
    this.region.set(write.bytes.subarray(write.sent, write.sent + length));
    write.sent += length;
    const id = ++this.id;
    Atomics.store(this.words, FD, write.fd);
    Atomics.store(this.words, LENGTH, length);
    Atomics.store(this.words, REQUEST, id);
    Atomics.notify(this.words, REQUEST);
    if (!this.inFlight) this.worker.ref();
    this.inFlight = true;
    this.watch.wait(this.words, ANSWERED, id - 1);
  }

  /** The piece in flight is done: settles its write when it failed or was the last piece, then sends on. */
  private answered(): void {
    this.inFlight = false;
    const write = this.queue[0];
    if (write === undefined) return;
    if (Atomics.load(this.words, FAILED) === this.id) {
      this.queue.shift();
      const text = Buffer.from(this.memory, WORDS * 4, Atomics.load(this.words, ERROR_LENGTH)).toString('utf8');
      write.reject(new Error(text));
    } else if (write.sent === write.bytes.length) {
      this.queue.shift();
      write.resolve();
    }
    this.send();
  }

  async close(): Promise<void> {
    // terminate()'s promise alone does not always hold the event loop open (seen on Node 20 with the worker
    // unreferenced before): a timer does, until the thread has exited. terminate() wakes the thread from its
    // Atomics.wait.
    const hold = setInterval(() => undefined, 60_000);
    this.watch.close();
    try {
      await this.worker.terminate();
    } finally {
      clearInterval(hold);
    }
  }
}
