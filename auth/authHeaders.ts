// Reads the authentication headers of a request. The public clients send POLY_ADDRESS, POLY_SIGNATURE, ...;
// this service also answers to SVC_ADDRESS, SVC_SIGNATURE, ... with the same suffixes. Header names are
// matched case-insensitively and with `-` or `_` (some proxies, nginx by default, drop names with
// underscores, so clients behind them can send POLY-ADDRESS). When both a POLY_ and an SVC_ header of one
// suffix arrive they must agree; a header sent twice with different values is refused.

import { failed, passed, type AuthResult } from './authResult.js';

/** Node's IncomingHttpHeaders (lower-case names), uWebSockets' pairs collected into an object, or plain objects. */
export type HeaderBag = Readonly<Record<string, string | readonly string[] | undefined>>;

const PREFIXES = ['poly_', 'svc_'] as const;
const MAX_HEADER_LENGTH = 1024;

function normalName(name: string): string {
  return name.toLowerCase().replace(/-/g, '_');
}

/** Could `name` be one of ours: it starts with `poly` or `svc`, any case (most headers do not; skipped cheaply). */
function mayBeAuth(name: string): boolean {
  const c = name.charCodeAt(0) | 0x20;
  return c === 0x70 /* p */ || c === 0x73 /* s */;
}

/** Normal header name -> suffix, per list of suffixes (the callers pass constant lists). */
const wantedBySuffixes = new WeakMap<readonly string[], ReadonlyMap<string, string>>();

function wantedOf<S extends string>(suffixes: readonly S[]): ReadonlyMap<string, S> {
  let wanted = wantedBySuffixes.get(suffixes);
  if (wanted === undefined) {
    const map = new Map<string, S>();
    for (const suffix of suffixes) for (const prefix of PREFIXES) map.set(prefix + suffix, suffix);
    wanted = map;
    wantedBySuffixes.set(suffixes, wanted);
  }
  return wanted as ReadonlyMap<string, S>;
}

function single(value: string | readonly string[] | undefined): string | undefined | null {
  if (value === undefined || typeof value === 'string') return value;
  const distinct = new Set(value);
  if (distinct.size > 1) return null;
  return value[0];
}

/**
 * The value of each suffix (`address`, `signature`, ...), undefined when absent. `error` is the public text
 * of the caller's failures.
 */
export function readAuthHeaders<S extends string>(headers: HeaderBag, suffixes: readonly S[], error: string): AuthResult<Record<S, string | undefined>> {
  const wanted = wantedOf(suffixes);
  const found = new Map<S, { name: string; value: string }>();
  for (const name of Object.keys(headers)) {
    if (!mayBeAuth(name)) continue;
    const suffix = wanted.get(normalName(name));
    if (suffix === undefined) continue;
    const value = single(headers[name]);
    const shown = name.toUpperCase().replace(/-/g, '_');
    if (value === null) return failed(error, `header ${shown} was sent more than once with different values`);
    if (value === undefined) continue;
    if (value.length > MAX_HEADER_LENGTH) return failed(error, `header ${shown} is too long`);
    const earlier = found.get(suffix);
    if (earlier !== undefined && earlier.value !== value) return failed(error, `headers ${earlier.name} and ${shown} disagree`);
    found.set(suffix, { name: shown, value });
  }
  const out = {} as Record<S, string | undefined>;
  for (const suffix of suffixes) out[suffix] = found.get(suffix)?.value;
  return passed(out);
}
