// Worker side of the signature checks (signatureChecks.ts): hashes each order (its id) in the domain of its
// market and checks that its signature recovers to its signer, for batches sent by the request thread.

import { parentPort, workerData } from 'node:worker_threads';
import { OrderHasher, type OrderDomainConfig } from '../../auth/index.js';
import { checkOne, type SignatureJob, type SignatureVerdict } from './signatureCheck.js';

export interface SignatureBatch {
  readonly batch: number;
  readonly jobs: readonly SignatureJob[];
}

export interface SignatureBatchResult {
  readonly batch: number;
  readonly verdicts: readonly SignatureVerdict[];
}

const port = parentPort;
if (port === null) throw new Error('signatureWorker runs as a worker thread');
const hasher = new OrderHasher(workerData as OrderDomainConfig);
port.on('message', (message: SignatureBatch) => {
  port.postMessage({ batch: message.batch, verdicts: message.jobs.map((job) => checkOne(hasher, job)) } satisfies SignatureBatchResult);
});
