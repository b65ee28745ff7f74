// Authentication of trading requests, before anything else of the request is looked at: a failure is a 401
// whose `{error}` is the public CLOB's text followed by the precise reason (which never holds a secret).

import { verifyL1Headers, verifyL2Headers, type L1Identity, type L2Identity } from '../../auth/index.js';
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

/** Verifies the L2 (HMAC) headers of `req` over its method, path and raw body. Throws a 401 ApiError. */
export function requireL2(req: ApiRequest<unknown, unknown>, deps: TradingDeps): Caller {
  const result = verifyL2Headers(
    req.headers,
    { method: req.method, path: req.path, body: req.rawBody },
    (apiKey) => deps.registry.lookup(apiKey),
    { freshnessSec: deps.settings.authFreshnessSec, nowSec: Math.floor(deps.clock() / 1000) },
  );
  if (!result.ok) throw refused(result.error, result.detail);
  const id = result.value;
  const request = { id: id.signature, signedAt: id.timestampSec * 1000, until: (id.timestampSec + deps.settings.authFreshnessSec + 1) * 1000 };
  return { ...id, account: id.address.toLowerCase(), request };
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
