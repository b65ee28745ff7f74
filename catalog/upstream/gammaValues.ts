// Reading single values of upstream (Gamma-shaped) objects, liberally: the upstream sends ids as numeric
// text or numbers, numbers as JSON numbers or decimal text, booleans as booleans (sometimes text), dates as
// ISO 8601 or in a legacy "2026-05-28 05:29:05+00" form, and string arrays as text holding JSON. Every
// reader returns undefined for a value it cannot read, never throws.

export type GammaObject = { [key: string]: unknown };

export function isObject(value: unknown): value is GammaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An id as text: a non-empty string (trimmed) or a finite integer. */
export function idOf(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const text = value.trim();
    return text === '' || text.length > 256 ? undefined : text;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** The numeric value of a numeric id ("2589812" → 2589812), 0 when the id is not a decimal integer. */
export function idNumber(id: string): number {
  return /^\d{1,15}$/.test(id) ? Number(id) : 0;
}

export function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

export function boolOf(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Microseconds since the epoch of an ISO 8601 (or legacy "YYYY-MM-DD hh:mm:ss+00") date; no zone = UTC. */
export function microsOf(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const m = DATE.exec(value.trim());
  if (m === null) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone = 'Z'] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (!Number.isFinite(ms)) return undefined;
  const micros = Number(frac.padEnd(6, '0').slice(0, 6));
  let offsetMin = 0;
  if (zone !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  }
  return (ms - offsetMin * 60_000) * 1000 + micros;
}

const ISO_STRICT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** The ISO 8601 rendering of microseconds since the epoch: 2026-09-09T14:25:04Z, with .ffffff when needed. */
export function isoOfMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const base = new Date(ms).toISOString().slice(0, 19);
  const frac = micros - Math.floor(micros / 1_000_000) * 1_000_000;
  return frac === 0 ? `${base}Z` : `${base}.${String(frac).padStart(6, '0').replace(/0+$/, '')}Z`;
}

/** A date as ISO 8601: already-ISO text is kept as sent; legacy forms are rewritten; unreadable text is kept. */
export function isoDateOf(value: string): string {
  if (ISO_STRICT.test(value)) return value;
  const micros = microsOf(value);
  return micros === undefined ? value : isoOfMicros(micros);
}

/**
 * A string array as the upstream sends it: text holding JSON, with ", " between items ('["Yes", "No"]').
 * A real array (the optimized search shape) is encoded the same way; text is kept as sent.
 */
export function jsonTextArrayOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return '[' + value.map((v) => JSON.stringify(String(v))).join(', ') + ']';
  return undefined;
}

/** The items of a string array sent as JSON text or as a real array; undefined when unreadable. */
export function stringArrayOf(value: unknown): string[] | undefined {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(parsed)) return undefined;
  return parsed.map((v) => String(v));
}
