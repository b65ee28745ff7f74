// Authentication of trading requests, before anything else of the request is looked at: a failure is a 401
// whose `{error}` is the public CLOB's text followed by the precise reason (which never holds a secret).
//
// - requireL2: writes and key management. A request that presents a read-only key (POLY_READONLY_API_KEY)
//   instead of L2 headers is refused with `readonly_key_refused` (401), whatever it asks for.
// - requireReader: the private reads (orders, trades, balances, closed-only status): L2 headers, or a
//   read-only key with POLY_ADDRESS (auth/readonlyKey.ts), reading exactly what the key's owner reads.
// - builderOf: the optional builder headers (auth/builderHmac.ts) beside L2 headers; invalid ones are a 401.

import { checkL2Headers, L2_MAC_MISMATCH, macMatches, presentedKeyKind, verifyBuilderHeaders, verifyL1Headers, verifyReadonlyHeaders, INVALID_API_KEY, type BuilderIdentity, type L1Identity, type L2Identity, type L2Mac } from '../../auth/index.js';
import type { SignedRequest } from '../../engine/index.js';
import { ApiError } from '../http/apiErrors.js';
import type { ApiRequest } from '../http/apiTypes.js';
import type { TradingDeps } from './tradingDeps.js';

/** The caller of an L2 request: the API key and its address (checksummed and lower-case). */
export interface Caller extends L2Identity {
  /** Lower-case: how the engine and the projections key accounts. */
  readonly account: string;
  /**
   * The signed request as the engine's commands carry it (engine/signedRequests.ts): its HMAC, its signing
   * time, and the end of the window in which this API would still call it fresh (the last millisecond of
   * second timestamp + authFreshnessSec). Commands that acting twice would change carry it, so the engine
   * applies one signed request at most once.
   */
  readonly request: SignedRequest;
}

function refused(error: string, detail: string): ApiError {
  return new ApiError('unauthorized', { detail: `${error}: ${detail}` });
}

// What each request authenticated as: a route's guard (apiTypes.ts) and then its handler ask of the same
// request object, and the second asking costs a map lookup instead of another HMAC.
const callers = new WeakMap<object, Caller>();
const builders = new WeakMap<object, { readonly builder: BuilderIdentity | undefined }>();

// HMACs a guard left to be compared later (requireL2 with deferMac), by request: takeDeferredMac() hands one
// to whoever compares it, confirmL2() compares what is still here.
const deferredMacs = new WeakMap<object, L2Mac>();

/**
 * Verifies the L2 (HMAC) headers of `req` over its method, path and raw body. Throws a 401 ApiError.
 *
 * With `deferMac`, the HMAC comparison itself may be left for later (auth/l2Hmac.ts checkL2Headers): POST /order
 * compares it on the signature worker with the order's signature (orderIntake.ts), off the request thread.
 * Until then the request is not authenticated, so whatever would refuse it first calls confirmL2, and a bad
 * HMAC is still the 401 it was, ahead of every later refusal (the HTTP server calls the route's `confirm` on
 * any refusal after its guard).
 */
export function requireL2(req: ApiRequest<unknown, unknown>, deps: TradingDeps, deferMac = false): Caller {
  const known = callers.get(req);
  if (known !== undefined) return known;
  const result = checkL2Headers(
    req.headers,
    { method: req.method, path: req.path, body: req.rawBody },
    (apiKey) => deps.registry.lookup(apiKey),
    { freshnessSec: deps.settings.authFreshnessSec, nowSec: Math.floor(deps.clock() / 1000) },
    deferMac,
  );
  if (!result.ok) {
    // Looked at only once L2 failed, so that the order path pays nothing for it.
    if (presentedKeyKind(req.headers) === 'readonly') throw new ApiError('readonly_key_refused');
    throw refused(result.error, result.detail);
  }
  const id = result.value.identity;
  if (result.value.mac !== undefined) deferredMacs.set(req, result.value.mac);
  const request = { id: id.signature, signedAt: id.timestampSec * 1000, until: (id.timestampSec + deps.settings.authFreshnessSec + 1) * 1000 };
  // Spelled out rather than spread: one object shape for every caller, built without a generic copy.
  const caller: Caller = { address: id.address, apiKey: id.apiKey, signature: id.signature, timestampSec: id.timestampSec, account: id.address.toLowerCase(), request };
  callers.set(req, caller);
  return caller;
}

/** The HMAC requireL2 left for `req`, now the caller's to compare (refusing with macRefusal() when it fails). */
export function takeDeferredMac(req: ApiRequest<unknown, unknown>): L2Mac | undefined {
  const mac = deferredMacs.get(req);
  deferredMacs.delete(req);
  return mac;
}

/** Compares the HMAC requireL2 left for `req`, if any is left. Throws the 401 of a bad HMAC. */
export function confirmL2(req: ApiRequest<unknown, unknown>): void {
  const mac = takeDeferredMac(req);
  if (mac !== undefined && !macMatches(mac)) throw macRefusal();
}

/** The 401 of a request whose POLY_SIGNATURE is not its HMAC, as requireL2 throws it. */
export function macRefusal(): ApiError {
  return refused(INVALID_API_KEY, L2_MAC_MISMATCH);
}

/** The caller of a private read: its lower-case account, and how it authenticated. */
export interface Reader {
  readonly account: string;
  readonly via: 'l2' | 'readonly';
}

/** Authenticates a private read: L2 headers, or a live read-only key of POLY_ADDRESS. Throws a 401 ApiError. */
export function requireReader(req: ApiRequest<unknown, unknown>, deps: TradingDeps): Reader {
  if (presentedKeyKind(req.headers) !== 'readonly') return { account: requireL2(req, deps).account, via: 'l2' };
  const result = verifyReadonlyHeaders(req.headers, (key) => deps.registry.readonlyOwner(key));
  if (!result.ok) throw refused(result.error, result.detail);
  return { account: result.value.address, via: 'readonly' };
}

/**
 * The builder a request comes through: its builder headers verified over the request's method, path and raw
 * body with the builder key's secret (builder-signing-sdk), or undefined when it sends none. Throws a 401.
 */
export function builderOf(req: ApiRequest<unknown, unknown>, deps: TradingDeps): BuilderIdentity | undefined {
  const known = builders.get(req);
  if (known !== undefined) return known.builder;
  const result = verifyBuilderHeaders(
    req.headers,
    { method: req.method, path: req.path, body: req.rawBody },
    (key) => deps.registry.builderLookup(key),
    { freshnessSec: deps.settings.authFreshnessSec, nowSec: Math.floor(deps.clock() / 1000) },
  );
  if (!result.ok) throw refused(result.error, result.detail);
  builders.set(req, { builder: result.value });
  return result.value;
}

/** Verifies the L1 (ClobAuth wallet signature) headers of `req`. Throws a 401 ApiError. */
export function requireL1(req: ApiRequest<unknown, unknown>, deps: TradingDeps): L1Identity {
  const result = verifyL1Headers(req.headers, {
    chainId: deps.settings.chainId,
    freshnessSec: deps.settings.authFreshnessSec,
    nowSec: Math.floor(deps.clock() / 1000),
  });
  if (!result.ok) throw refused(result.error, result.detail);
  return result.value;
}
