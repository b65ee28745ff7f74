// CORS (the Fetch standard's CORS protocol) for browser front ends on other origins. The API uses no
// cookies: a browser call is authenticated by the POLY_*/SVC_* headers its own code adds, so allowing an
// origin grants it nothing a key-holder does not already have. Hence `*` is the default (--cors-origins).
//
// Contract:
// - An actual request with an allowed Origin gets `access-control-allow-origin` (`*`, or the origin itself
//   with `vary: origin` when a list is configured) and `access-control-expose-headers: retry-after`.
// - A preflight (OPTIONS with Origin and Access-Control-Request-Method) on a known path from an allowed
//   origin gets 204 with the path's methods, every request header the SDKs send (CORS_ALLOWED_HEADERS, in
//   both the `_` and the `-` spelling), and a max age. It is not rate-limited. From an origin not allowed it
//   gets 204 without CORS headers, which the browser reads as a refusal.
// - No `access-control-allow-credentials`: there are no cookies to send.

const AUTH_SUFFIXES = ['address', 'signature', 'timestamp', 'nonce', 'api_key', 'passphrase'];

/** The request headers a browser may send (lower case, as browsers list them in Access-Control-Request-Headers). */
export const CORS_ALLOWED_HEADERS: readonly string[] = [
  'content-type',
  'authorization',
  ...['poly_', 'svc_'].flatMap((prefix) => AUTH_SUFFIXES.flatMap((suffix) => [prefix + suffix, (prefix + suffix).replace(/_/g, '-')])),
];

/** Seconds a browser may cache a preflight answer. */
export const CORS_MAX_AGE_SEC = 600;

export interface CorsPolicy {
  /** The `access-control-allow-origin` value for a request from `origin`, or undefined when it is not allowed. */
  allowOrigin(origin: string | undefined): string | undefined;
  /** Whether answers depend on the Origin header (a list, not `*`): they then carry `vary: origin`. */
  readonly varies: boolean;
}

export function corsPolicy(origins: readonly string[]): CorsPolicy {
  if (origins.includes('*')) return { allowOrigin: (origin) => (origin === undefined ? undefined : '*'), varies: false };
  const allowed = new Set(origins.map((o) => o.toLowerCase()));
  return { allowOrigin: (origin) => (origin !== undefined && allowed.has(origin.toLowerCase()) ? origin : undefined), varies: allowed.size > 0 };
}

/** Headers for an actual (non-preflight) response to a request from `origin`; undefined when none apply. */
export function corsResponseHeaders(policy: CorsPolicy, origin: string | undefined): Readonly<Record<string, string>> | undefined {
  const allow = policy.allowOrigin(origin);
  if (allow === undefined) return policy.varies && origin !== undefined ? VARY_ORIGIN : undefined;
  return policy.varies ? { 'access-control-allow-origin': allow, 'access-control-expose-headers': 'retry-after', vary: 'origin' } : ANY_ORIGIN;
}

const VARY_ORIGIN = { vary: 'origin' } as const;
const ANY_ORIGIN = { 'access-control-allow-origin': '*', 'access-control-expose-headers': 'retry-after' } as const;
const ALLOWED_HEADERS = CORS_ALLOWED_HEADERS.join(', ');

/** Headers of the 204 answer to a preflight for a path that allows `methods`. */
export function preflightHeaders(policy: CorsPolicy, origin: string | undefined, methods: string): Readonly<Record<string, string>> {
  const allow = policy.allowOrigin(origin);
  if (allow === undefined) return policy.varies ? VARY_ORIGIN : {};
  return {
    'access-control-allow-origin': allow,
    'access-control-allow-methods': methods,
    'access-control-allow-headers': ALLOWED_HEADERS,
    'access-control-max-age': String(CORS_MAX_AGE_SEC),
    ...(policy.varies ? { vary: 'origin' } : {}),
  };
}
