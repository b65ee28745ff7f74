// Builder authentication: the headers `@polymarket/builder-signing-sdk` makes for a builder API key,
//   POLY_BUILDER_API_KEY, POLY_BUILDER_PASSPHRASE, POLY_BUILDER_TIMESTAMP (unix seconds), POLY_BUILDER_SIGNATURE
// (or the SVC_BUILDER_* names, `-` for `_`), where the signature is the L2 HMAC (l2Hmac.ts: timestamp +
// METHOD + path + body, url-safe base64) keyed by the builder key's secret. They ride along with a request's
// own authentication (L2 headers) and say which builder the request comes through; they authenticate no
// account by themselves.
//
// A request carries none of them (no builder: the answer is `undefined`) or all four; some but not all,
// or four that do not verify, is a failure (`Unauthorized/Invalid builder api key`, HTTP 401).

import { failed, passed, type AuthResult } from './authResult.js';
import { readAuthHeaders, type HeaderBag } from './authHeaders.js';
import { timestampProblem } from './timestampWindow.js';
import { decodeL2Signature, samePassphrase, signatureMatches, type L2Credentials, type L2Options, type L2Request } from './l2Hmac.js';

export const INVALID_BUILDER_KEY = 'Unauthorized/Invalid builder api key';

export interface BuilderIdentity {
  readonly key: string;
  /** The builder key's owner, lower-case. */
  readonly address: string;
}

const BUILDER_SUFFIXES = ['builder_api_key', 'builder_passphrase', 'builder_timestamp', 'builder_signature'] as const;

/**
 * Verifies the builder headers of a request, if it has any. `lookup` answers for live builder keys only.
 * Passed with `undefined` when the request carries no builder header at all.
 */
export function verifyBuilderHeaders(headers: HeaderBag, request: L2Request, lookup: (key: string) => L2Credentials | undefined, options: L2Options): AuthResult<BuilderIdentity | undefined> {
  const read = readAuthHeaders(headers, BUILDER_SUFFIXES, INVALID_BUILDER_KEY);
  if (!read.ok) return read;
  const h = read.value;
  const present = BUILDER_SUFFIXES.filter((suffix) => h[suffix] !== undefined);
  if (present.length === 0) return passed(undefined);
  const missing = BUILDER_SUFFIXES.find((suffix) => h[suffix] === undefined);
  if (missing !== undefined) return failed(INVALID_BUILDER_KEY, `missing header POLY_${missing.toUpperCase()}`);
  const { builder_api_key: key = '', builder_passphrase: passphrase = '', builder_timestamp: timestamp = '', builder_signature: signature = '' } = h;
  const stale = timestampProblem(timestamp, options.nowSec, options.freshnessSec);
  if (stale !== undefined) return failed(INVALID_BUILDER_KEY, `POLY_BUILDER_TIMESTAMP: ${stale}`);
  const credentials = lookup(key);
  if (credentials === undefined) return failed(INVALID_BUILDER_KEY, 'unknown or revoked builder API key');
  if (!samePassphrase(passphrase, credentials.passphrase)) return failed(INVALID_BUILDER_KEY, 'wrong passphrase for this builder API key');
  const presented = decodeL2Signature(signature);
  if (presented === undefined) return failed(INVALID_BUILDER_KEY, 'POLY_BUILDER_SIGNATURE must be an HMAC-SHA256 in url-safe base64, base64 or hex');
  if (!signatureMatches(credentials.secret, timestamp, request, presented)) {
    return failed(INVALID_BUILDER_KEY, 'POLY_BUILDER_SIGNATURE does not match: sign timestamp + METHOD + path (no query) + body with the builder secret');
  }
  return passed({ key, address: credentials.address.toLowerCase() });
}
