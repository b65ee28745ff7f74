// Checks that a parsed order was signed by its signer, and binds the signer to the maker where that can be
// done off-chain. The order id is the EIP-712 digest, so it is what the signature signs.
//
// - Type 0 (EOA): the signer must be the maker. Otherwise anyone could sign an order that spends another
//   address's balance, since the engine funds an order from its maker.
// - Types 1 and 2 (POLY_PROXY, POLY_GNOSIS_SAFE): the signer's signature is checked; that the maker is the
//   signer's proxy or safe is a policy of the caller (on chain it is a CREATE2 derivation from the signer),
//   reported as `makerBound: false`.
// - Type 3 (POLY_1271): needs an ERC-1271 call to the maker contract; refused here, since there is no chain.

import { failed, passed, type AuthResult, type Failed } from './authResult.js';
import { INVALID_ORDER_PAYLOAD, parseOrderPayload, type SignedOrder } from './orderPayload.js';
import type { OrderHasher } from './orderTypedData.js';
import { recoverSignerFromHex } from './recoverSigner.js';

export interface VerifiedOrder {
  readonly order: SignedOrder;
  /** The EIP-712 digest: `0x` + 64 lower-case hex. */
  readonly orderId: string;
  /** True when the maker is known to be the signer's own account (type 0, where they are equal). */
  readonly makerBound: boolean;
}

/** The signer policy, checked before any signature work: type 3 is refused, type 0 needs maker = signer. */
export function signerPolicyProblem(order: SignedOrder): Failed | undefined {
  if (order.signatureType === 3) return failed(INVALID_ORDER_PAYLOAD, 'signature type 3 (POLY_1271, ERC-1271 contract wallets) is not supported');
  if (order.signatureType === 0 && order.maker !== order.signer) return failed(INVALID_ORDER_PAYLOAD, 'an EOA order (signatureType 0) must have maker = signer');
  return undefined;
}

/** Judges a recovery against the order's signer (`0x` + 40 hex, lower case): undefined when they match. */
export function recoveredSignerProblem(recovered: AuthResult<string>, signerLower: string): Failed | undefined {
  if (!recovered.ok) return failed(INVALID_ORDER_PAYLOAD, `invalid order signature: ${recovered.detail}`);
  if (recovered.value !== signerLower) return failed(INVALID_ORDER_PAYLOAD, "invalid order signature: it was not made by the order's signer (check the chain id, the exchange address and neg-risk)");
  return undefined;
}

/** Verifies the signature of `order`, whose id is `orderId` (from OrderHasher.hash in the market's domain). */
export function verifyOrderSignature(order: SignedOrder, orderId: string): AuthResult<VerifiedOrder> {
  const policy = signerPolicyProblem(order);
  if (policy !== undefined) return policy;
  const problem = recoveredSignerProblem(recoverSignerFromHex(orderId, order.signature), order.signer.toLowerCase());
  if (problem !== undefined) return problem;
  return passed({ order, orderId, makerBound: order.signatureType === 0 });
}

/**
 * Parse, hash and verify in one step. `negRiskOf` answers for the order's token (canonical decimal tokenId)
 * whether its market is neg-risk; for an unknown token answer false and let the engine refuse the market.
 * Never throws.
 */
export function checkSignedOrder(payload: unknown, hasher: OrderHasher, negRiskOf: (tokenId: string) => boolean): AuthResult<VerifiedOrder> {
  const parsed = parseOrderPayload(payload);
  if (!parsed.ok) return parsed;
  let orderId: string;
  try {
    orderId = hasher.hash(parsed.value, negRiskOf(parsed.value.tokenId.toString()));
  } catch (error) {
    return failed(INVALID_ORDER_PAYLOAD, `the order cannot be EIP-712 encoded: ${error instanceof Error ? error.message.slice(0, 120) : 'unknown error'}`);
  }
  return verifyOrderSignature(parsed.value, orderId);
}
