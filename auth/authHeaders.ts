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
const wantedBySuffixes = new WeakMap<readonly string[], Wanted<string>>();

/** Most raw header names remembered per list of suffixes; clients send a handful, a hostile one many. */
const MAX_REMEMBERED_NAMES = 256;

interface Wanted<S extends string> {
  /** Normal name (lower case, `_`) -> suffix. */
  readonly byNormal: ReadonlyMap<string, S>;
  /** Raw name as received -> suffix, or null for none of ours: the header names repeat on every request. */
  readonly byRaw: Map<string, S | null>;
}

function wantedOf<S extends string>(suffixes: readonly S[]): Wanted<S> {
  let wanted = wantedBySuffixes.get(suffixes);
  if (wanted === undefined) {
    const byNormal = new Map<string, S>();
    for (const suffix of suffixes) for (const prefix of PREFIXES) byNormal.set(prefix + suffix, suffix);
    wanted = { byNormal, byRaw: new Map() };
    wantedBySuffixes.set(suffixes, wanted);
  }
  return wanted as Wanted<S>;
}

function suffixOf<S extends string>(wanted: Wanted<S>, name: string): S | undefined {
  const known = wanted.byRaw.get(name);
  if (known !== undefined) return known ?? undefined;
  const suffix = wanted.byNormal.get(normalName(name));
  if (wanted.byRaw.size < MAX_REMEMBERED_NAMES) wanted.byRaw.set(name, suffix ?? null);
  return suffix;
}

/** A header name as the error messages show it (POLY_ADDRESS). */
function shownName(name: string): string {
  return name.toUpperCase().replace(/-/g, '_');
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
  const out = {} as Record<S, string | undefined>;
  for (const suffix of suffixes) out[suffix] = undefined;
  /** The raw name each found value came from (for the messages), by suffix. */
  let from: Partial<Record<S, string>> | undefined;
  for (const name in headers) {
    if (!mayBeAuth(name)) continue;
    const suffix = suffixOf(wanted, name);
    if (suffix === undefined) continue;
    const value = single(headers[name]);
    if (value === null) return failed(error, `header ${shownName(name)} was sent more than once with different values`);
    if (value === undefined) continue;
    if (value.length > MAX_HEADER_LENGTH) return failed(error, `header ${shownName(name)} is too long`);
    const earlier = out[suffix];
    if (earlier !== undefined && earlier !== value) return failed(error, `headers ${shownName(from?.[suffix] ?? name)} and ${shownName(name)} disagree`);
    out[suffix] = value;
    (from ??= {} as Partial<Record<S, string>>)[suffix] = name;
  }
  return passed(out);
}
