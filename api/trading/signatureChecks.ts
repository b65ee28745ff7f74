// Where order signatures are checked. Hashing and recovery are the costliest steps of placing an order
// (about 100 µs of the request thread's time, see bench:orders), so by default they run on worker threads:
// the checks asked for while a worker is busy go to it as one message once it can take more (a POST /orders
// batch, and the requests that arrived together): one buffer of packed jobs (signatureCheck.ts), moved
// without copying, and each answer resolves its request. A worker holds at most MAX_IN_FLIGHT batches: one
// it works on and one queued behind it, so it never waits for this thread, and under load the batches grow
// instead of the messages multiplying (each message costs this thread ~10 µs however small). With no
// workers they run inline on the same packed form. Both give the verdicts of the reference checkOne (test/trading/signatureChecks.test.ts).
//
// A check may carry its request's L2 HMAC (macJob.ts): the worker compares it beside the signature, and the
// verdict says macRefused when it does not match; inline, and for the orders judged before recovery, it is
// compared here.
//
// A worker that fails is replaced; the checks it held are rejected (their requests answer 500 and nothing
// reaches the engine).

import type { Worker } from 'node:worker_threads';
import { moduleWorker } from '../../threads/moduleWorker.js';
import { macMatches, OrderHasher, type L2Mac, type OrderDomainConfig, type SignedOrder } from '../../auth/index.js';
import { JOB_BYTES, finishCheck, prepareCheck, verdictOf, type SignatureJob, type SignatureVerdict } from './signatureCheck.js';
import { packMacs } from './macJob.js';
import type { SignatureBatch, SignatureBatchResult } from './signatureWorker.js';

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
  readonly resolve: (result: SignatureBatchResult) => void;
  readonly reject: (error: Error) => void;
}

/** Batches a worker holds at once (see the head of this file). */
const MAX_IN_FLIGHT = 2;

interface Slot {
  worker: Worker;
  readonly batches: Map<number, Waiting>;
}

export class WorkerSignatureChecker implements SignatureChecker {
  private readonly slots: Slot[] = [];
  /** For the orders judged before recovery, on this thread. */
  private readonly hasher: OrderHasher;
  private pending: { job: SignatureJob; mac: L2Mac | undefined; resolve: (v: CheckVerdict) => void; reject: (e: Error) => void }[] = [];
  private scheduled = false;
  private nextBatch = 1;
  private sent = 0;
  private nextSlot = 0;
  private closed = false;

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
    const domains: OrderDomainConfig = { chainId, exchangeAddress, negRiskExchangeAddress };
    const slot: Slot = { worker: moduleWorker(import.meta.url, 'signatureWorker', { workerData: domains }), batches: new Map() };
    slot.worker.unref();
    slot.worker.on('message', (m: SignatureBatchResult) => {
      const waiting = slot.batches.get(m.batch);
      slot.batches.delete(m.batch);
      waiting?.resolve(m);
      // Checks that waited for a free worker go now, as one batch.
      if (!this.scheduled) this.flush();
    });
    const fail = (error: Error): void => {
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

  /** Batches sent to workers so far (each one message). */
  get batchesSent(): number {
    return this.sent;
  }

  /** The worker with the fewest batches, if it can take one more. */
  private freeSlot(): Slot | undefined {
    let best: Slot | undefined;
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[(this.nextSlot + i) % this.slots.length] as Slot;
      if (slot.batches.size < MAX_IN_FLIGHT && (best === undefined || slot.batches.size < best.batches.size)) best = slot;
    }
    this.nextSlot += 1;
    return best;
  }

  private flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const slot = this.freeSlot();
    // Every worker is full: a finishing batch flushes what waits (see spawn()).
    if (slot === undefined) return;
    const items = this.pending;
    this.pending = [];
    // Buffer.alloc: zeroed (prepareCheck needs it) and never a slice of the shared pool, so its
    // ArrayBuffer can be moved to the worker.
    const jobs = Buffer.alloc(items.length * JOB_BYTES);
    const packed: typeof items = [];
    const macs: [number, L2Mac][] = [];
    for (const item of items) {
      const early = prepareCheck(this.hasher, item.job, jobs, packed.length * JOB_BYTES);
      if (early !== undefined) {
        item.resolve(withMac(early, item.mac));
        continue;
      }
      if (item.mac !== undefined) macs.push([packed.length, item.mac]);
      packed.push(item);
    }
    if (packed.length === 0) return;
    const macRecords = macs.length === 0 ? undefined : packMacs(macs);
    const batch = this.nextBatch++;
    slot.batches.set(batch, {
      resolve: (result) => {
        const ids = Buffer.from(result.ids);
        if (ids.length !== packed.length * 32) {
          for (const item of packed) item.reject(new Error('a signature worker answered the wrong number of ids'));
          return;
        }
        const problems = new Map(result.problems);
        const refused = new Set(result.macsRefused);
        packed.forEach((item, i) => {
          const verdict = verdictOf(ids, i * 32, problems.get(i));
          item.resolve(refused.has(i) ? { ...verdict, macRefused: true } : verdict);
        });
      },
      reject: (error) => packed.forEach((item) => item.reject(error)),
    });
    const message: SignatureBatch = { batch, count: packed.length, jobs: jobs.buffer, macs: macRecords?.buffer };
    slot.worker.postMessage(message, macRecords === undefined ? [jobs.buffer] : [jobs.buffer, macRecords.buffer]);
    this.sent += 1;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
    for (const slot of this.slots) for (const waiting of slot.batches.values()) waiting.reject(new Error('the signature checker is closed'));
  }
}
