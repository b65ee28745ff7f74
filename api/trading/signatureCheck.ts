// One signature check: the order's id (its EIP-712 hash in the domain of its market) and whether its
// signature recovers to its signer. It never throws.
//
// Two forms with identical verdicts (test/trading/signatureChecks.test.ts):
// - checkOne: the reference, straight from auth (hash, then verifyOrderSignature).
// - prepareCheck + finishCheck: the request thread encodes the order into a packed job of JOB_BYTES
//   (the 384-byte EIP-712 struct, the 65-byte signature, a neg-risk byte), and the worker (or the request
//   thread itself, inline) hashes and recovers from those bytes alone. A batch of jobs is one buffer moved
//   to the worker without copying: structured-cloning order objects cost the request thread ~20 µs each.
//   An order refused before any recovery (unhashable, signer policy, signature not 65 bytes of hex) is
//   judged by checkOne on the spot: that is rare, and keeps the messages in one place.

import {
  ORDER_STRUCT_BYTES,
  encodeOrderStruct,
  hexToBytes,
  recoverSigner,
  recoveredSignerProblem,
  signerPolicyProblem,
  verifyOrderSignature,
  type OrderHasher,
  type SignedOrder,
} from '../../auth/index.js';

export interface SignatureJob {
  readonly order: SignedOrder;
  readonly negRisk: boolean;
}

export interface SignatureVerdict {
  /** The order id; '' when the order cannot be hashed. */
  readonly orderId: string;
  readonly ok: boolean;
  /** Why it failed; '' when it passed. */
  readonly detail: string;
}

const SIGNATURE_AT = ORDER_STRUCT_BYTES;
const NEG_RISK_AT = ORDER_STRUCT_BYTES + 65;
/** Bytes of one packed job. */
export const JOB_BYTES = ORDER_STRUCT_BYTES + 65 + 1;
/** Where the signer's 20 bytes sit in the struct: word 3, right-aligned. */
const SIGNER_AT = 3 * 32 + 12;

export function checkOne(hasher: OrderHasher, job: SignatureJob): SignatureVerdict {
  let orderId: string;
  try {
    orderId = hasher.hash(job.order, job.negRisk);
  } catch (error) {
    return { orderId: '', ok: false, detail: `the order cannot be EIP-712 encoded: ${error instanceof Error ? error.message.slice(0, 120) : 'unknown error'}` };
  }
  const verified = verifyOrderSignature(job.order, orderId);
  return verified.ok ? { orderId, ok: true, detail: '' } : { orderId, ok: false, detail: verified.detail };
}

/**
 * Packs `job` at `offset` of `out` (JOB_BYTES of zeros there) and answers undefined; or answers the verdict
 * when it is known without recovery, leaving those bytes zero.
 */
export function prepareCheck(hasher: OrderHasher, job: SignatureJob, out: Buffer, offset: number): SignatureVerdict | undefined {
  const signature = hexToBytes(job.order.signature, 65);
  if (signature === undefined || signerPolicyProblem(job.order) !== undefined) return checkOne(hasher, job);
  try {
    encodeOrderStruct(job.order, out.subarray(offset, offset + ORDER_STRUCT_BYTES));
  } catch {
    out.fill(0, offset, offset + JOB_BYTES);
    return checkOne(hasher, job);
  }
  out.set(signature, offset + SIGNATURE_AT);
  out[offset + NEG_RISK_AT] = job.negRisk ? 1 : 0;
  return undefined;
}

export interface FinishedCheck {
  /** The order id, 32 bytes. */
  readonly id: Buffer;
  /** Why it failed; undefined when it passed. */
  readonly problem: string | undefined;
}

/** Hashes and recovers the job packed at `offset` of `jobs`. */
export function finishCheck(hasher: OrderHasher, jobs: Buffer, offset: number): FinishedCheck {
  const id = hasher.digestOfStruct(jobs.subarray(offset, offset + ORDER_STRUCT_BYTES), jobs[offset + NEG_RISK_AT] === 1);
  const recovered = recoverSigner(id, jobs.subarray(offset + SIGNATURE_AT, offset + SIGNATURE_AT + 65));
  const signer = '0x' + jobs.toString('hex', offset + SIGNER_AT, offset + SIGNER_AT + 20);
  return { id, problem: recoveredSignerProblem(recovered, signer)?.detail };
}

/** The verdict of a finished check. */
export function verdictOf(id: Buffer, idOffset: number, problem: string | undefined): SignatureVerdict {
  const orderId = '0x' + id.toString('hex', idOffset, idOffset + 32);
  return problem === undefined ? { orderId, ok: true, detail: '' } : { orderId, ok: false, detail: problem };
}
