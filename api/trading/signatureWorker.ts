// Worker side of the signature checks (signatureChecks.ts): it sleeps in Atomics.wait until the request thread
// posts a batch of packed jobs (signatureCheck.ts) into the shared memory (signatureMemory.ts), then answers
// each batch in order in the same memory: the order ids (32 bytes each), the indexes whose request HMAC
// (macJob.ts) does not match, and the failures by index.

import { workerData } from 'node:worker_threads';
import { OrderHasher, type OrderDomainConfig } from '../../auth/index.js';
import { nameThisThread } from '../../threads/threadName.js';
import { JOB_BYTES, finishCheck } from './signatureCheck.js';
import { refusedMacs } from './macJob.js';
import { ANSWERED, COUNT, JOBS_BYTES, MACS_BYTES, POSTED, PROBLEMS_BYTES, REFUSED_COUNT, SignatureMemory, lastToAnswer } from './signatureMemory.js';

export interface SignatureWorkerData {
  readonly domains: OrderDomainConfig;
  readonly memory: SharedArrayBuffer;
}

const data = workerData as SignatureWorkerData;
nameThisThread('pmx-signatures');
const hasher = new OrderHasher(data.domains);
const memory = new SignatureMemory(data.memory);
const words = memory.words;

/** Answers batch `batch`, whose jobs and MAC records are in its slot. */
function answer(batch: number): void {
  const count = Atomics.load(words, memory.header(batch, COUNT));
  const jobsBytes = Atomics.load(words, memory.header(batch, JOBS_BYTES));
  const macsBytes = Atomics.load(words, memory.header(batch, MACS_BYTES));
  const input = memory.input(batch);
  const jobs = input.subarray(0, jobsBytes);
  const out = memory.output(batch);
  const problems: [number, string][] = [];
  for (let i = 0; i < count; i++) {
    const { id, problem } = finishCheck(hasher, jobs, i * JOB_BYTES);
    id.copy(out, i * 32);
    if (problem !== undefined) problems.push([i, problem]);
  }
  const refused = macsBytes === 0 ? [] : refusedMacs(input.subarray(jobsBytes, jobsBytes + macsBytes));
  let at = count * 32;
  for (const index of refused) at = out.writeUInt32LE(index, at);
  const problemsBytes = problems.length === 0 ? 0 : out.write(JSON.stringify(problems), at, 'utf8');
  Atomics.store(words, memory.header(batch, REFUSED_COUNT), refused.length);
  Atomics.store(words, memory.header(batch, PROBLEMS_BYTES), problemsBytes);
}

let done = 0;
for (;;) {
  Atomics.wait(words, POSTED, done);
  const posted = Atomics.load(words, POSTED);
  const last = lastToAnswer(posted);
  while (done < last) {
    done += 1;
    answer(done);
    Atomics.store(words, ANSWERED, done);
    Atomics.notify(words, ANSWERED);
  }
  // Asked to end (signatureChecks.ts close()): every batch posted is answered; the thread exits by itself.
  if (posted < 0) break;
}
