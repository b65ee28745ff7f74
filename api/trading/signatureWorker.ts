// Worker side of the signature checks (signatureChecks.ts): for each batch of packed jobs (signatureCheck.ts)
// sent by the request thread, the order ids (32 bytes each, in one buffer moved back without copying) and
// the failures by index, and the indexes whose request HMAC (macJob.ts) does not match.

import { parentPort, workerData } from 'node:worker_threads';
import { OrderHasher, type OrderDomainConfig } from '../../auth/index.js';
import { nameThisThread } from '../../threads/threadName.js';
import { JOB_BYTES, finishCheck } from './signatureCheck.js';
import { refusedMacs } from './macJob.js';

export interface SignatureBatch {
  readonly batch: number;
  readonly count: number;
  /** `count` packed jobs of JOB_BYTES, from offset 0. */
  readonly jobs: ArrayBuffer;
  /** The HMACs of some of the jobs (macJob.ts packMacs), when any. */
  readonly macs: ArrayBuffer | undefined;
}

export interface SignatureBatchResult {
  readonly batch: number;
  /** `count` order ids of 32 bytes. */
  readonly ids: ArrayBuffer;
  /** [job index, why it failed] for the jobs that failed. */
  readonly problems: readonly (readonly [number, string])[];
  /** The indexes of the jobs whose HMAC does not match. */
  readonly macsRefused: readonly number[];
}

const port = parentPort;
if (port === null) throw new Error('signatureWorker runs as a worker thread');
nameThisThread('pmx-signatures');
const hasher = new OrderHasher(workerData as OrderDomainConfig);
port.on('message', (message: SignatureBatch) => {
  const jobs = Buffer.from(message.jobs);
  const ids = Buffer.alloc(message.count * 32);
  const problems: [number, string][] = [];
  for (let i = 0; i < message.count; i++) {
    const { id, problem } = finishCheck(hasher, jobs, i * JOB_BYTES);
    id.copy(ids, i * 32);
    if (problem !== undefined) problems.push([i, problem]);
  }
  const macsRefused = message.macs === undefined ? [] : refusedMacs(Buffer.from(message.macs));
  const result: SignatureBatchResult = { batch: message.batch, ids: ids.buffer, problems, macsRefused };
  port.postMessage(result, [ids.buffer]);
});
