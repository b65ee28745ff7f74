// Recovers the address that produced a 65-byte secp256k1 signature (r ‖ s ‖ v) over a 32-byte digest, with
// native libsecp256k1: the service's own build of it where one was built (nativeRecovery.ts), the `secp256k1`
// package's binding otherwise. Either is an order of magnitude faster than the pure-JS curve inside ethers,
// and this runs once per order and once per L1 request.
//
// Contract:
// - v may be 27/28 (what wallets and ethers produce) or 0/1 (raw recovery id, some hardware wallets).
//   Anything else, including EIP-155 style v ≥ 35, is refused: typed data signatures never carry a chain id.
// - r must be in [1, n-1] and s in [1, n/2]. High-s signatures are refused: the exchange contract checks
//   signatures with OpenZeppelin's ECDSA, which refuses them, so such an order could never settle, and
//   refusing them makes each (digest, signer) have a single valid signature. Every common signer (ethers,
//   viem, wallets) produces low-s. (ethers' recoverAddress refuses s >= 2^255 only, which is almost, but
//   not exactly, the upper half: on s in (n/2, 2^255) the two deliberately disagree.)
// - The address is the last 20 bytes of keccak256 of the uncompressed public key without its 0x04 prefix,
//   returned in lower case (callers that show it checksum it; comparing needs no checksum).
// - Never throws: malformed input (wrong lengths, non-hex text, a point that does not exist) is a failure.

import secp256k1 from 'secp256k1';
import { keccak256 } from './keccak.js';
import { failed, passed, type AuthResult } from './authResult.js';
import { hexToBytes } from './hexBytes.js';
import { nativeRecovery } from './nativeRecovery.js';

export const INVALID_SIGNATURE = 'invalid signature';

// The group order n and n/2, big-endian.
const N = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');
const HALF_N = Buffer.from('7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0', 'hex');

/** Compares the 32 bytes of `a` at `offset` with `b`, as big-endian numbers. */
function compare32(a: Uint8Array, offset: number, b: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const x = a[offset + i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

function isZero32(a: Uint8Array, offset: number): boolean {
  for (let i = 0; i < 32; i++) if (a[offset + i] !== 0) return false;
  return true;
}

function refuse(detail: string): AuthResult<string> {
  return failed(INVALID_SIGNATURE, detail);
}

/** The lower-case address that signed `digest` (32 bytes) with `signature` (65 bytes: r, s, v). */
export function recoverSigner(digest: Uint8Array, signature: Uint8Array): AuthResult<string> {
  if (!(digest instanceof Uint8Array) || digest.length !== 32) return refuse('the digest must be 32 bytes');
  if (!(signature instanceof Uint8Array) || signature.length !== 65) return refuse('the signature must be 65 bytes (r, s, v)');
  const v = signature[64] ?? -1;
  const recoveryId = v === 27 || v === 28 ? v - 27 : v === 0 || v === 1 ? v : -1;
  if (recoveryId < 0) return refuse(`the signature's v must be 27, 28, 0 or 1, not ${v}`);
  if (isZero32(signature, 0) || compare32(signature, 0, N) >= 0) return refuse("the signature's r is out of range");
  if (isZero32(signature, 32)) return refuse("the signature's s is zero");
  if (compare32(signature, 32, HALF_N) > 0) return refuse("the signature's s is in the upper half of the curve order (not canonical)");
  if (nativeRecovery !== undefined) {
    const address = nativeRecovery.recoverAddress(digest, signature);
    return address === null ? refuse(NO_KEY) : passed('0x' + address.toString('hex'));
  }
  let publicKey: Uint8Array;
  try {
    publicKey = secp256k1.ecdsaRecover(signature.subarray(0, 64), recoveryId, digest, false);
  } catch {
    return refuse(NO_KEY);
  }
  return passed('0x' + keccak256(publicKey.subarray(1)).toString('hex', 12));
}

const NO_KEY = 'no public key recovers from this signature';

/** Which recovery recoverSigner uses: the service's libsecp256k1 build, or the `secp256k1` package's. */
export const RECOVERY_BACKEND: string = nativeRecovery?.backend() ?? 'libsecp256k1 (the secp256k1 package, 2019 build)';

/** recoverSigner over hex text (`0x` optional), as signatures and digests arrive in headers and bodies. */
export function recoverSignerFromHex(digestHex: string, signatureHex: unknown): AuthResult<string> {
  const digest = hexToBytes(digestHex, 32);
  if (digest === undefined) return refuse('the digest must be 32 bytes of hex');
  const signature = hexToBytes(signatureHex, 65);
  if (signature === undefined) return refuse('the signature must be 65 bytes of hex (0x + 130 hex digits)');
  return recoverSigner(digest, signature);
}
