// L2 authentication (upstream-conventions §1.3): every trading request carries an HMAC of
//   timestamp + METHOD + path + body
// keyed with the API key's secret, plus the key and its passphrase:
//   POLY_ADDRESS, POLY_API_KEY, POLY_PASSPHRASE, POLY_TIMESTAMP (unix seconds), POLY_SIGNATURE
// (or the SVC_* names). Rules:
// - The key is the url-safe base64 decoding of the secret; standard `+/` and missing padding are tolerated.
// - The method is signed upper-case by the clients; servers may see it in lower case (uWebSockets), so the
//   upper-cased method is accepted, and the method exactly as received too. The path is the path
//   without the query string, as the clients sign it; when the request had a query string, the path with it
//   is accepted too. The body is the raw bytes received, signed only when non-empty.
// - The signature may be url-safe base64 (with or without `=`, what the public SDKs send), standard base64
//   or hex (the spec's form); compared in constant time, as is the passphrase.
// - POLY_ADDRESS must be the key's address (any case). The timestamp must be within the freshness window.
// Every failure is `Unauthorized/Invalid api key` (HTTP 401) with a precise detail.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { failed, passed, type AuthResult } from './authResult.js';
import { readAuthHeaders, type HeaderBag } from './authHeaders.js';
import { timestampProblem } from './timestampWindow.js';
import { checksumAddress } from './keccak.js';

export const INVALID_API_KEY = 'Unauthorized/Invalid api key';

/** What the verifier needs of an API key: its owner and secrets (apiKeyRegistry.ts provides it). */
export interface L2Credentials {
  readonly address: string;
  readonly secret: string;
  readonly passphrase: string;
}

export interface L2Request {
  /** The HTTP method, any case. */
  readonly method: string;
  /** The request target: path, optionally with `?query`. */
  readonly path: string;
  /** The raw body as received; absent or empty when there is none. */
  readonly body?: string | Uint8Array;
}

export interface L2Options {
  readonly freshnessSec: number;
  /** The server clock, unix seconds. */
  readonly nowSec: number;
}

export interface L2Identity {
  /** The key's address, checksummed. */
  readonly address: string;
  readonly apiKey: string;
  /**
   * The request's HMAC as 64 lower-case hex digits, whatever encoding POLY_SIGNATURE used: one value per signed
   * request (key, timestamp, method, path, body), so it identifies a replay of the same request.
   */
  readonly signature: string;
  /** POLY_TIMESTAMP (unix seconds). */
  readonly timestampSec: number;
}

const HEX_SIGNATURE = /^(0x)?[0-9a-fA-F]{64}$/;
const BASE64_SIGNATURE = /^[A-Za-z0-9+/_-]{43}=?$/;

/** The HMAC key: url-safe or standard base64, padding optional (Node's decoder takes both alphabets). */
export function decodeSecret(secret: string): Buffer {
  return Buffer.from(secret, 'base64');
}

/** The signed text (without the body when it is empty). */
export function l2SigningString(timestamp: string, method: string, path: string, body?: string): string {
  return timestamp + method + path + (body ?? '');
}

function hmac(key: Uint8Array, prefix: string | Uint8Array, body: string | Uint8Array | undefined): Buffer {
  const mac = typeof prefix === 'string' ? createHmac('sha256', key).update(prefix, 'utf8') : createHmac('sha256', key).update(prefix);
  if (body !== undefined && body.length > 0) mac.update(body);
  return mac.digest();
}

/** The signature the public SDKs send: url-safe base64 of the HMAC, keeping `=` padding. */
export function signL2(secret: string, timestamp: string, method: string, path: string, body?: string): string {
  return hmac(decodeSecret(secret), timestamp + method + path, body).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

/** The 32 bytes a presented signature stands for, in any accepted encoding; undefined otherwise. */
export function decodeL2Signature(text: string): Buffer | undefined {
  if (HEX_SIGNATURE.test(text)) return Buffer.from(text.replace(/^0x/, ''), 'hex');
  if (BASE64_SIGNATURE.test(text)) {
    const bytes = Buffer.from(text, 'base64');
    return bytes.length === 32 ? bytes : undefined;
  }
  return undefined;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Whether `presented` is the HMAC of timestamp + method + path + body under `secret`, for the method as
 * signed (upper case) or as received, and the path without or with its query (see the rules above).
 * Every candidate is compared, in constant time. Shared by L2 and builder headers (auth/builderHmac.ts).
 */
export function signatureMatches(secret: string, timestamp: string, request: L2Request, presented: Buffer): boolean {
  return keyMatches(decodeSecret(secret), timestamp, request, presented);
}

/** signatureMatches with the secret decoded. */
function keyMatches(key: Uint8Array, timestamp: string, request: L2Request, presented: Buffer): boolean {
  const upper = request.method.toUpperCase();
  const methods = upper === request.method ? [upper] : [upper, request.method];
  const query = request.path.indexOf('?');
  const paths = query < 0 ? [request.path] : [request.path.slice(0, query), request.path];
  let match = false;
  for (const method of methods) for (const path of paths) match = timingSafeEqual(hmac(key, timestamp + method + path, request.body), presented) || match;
  return match;
}

/** Passphrases compared in constant time. */
export function samePassphrase(a: string, b: string): boolean {
  return sameText(a, b);
}

const L2_SUFFIXES = ['address', 'api_key', 'passphrase', 'timestamp', 'signature'] as const;

/** What every request of a key needs from its credentials, derived once per credentials object. */
interface KeyDerived {
  /** The key's address, lower-case (POLY_ADDRESS is compared in any case) and checksummed (the identity's). */
  readonly lower: string;
  readonly checksummed: string;
  /** The HMAC key: the secret decoded. */
  readonly key: Buffer;
}

/**
 * Per credentials object: the registry keeps one per live key (auth/apiKeyRegistry.ts), so a key's requests
 * share one entry, and an entry goes with its object. Its HMAC key is never written to.
 */
const derivedByCredentials = new WeakMap<L2Credentials, KeyDerived>();

function derivedOf(credentials: L2Credentials): KeyDerived {
  let derived = derivedByCredentials.get(credentials);
  if (derived === undefined) {
    derived = { lower: credentials.address.toLowerCase(), checksummed: checksumAddress(credentials.address), key: decodeSecret(credentials.secret) };
    derivedByCredentials.set(credentials, derived);
  }
  return derived;
}

/** Why a request's POLY_SIGNATURE is refused when it is not the HMAC of the request. */
export const L2_MAC_MISMATCH = 'POLY_SIGNATURE does not match: sign timestamp + METHOD + path (no query) + body with the base64url-decoded secret';

/**
 * The one HMAC comparison an L2 check may leave to be made elsewhere (checkL2Headers with deferMac): `presented`
 * must equal HMAC-SHA256(key, message ‖ body), in constant time. macMatches() makes it; the order path makes it on
 * the signature worker beside the order's signature (api/trading/macJob.ts packs it).
 */
export interface L2Mac {
  readonly key: Uint8Array;
  /** timestamp + METHOD + path (text, or its UTF-8 bytes). */
  readonly message: string | Uint8Array;
  /** The raw body as received, signed when non-empty. */
  readonly body: string | Uint8Array | undefined;
  /** The 32 bytes POLY_SIGNATURE stands for. */
  readonly presented: Uint8Array;
}

/** Whether the deferred HMAC holds. */
export function macMatches(mac: L2Mac): boolean {
  return timingSafeEqual(hmac(mac.key, mac.message, mac.body), mac.presented);
}

/** What checkL2Headers found: the identity, and the HMAC still to compare (undefined: compared already). */
export interface L2Check {
  readonly identity: L2Identity;
  readonly mac: L2Mac | undefined;
}

/**
 * Verifies L2 headers against the request. `lookup` answers for live API keys only. Never throws (a lookup
 * that throws is the caller's fault and propagates).
 */
export function verifyL2Headers(headers: HeaderBag, request: L2Request, lookup: (apiKey: string) => L2Credentials | undefined, options: L2Options): AuthResult<L2Identity> {
  const checked = checkL2Headers(headers, request, lookup, options, false);
  return checked.ok ? passed(checked.value.identity) : checked;
}

/**
 * verifyL2Headers, except that with `deferMac` the HMAC comparison is left to the caller (returned as `mac`)
 * when exactly one HMAC stands for the request: the method as signed (upper case) and a path without a query.
 * Every other check (headers, freshness, key, address, passphrase, the signature's encoding) is made here, in
 * the same order, so a request refused here is refused with the same reason either way. A caller that takes
 * `mac` owns the verdict: until macMatches(mac) holds, the request is not authenticated.
 */
export function checkL2Headers(headers: HeaderBag, request: L2Request, lookup: (apiKey: string) => L2Credentials | undefined, options: L2Options, deferMac: boolean): AuthResult<L2Check> {
  const read = readAuthHeaders(headers, L2_SUFFIXES, INVALID_API_KEY);
  if (!read.ok) return read;
  const h = read.value;
  for (const [suffix, value] of Object.entries(h)) if (value === undefined) return failed(INVALID_API_KEY, `missing header POLY_${suffix.toUpperCase()}`);
  const { address = '', api_key: apiKey = '', passphrase = '', timestamp = '', signature = '' } = h;
  const stale = timestampProblem(timestamp, options.nowSec, options.freshnessSec);
  if (stale !== undefined) return failed(INVALID_API_KEY, `POLY_TIMESTAMP: ${stale}`);
  const credentials = lookup(apiKey);
  if (credentials === undefined) return failed(INVALID_API_KEY, 'unknown or deleted API key');
  const derived = derivedOf(credentials);
  if (address.toLowerCase() !== derived.lower) return failed(INVALID_API_KEY, 'POLY_ADDRESS is not the address of this API key');
  if (!sameText(passphrase, credentials.passphrase)) return failed(INVALID_API_KEY, 'wrong passphrase for this API key');
  const presented = decodeL2Signature(signature);
  if (presented === undefined) return failed(INVALID_API_KEY, 'POLY_SIGNATURE must be an HMAC-SHA256 in url-safe base64, base64 or hex');
  const identity: L2Identity = { address: derived.checksummed, apiKey, signature: presented.toString('hex'), timestampSec: Number(timestamp) };
  if (deferMac && request.method === request.method.toUpperCase() && !request.path.includes('?')) {
    return passed({ identity, mac: { key: derived.key, message: timestamp + request.method + request.path, body: request.body, presented } });
  }
  if (!keyMatches(derived.key, timestamp, request, presented)) return failed(INVALID_API_KEY, L2_MAC_MISMATCH);
  return passed({ identity, mac: undefined });
}
