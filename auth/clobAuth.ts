// L1 authentication (upstream-conventions §1.1): the wallet signs the EIP-712 ClobAuth struct
//   domain {name: "ClobAuthDomain", version: "1", chainId} (no verifying contract)
//   ClobAuth(address address,string timestamp,uint256 nonce,string message)
// with the fixed message below, and sends POLY_ADDRESS, POLY_SIGNATURE, POLY_TIMESTAMP (the signed string,
// unix seconds) and POLY_NONCE (decimal, "0" when absent); SVC_* names are accepted too (authHeaders.ts).
// The signature must recover to POLY_ADDRESS (any case). Used to create and derive API keys.
//
// Note: within the freshness window the same headers can be replayed; over TLS only the client has them.

import { TypedDataEncoder, getAddress, type TypedDataField } from 'ethers';
import { failed, passed, type AuthResult } from './authResult.js';
import { readAuthHeaders, type HeaderBag } from './authHeaders.js';
import { recoverSignerFromHex } from './recoverSigner.js';
import { timestampProblem } from './timestampWindow.js';

export const CLOB_AUTH_MESSAGE = 'This message attests that I control the given wallet';
export const INVALID_L1_HEADERS = 'Invalid L1 Request headers';

export const CLOB_AUTH_TYPES: Record<string, TypedDataField[]> = {
  ClobAuth: [
    { name: 'address', type: 'address' },
    { name: 'timestamp', type: 'string' },
    { name: 'nonce', type: 'uint256' },
    { name: 'message', type: 'string' },
  ],
};

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const NONCE = /^[0-9]{1,78}$/;
const UINT256_LIMIT = 2n ** 256n;

export interface L1Options {
  readonly chainId: number;
  /** Largest difference, either way, between POLY_TIMESTAMP and `nowSec`. */
  readonly freshnessSec: number;
  /** The server clock, unix seconds. */
  readonly nowSec: number;
}

export interface L1Identity {
  /** The proven address, checksummed. */
  readonly address: string;
  /** The nonce, canonical decimal (no leading zeros): with the address it names the API key slot. */
  readonly nonce: string;
  readonly timestamp: number;
}

/** The EIP-712 digest the wallet signs. `timestamp` is the header text exactly as sent (it is a signed string). */
export function clobAuthDigest(chainId: number, address: string, timestamp: string, nonce: bigint): string {
  return TypedDataEncoder.hash({ name: 'ClobAuthDomain', version: '1', chainId }, CLOB_AUTH_TYPES, {
    address: getAddress(address.toLowerCase()),
    timestamp,
    nonce,
    message: CLOB_AUTH_MESSAGE,
  });
}

const L1_SUFFIXES = ['address', 'signature', 'timestamp', 'nonce'] as const;

/** Verifies L1 headers. Never throws; every failure has `error` = `Invalid L1 Request headers`. */
export function verifyL1Headers(headers: HeaderBag, options: L1Options): AuthResult<L1Identity> {
  const read = readAuthHeaders(headers, L1_SUFFIXES, INVALID_L1_HEADERS);
  if (!read.ok) return read;
  const { address, signature, timestamp, nonce = '0' } = read.value;
  if (address === undefined) return failed(INVALID_L1_HEADERS, 'missing header POLY_ADDRESS');
  if (signature === undefined) return failed(INVALID_L1_HEADERS, 'missing header POLY_SIGNATURE');
  if (timestamp === undefined) return failed(INVALID_L1_HEADERS, 'missing header POLY_TIMESTAMP');
  if (!ADDRESS.test(address)) return failed(INVALID_L1_HEADERS, 'POLY_ADDRESS must be an address: 0x + 40 hex digits');
  if (!NONCE.test(nonce) || BigInt(nonce) >= UINT256_LIMIT) return failed(INVALID_L1_HEADERS, 'POLY_NONCE must be a decimal uint256');
  const stale = timestampProblem(timestamp, options.nowSec, options.freshnessSec);
  if (stale !== undefined) return failed(INVALID_L1_HEADERS, `POLY_TIMESTAMP: ${stale}`);
  const nonceValue = BigInt(nonce);
  const digest = clobAuthDigest(options.chainId, address, timestamp, nonceValue);
  const recovered = recoverSignerFromHex(digest, signature);
  if (!recovered.ok) return failed(INVALID_L1_HEADERS, `POLY_SIGNATURE: ${recovered.detail}`);
  if (recovered.value !== address.toLowerCase()) {
    return failed(INVALID_L1_HEADERS, 'POLY_SIGNATURE was not made by POLY_ADDRESS for this timestamp, nonce and chain id');
  }
  return passed({ address: getAddress(recovered.value), nonce: nonceValue.toString(), timestamp: Number(timestamp) });
}
