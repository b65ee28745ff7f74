// One signature check: the order's id (its EIP-712 hash in the domain of its market) and whether its
// signature recovers to its signer. The same function runs on the request thread or on a worker thread
// (signatureChecks.ts); it never throws.

import { verifyOrderSignature, type OrderHasher, type SignedOrder } from '../../auth/index.js';

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
