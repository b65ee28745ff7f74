// Where order signatures are checked. Hashing and recovery are the costliest steps of placing an order
// (about 100 µs of the request thread's time, see bench:orders), so by default they run on worker threads:
// the checks asked for during one turn of the event loop go to a worker as one message (a POST /orders
// batch, and the requests that arrived together), and each answer resolves its request. With no workers
// they run inline. Both give identical verdicts (test/trading/signatureChecks.test.ts).
//
// A worker that fails is replaced; the checks it held are rejected (their requests answer 500 and nothing
// reaches the engine).

import { Worker } from 'node:worker_threads';
import { OrderHasher, type OrderDomainConfig, type SignedOrder } from '../../auth/index.js';
import { checkOne, type SignatureJob, type SignatureVerdict } from './signatureCheck.js';
import type { SignatureBatch, SignatureBatchResult } from './signatureWorker.js';

export type { SignatureVerdict } from './signatureCheck.js';

export interface SignatureChecker {
  check(order: SignedOrder, negRisk: boolean): Promise<SignatureVerdict>;
  close(): Promise<void>;
}

export class InlineSignatureChecker implements SignatureChecker {
  private readonly hasher: OrderHasher;

  constructor(domains: OrderDomainConfig) {
    this.hasher = new OrderHasher(domains);
  }

  check(order: SignedOrder, negRisk: boolean): Promise<SignatureVerdict> {
    return Promise.resolve(checkOne(this.hasher, { order, negRisk }));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

interface Waiting {
  readonly resolve: (verdicts: readonly SignatureVerdict[]) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  readonly batches: Map<number, Waiting>;
}

function workerUrl(): URL {
  // Compiled, the worker is signatureWorker.js beside this file; from source (tests), signatureWorker.ts.
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./signatureWorker${ext}`, import.meta.url);
}

export class WorkerSignatureChecker implements SignatureChecker {
  private readonly slots: Slot[] = [];
  private pending: { job: SignatureJob; resolve: (v: SignatureVerdict) => void; reject: (e: Error) => void }[] = [];
  private scheduled = false;
  private nextBatch = 1;
  private nextSlot = 0;
  private closed = false;

  constructor(
    private readonly domains: OrderDomainConfig,
    workers: number,
  ) {
    if (!Number.isInteger(workers) || workers < 1) throw new RangeError('WorkerSignatureChecker needs at least one worker');
    for (let i = 0; i < workers; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const { chainId, exchangeAddress, negRiskExchangeAddress } = this.domains;
    const domains: OrderDomainConfig = { chainId, exchangeAddress, negRiskExchangeAddress };
    const slot: Slot = { worker: new Worker(workerUrl(), { workerData: domains }), batches: new Map() };
    slot.worker.unref();
    slot.worker.on('message', (m: SignatureBatchResult) => {
      const waiting = slot.batches.get(m.batch);
      slot.batches.delete(m.batch);
      waiting?.resolve(m.verdicts);
    });
    const fail = (error: Error): void => {
      for (const waiting of slot.batches.values()) waiting.reject(error);
      slot.batches.clear();
      if (!this.closed) {
        const index = this.slots.indexOf(slot);
        if (index >= 0) this.slots[index] = this.spawn();
      }
    };
    slot.worker.on('error', fail);
    slot.worker.on('exit', (code) => {
      if (!this.closed) fail(new Error(`a signature worker exited with code ${code}`));
    });
    return slot;
  }

  check(order: SignedOrder, negRisk: boolean): Promise<SignatureVerdict> {
    if (this.closed) return Promise.reject(new Error('the signature checker is closed'));
    return new Promise((resolve, reject) => {
      this.pending.push({ job: { order, negRisk }, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const items = this.pending;
    this.pending = [];
    if (items.length === 0) return;
    const slot = this.slots[this.nextSlot % this.slots.length] as Slot;
    this.nextSlot += 1;
    const batch = this.nextBatch++;
    slot.batches.set(batch, {
      resolve: (verdicts) => items.forEach((item, i) => {
        const verdict = verdicts[i];
        if (verdict === undefined) item.reject(new Error('a signature worker answered too few verdicts'));
        else item.resolve(verdict);
      }),
      reject: (error) => items.forEach((item) => item.reject(error)),
    });
    slot.worker.postMessage({ batch, jobs: items.map((i) => i.job) } satisfies SignatureBatch);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
    for (const slot of this.slots) for (const waiting of slot.batches.values()) waiting.reject(new Error('the signature checker is closed'));
  }
}
