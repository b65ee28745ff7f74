// Read-only API key authentication (upstream: "readonly keys are not trading credentials; make a direct HTTP
// request to the private read endpoints with POLY_READONLY_API_KEY and POLY_ADDRESS"). The key is a bearer
// key: no secret, no signature, no timestamp. It authenticates reads of the key's address only; the HTTP
// layer refuses it on every write (api/trading/authenticate.ts). Header names as for L2 (authHeaders.ts):
// the SVC_ prefix, any case, `-` for `_`.

import { failed, passed, type AuthResult } from './authResult.js';
import { readAuthHeaders, type HeaderBag } from './authHeaders.js';
import { INVALID_API_KEY } from './l2Hmac.js';

export interface ReadonlyIdentity {
  readonly key: string;
  /** The key's owner, lower-case. */
  readonly address: string;
}

const SUFFIXES = ['address', 'readonly_api_key'] as const;
const PRESENCE = ['api_key', 'readonly_api_key'] as const;

/** Which key the request names: an L2 key (POLY_API_KEY), a read-only key, or none. L2 wins when both are sent. */
export function presentedKeyKind(headers: HeaderBag): 'l2' | 'readonly' | 'none' {
  const read = readAuthHeaders(headers, PRESENCE, INVALID_API_KEY);
  // Headers that cannot be read are the L2 verifier's to refuse, with its precise reason.
  if (!read.ok || read.value.api_key !== undefined) return 'l2';
  return read.value.readonly_api_key !== undefined ? 'readonly' : 'none';
}

/**
 * Verifies POLY_READONLY_API_KEY and POLY_ADDRESS. `lookup` answers with the owner (lower-case) of a live
 * read-only key only. Failures are `Unauthorized/Invalid api key` (HTTP 401) with a precise detail.
 */
export function verifyReadonlyHeaders(headers: HeaderBag, lookup: (key: string) => string | undefined): AuthResult<ReadonlyIdentity> {
  const read = readAuthHeaders(headers, SUFFIXES, INVALID_API_KEY);
  if (!read.ok) return read;
  const { address, readonly_api_key: key } = read.value;
  if (key === undefined) return failed(INVALID_API_KEY, 'missing header POLY_READONLY_API_KEY');
  if (address === undefined) return failed(INVALID_API_KEY, 'missing header POLY_ADDRESS');
  const owner = lookup(key);
  if (owner === undefined) return failed(INVALID_API_KEY, 'unknown or deleted read-only API key');
  if (address.toLowerCase() !== owner) return failed(INVALID_API_KEY, 'POLY_ADDRESS is not the address of this read-only API key');
  return passed({ key, address: owner });
}
