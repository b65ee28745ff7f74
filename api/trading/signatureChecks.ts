// Where order signatures are checked. Hashing and recovery are the costliest steps of placing an order
// (about 100 µs of the request thread's time, see bench:orders), so by default they run on worker threads:
// the checks asked for while a worker is busy go to it as one batch once it can take more (a POST /orders
// batch, and the requests that arrived together), packed (signatureCheck.ts) straight into the memory this
// thread shares with the worker (signatureMemory.ts), and the worker is woken by Atomics.notify, never by a
// message: a postMessage to a sleeping worker costs this thread several times as much. Its answer, in the
// same memory, is noticed by an AnswerWatch (threads/answerWatch.ts: an Atomics.waitAsync, and a fallback
// read) and resolves each request. A worker holds at most SLOTS batches: one it works on and one queued
// behind it, so it never waits for this thread, and under load the batches grow instead of the wake-ups
// multiplying. With no workers the checks run inline on the same
// packed form. Both give the verdicts of the reference checkOne (test/trading/signatureChecks.test.ts).
//
// A check may carry its request's L2 HMAC (macJob.ts): the worker compares it beside the signature, and the
// verdict says macRefused when it does not match; inline, for the orders judged before recovery, and for a
// record larger than a batch's memory, it is compared here.
//
// A worker that fails is replaced; the checks it held are rejected (their requests answer 500 and nothing
// reaches the engine).
//
// close() asks each worker to end (signatureMemory.ts stopAfter) and waits for it to exit by itself, once it
// has answered the batches it holds: a worker is never terminate()d while it may still be loading its native
// modules (secp256k1, keccak). Terminated there, node-addon-api's error path in the module's initialisation
// throws where nothing catches, which aborts the whole process, and the embedded ClickHouse's fatal-signal
// handler then holds the process for 300 s before it dies.

import type { Worker } from 'node:worker_threads';
import { moduleWorker } from '../../threads/moduleWorker.js';
import { AnswerWatch } from '../../threads/answerWatch.js';
import { macMatches, OrderHasher, type L2Mac, type OrderDomainConfig, type SignedOrder } from '../../auth/index.js';
import { JOB_BYTES, finishCheck, prepareCheck, verdictOf, type SignatureJob, type SignatureVerdict } from './signatureCheck.js';
import { macRecordBytes, writeMacRecord } from './macJob.js';
import type { SignatureWorkerData } from './signatureWorker.js';
import { ANSWERED, COUNT, JOBS_BYTES, MACS_BYTES, MAX_JOBS, POSTED, PROBLEMS_BYTES, REFUSED_COUNT, SLOTS, SLOT_BYTES, SignatureMemory, stopAfter } from './signatureMemory.js';

export type { SignatureVerdict } from './signatureCheck.js';

/** A signature verdict, and whether the request's HMAC asked for with it failed. */
export interface CheckVerdict extends SignatureVerdict {
  /** Set when the HMAC given with the check does not match its request; absent otherwise (or none given). */
  readonly macRefused?: true;
}

/** `verdict`, marked when `mac` was given and does not match (judged on this thread). */
function withMac(verdict: SignatureVerdict, mac: L2Mac | undefined): CheckVerdict {
  return mac === undefined || macMatches(mac) ? verdict : { ...verdict, macRefused: true };
}

export interface SignatureChecker {
  /** The order's verdict; with `mac`, also whether the request's HMAC matches (CheckVerdict.macRefused). */
  check(order: SignedOrder, negRisk: boolean, mac?: L2Mac): Promise<CheckVerdict>;
  close(): Promise<void>;
}

export class InlineSignatureChecker implements SignatureChecker {
  private readonly hasher: OrderHasher;

  constructor(domains: OrderDomainConfig) {
    this.hasher = new OrderHasher(domains);
  }

  check(order: SignedOrder, negRisk: boolean, mac?: L2Mac): Promise<CheckVerdict> {
    const packed = Buffer.alloc(JOB_BYTES);
    const early = prepareCheck(this.hasher, { order, negRisk }, packed, 0);
    if (early !== undefined) return Promise.resolve(withMac(early, mac));
    const { id, problem } = finishCheck(this.hasher, packed, 0);
    return Promise.resolve(withMac(verdictOf(id, 0, problem), mac));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

interface Waiting {
  readonly resolve: (result: BatchAnswer) => void;
  readonly reject: (error: Error) => void;
}

/** A batch's answer, read from its slot of the shared memory. */
interface BatchAnswer {
  /** The order ids, 32 bytes each, in job order (a copy: the slot is reused). */
  readonly ids: Buffer;
  /** Why a job failed, by job index, for those that failed. */
  readonly problems: ReadonlyMap<number, string>;
  /** The job indexes whose HMAC does not match. */
  readonly refused: ReadonlySet<number>;
}

interface Slot {
  readonly worker: Worker;
  readonly memory: SignatureMemory;
  /** Batches posted and not answered, by number (at most SLOTS). */
  readonly batches: Map<number, Waiting>;
  /** The last batch posted to this worker, and the last whose answer was read. */
  posted: number;
  answered: number;
  /** Reads the worker's answers when it gives them (threads/answerWatch.ts). */
  readonly watch: AnswerWatch;
  /** Settles when the worker's thread has exited. */
  readonly exited: Promise<void>;
}

/**
 * How long close() waits for a worker to end by itself before terminating it: far longer than loading its
 * modules or answering its batches takes, so reached only by a worker that is stuck.
 */
const STOP_GRACE_MS = 30_000;

export class WorkerSignatureChecker implements SignatureChecker {
  private readonly slots: Slot[] = [];
  /** For the orders judged before recovery, on this thread. */
  private readonly hasher: OrderHasher;
  private pending: { job: SignatureJob; mac: L2Mac | undefined; resolve: (v: CheckVerdict) => void; reject: (e: Error) => void }[] = [];
  private scheduled = false;
  private sent = 0;
  private nextSlot = 0;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly domains: OrderDomainConfig,
    workers: number,
  ) {
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError('WorkerSignatureChecker needs at least one worker');
    this.hasher = new OrderHasher(domains);
    for (let i = 0; i < workers; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const { chainId, exchangeAddress, negRiskExchangeAddress } = this.domains;
    const memory = new SignatureMemory();
    const workerData: SignatureWorkerData = { domains: { chainId, exchangeAddress, negRiskExchangeAddress }, memory: memory.buffer };
    const worker = moduleWorker(import.meta.url, 'signatureWorker', { workerData });
    const slot: Slot = {
      worker,
      memory,
      batches: new Map(),
      posted: 0,
      answered: 0,
      watch: new AnswerWatch(
        'signatures',
        () => this.slots.includes(slot) && this.collect(slot),
        () => slot.answered !== slot.posted,
      ),
      exited: new Promise<void>((resolve) => worker.once('exit', () => resolve())),
    };
    slot.worker.unref();
    const fail = (error: Error): void => {
      slot.watch.close();
      for (const waiting of slot.batches.values()) waiting.reject(error);
      slot.batches.clear();
      if (!this.closed) {
        const index = this.slots.indexOf(slot);
        if (index >= 0) this.slots[index] = this.spawn();
        // Checks waiting for a free worker go to the new one.
        if (this.pending.length > 0) this.schedule();
      }
    };
    slot.worker.on('error', fail);
    slot.worker.on('exit', (code) => {
      if (!this.closed) fail(new Error(`a signature worker exited with code ${code}`));
    });
    return slot;
  }

  check(order: SignedOrder, negRisk: boolean, mac?: L2Mac): Promise<CheckVerdict> {
    if (this.closed) return Promise.reject(new Error('the signature checker is closed'));
    return new Promise((resolve, reject) => {
      this.pending.push({ job: { order, negRisk }, mac, resolve, reject });
      this.schedule();
    });
  }

  /** Flushes the waiting checks on the next turn of the event loop, once however many ask. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Batches sent to workers so far. */
  get batchesSent(): number {
    return this.sent;
  }

  /** The worker with the fewest batches, if it can take one more. */
  private freeSlot(): Slot | undefined {
    let best: Slot | undefined;
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[(this.nextSlot + i) % this.slots.length] as Slot;
      if (slot.batches.size < SLOTS && (best === undefined || slot.batches.size < best.batches.size)) best = slot;
    }
    this.nextSlot += 1;
    return best;
  }

  /** Reads the answers the worker has written since the last read, then arms the wait for the next; true when there were any. */
  private collect(slot: Slot): boolean {
    const any = this.settleAnswered(slot);
    this.arm(slot);
    // Checks that waited for a free worker go now, as one batch.
    if (!this.scheduled) this.flush();
    return any;
  }

  /** Resolves the batches the worker has answered since the last read; true when there were any. */
  private settleAnswered(slot: Slot): boolean {
    const answered = Atomics.load(slot.memory.words, ANSWERED);
    const any = slot.answered < answered;
    while (slot.answered < answered) {
      const batch = ++slot.answered;
      const waiting = slot.batches.get(batch);
      slot.batches.delete(batch);
      waiting?.resolve(this.answerOf(slot.memory, batch));
    }
    return any;
  }

  private answerOf(memory: SignatureMemory, batch: number): BatchAnswer {
    const count = Atomics.load(memory.words, memory.header(batch, COUNT));
    const refusedCount = Atomics.load(memory.words, memory.header(batch, REFUSED_COUNT));
    const problemsBytes = Atomics.load(memory.words, memory.header(batch, PROBLEMS_BYTES));
    const out = memory.output(batch);
    const ids = Buffer.from(out.subarray(0, count * 32));
    const refused = new Set<number>();
    let at = count * 32;
    for (let i = 0; i < refusedCount; i++, at += 4) refused.add(out.readUInt32LE(at));
    const problems = new Map<number, string>(problemsBytes === 0 ? [] : (JSON.parse(out.toString('utf8', at, at + problemsBytes)) as [number, string][]));
    return { ids, problems, refused };
  }

  /** Waits (without blocking) for the worker's next answer while batches are out; holds the process open meanwhile. */
  private arm(slot: Slot): void {
    if (slot.answered === slot.posted) {
      slot.worker.unref();
      return;
    }
    slot.worker.ref();
    slot.watch.wait(slot.memory.words, ANSWERED, slot.answered);
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0 || this.closed) return;
    const slot = this.freeSlot();
    // Every worker is full: a finishing batch flushes what waits (see collect()).
    if (slot === undefined) return;
    const batch = slot.posted + 1;
    const input = slot.memory.input(batch);
    // What fits the slot goes: the jobs, then their MAC records; the rest waits for the next batch. A MAC
    // record that could never fit is judged here.
    let taken = 0;
    let macBytes = 0;
    for (; taken < this.pending.length && taken < MAX_JOBS; taken++) {
      const item = this.pending[taken] as (typeof this.pending)[number];
      let bytes = item.mac === undefined ? 0 : macRecordBytes(item.mac);
      if (bytes > SLOT_BYTES - JOB_BYTES) bytes = 0;
      if ((taken + 1) * JOB_BYTES + macBytes + bytes > SLOT_BYTES) break;
      macBytes += bytes;
    }
    const items = this.pending.slice(0, taken);
    this.pending = this.pending.slice(taken);
    if (this.pending.length > 0) this.schedule();
    // prepareCheck packs into zeros.
    input.fill(0, 0, items.length * JOB_BYTES);
    const packed: typeof items = [];
    const macs: [number, L2Mac][] = [];
    for (const item of items) {
      const early = prepareCheck(this.hasher, item.job, input, packed.length * JOB_BYTES);
      if (early !== undefined) {
        item.resolve(withMac(early, item.mac));
        continue;
      }
      if (item.mac !== undefined && macRecordBytes(item.mac) > SLOT_BYTES - JOB_BYTES) {
        packed.push({ ...item, mac: undefined, resolve: (verdict) => item.resolve(withMac(verdict, item.mac)) });
        continue;
      }
      if (item.mac !== undefined) macs.push([packed.length, item.mac]);
      packed.push(item);
    }
    if (packed.length === 0) return;
    const jobsBytes = packed.length * JOB_BYTES;
    let end = jobsBytes;
    for (const [index, mac] of macs) end = writeMacRecord(input, end, index, mac);
    slot.batches.set(batch, {
      resolve: (answer) => {
        packed.forEach((item, i) => {
          const verdict = verdictOf(answer.ids, i * 32, answer.problems.get(i));
          item.resolve(answer.refused.has(i) ? { ...verdict, macRefused: true } : verdict);
        });
      },
      reject: (error) => packed.forEach((item) => item.reject(error)),
    });
    const words = slot.memory.words;
    Atomics.store(words, slot.memory.header(batch, COUNT), packed.length);
    Atomics.store(words, slot.memory.header(batch, JOBS_BYTES), jobsBytes);
    Atomics.store(words, slot.memory.header(batch, MACS_BYTES), end - jobsBytes);
    slot.posted = batch;
    Atomics.store(words, POSTED, batch);
    Atomics.notify(words, POSTED);
    this.sent += 1;
    this.arm(slot);
  }

  /**
   * Takes no more checks and rejects those not yet sent; the batches the workers hold are answered. Each worker
   * is asked to end and exits by itself (see the head of this file); one still running after STOP_GRACE_MS is
   * terminated. Every call answers when all of that is done.
   */
  close(): Promise<void> {
    this.closing ??= this.shut();
    return this.closing;
  }

  private async shut(): Promise<void> {
    this.closed = true;
    const closed = new Error('the signature checker is closed');
    for (const item of this.pending.splice(0)) item.reject(closed);
    await Promise.all(this.slots.map((slot) => this.end(slot)));
    for (const slot of this.slots) {
      this.settleAnswered(slot);
      for (const waiting of slot.batches.values()) waiting.reject(closed);
      slot.batches.clear();
    }
  }

  private async end(slot: Slot): Promise<void> {
    slot.watch.close();
    // Held open until the worker has exited, which close()'s caller awaits.
    slot.worker.ref();
    Atomics.store(slot.memory.words, POSTED, stopAfter(slot.posted));
    Atomics.notify(slot.memory.words, POSTED);
    const stuck = setTimeout(() => void slot.worker.terminate(), STOP_GRACE_MS);
    await slot.exited;
    clearTimeout(stuck);
  }
}
