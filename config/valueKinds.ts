// Value kinds: how one setting's text (from a flag or an environment variable) becomes a typed value.
// Contract: parse() never throws; it returns the value or what was expected instead, so the loader can
// report every bad setting at once. format() renders a value the way parse() accepts it.

import { isIP, isIPv4 } from 'node:net';

export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem?: string };

export interface ValueKind<T> {
  /** What a valid value looks like, for help and error messages ("an integer from 0 to 65535"). */
  readonly expected: string;
  /** Placeholder shown after the flag in --help. */
  readonly placeholder: string;
  /** A boolean flag may stand alone (`--x` = true, `--no-x` = false). */
  readonly boolean: boolean;
  parse(raw: string): Parsed<T>;
  format(value: T): string;
}

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = (problem?: string): Parsed<never> => (problem === undefined ? { ok: false } : { ok: false, problem });

export function text(opts: { minLength?: number; pattern?: RegExp; expected?: string; placeholder?: string } = {}): ValueKind<string> {
  const minLength = opts.minLength ?? 1;
  const expected = opts.expected ?? (minLength === 0 ? 'any string' : minLength === 1 ? 'a non-empty string' : `a string of at least ${minLength} characters`);
  return {
    expected,
    placeholder: opts.placeholder ?? '<text>',
    boolean: false,
    parse: (raw) => {
      if (raw.length < minLength) return bad(`it has ${raw.length} character${raw.length === 1 ? '' : 's'}`);
      if (opts.pattern !== undefined && !opts.pattern.test(raw)) return bad();
      return ok(raw);
    },
    format: (value) => value,
  };
}

export function int(min: number, max: number): ValueKind<number> {
  return {
    expected: `an integer from ${min} to ${max}`,
    placeholder: '<int>',
    boolean: false,
    parse: (raw) => {
      if (!/^-?\d+$/.test(raw.trim())) return bad();
      const value = Number(raw.trim());
      if (!Number.isSafeInteger(value) || value < min || value > max) return bad('it is out of range');
      return ok(value);
    },
    format: (value) => String(value),
  };
}

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

export function bool(): ValueKind<boolean> {
  return {
    expected: 'true or false (also 1/0, yes/no, on/off)',
    placeholder: '',
    boolean: true,
    parse: (raw) => {
      const word = raw.trim().toLowerCase();
      if (TRUE.has(word)) return ok(true);
      if (FALSE.has(word)) return ok(false);
      return bad();
    },
    format: (value) => String(value),
  };
}

export function oneOf<const V extends string>(values: readonly V[]): ValueKind<V> {
  return {
    expected: `one of ${values.join(', ')}`,
    placeholder: `<${values.join('|')}>`,
    boolean: false,
    parse: (raw) => {
      const value = raw.trim();
      return (values as readonly string[]).includes(value) ? ok(value as V) : bad();
    },
    format: (value) => value,
  };
}

export function url(protocols: readonly string[] = ['http:', 'https:']): ValueKind<string> {
  const names = protocols.map((p) => p.replace(/:$/, ''));
  return {
    expected: `an absolute ${names.join(' or ')} URL`,
    placeholder: '<url>',
    boolean: false,
    parse: (raw) => {
      let parsed: URL;
      try {
        parsed = new URL(raw.trim());
      } catch {
        return bad('it is not a URL');
      }
      if (!protocols.includes(parsed.protocol)) return bad(`its scheme is ${parsed.protocol.replace(/:$/, '')}`);
      return ok(raw.trim());
    },
    format: (value) => value,
  };
}

/** A browser origin (`scheme://host[:port]`, as the Origin header carries it, lower-cased) or `*` for any. */
export function corsOrigin(): ValueKind<string> {
  return {
    expected: 'an origin such as https://app.example.com (scheme, host and port only) or *',
    placeholder: '<origin>',
    boolean: false,
    parse: (raw) => {
      const value = raw.trim();
      if (value === '*') return ok(value);
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        return bad('it is not a URL');
      }
      if (parsed.origin === 'null' || parsed.origin !== value.toLowerCase().replace(/\/$/, '')) return bad('it has more than a scheme, host and port');
      return ok(parsed.origin);
    },
    format: (value) => value,
  };
}

/** A 20-byte hex address with its 0x prefix. Case is kept as given; no EIP-55 checksum check. */
export function address(): ValueKind<string> {
  return {
    expected: 'a 0x-prefixed 40-hex-digit address',
    placeholder: '<0xaddress>',
    boolean: false,
    parse: (raw) => (/^0x[0-9a-fA-F]{40}$/.test(raw.trim()) ? ok(raw.trim()) : bad()),
    format: (value) => value,
  };
}

/** host:port, as Kafka bootstrap brokers are written. */
export function hostPort(): ValueKind<string> {
  return {
    expected: 'host:port',
    placeholder: '<host:port>',
    boolean: false,
    parse: (raw) => {
      const match = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/.exec(raw.trim());
      if (match === null || Number(match[2]) < 1 || Number(match[2]) > 65535) return bad();
      return ok(raw.trim());
    },
    format: (value) => value,
  };
}

export interface Cidr {
  readonly address: string;
  readonly prefix: number;
  readonly family: 'ipv4' | 'ipv6';
}

/** Parses `a.b.c.d/n` or `x:y::z/n`; a bare address is a /32 or /128. Feeds node:net BlockList.addSubnet. */
export function parseCidr(raw: string): Cidr | undefined {
  const [addr = '', prefixText, ...rest] = raw.trim().split('/');
  const version = isIP(addr);
  if (version === 0 || rest.length > 0) return undefined;
  const family = isIPv4(addr) ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address: addr, prefix: max, family };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return undefined;
  return { address: addr, prefix: Number(prefixText), family };
}

export function cidr(): ValueKind<string> {
  return {
    expected: 'an IPv4 or IPv6 CIDR such as 10.0.0.0/8 or ::1/128',
    placeholder: '<cidr>',
    boolean: false,
    parse: (raw) => (parseCidr(raw) === undefined ? bad() : ok(raw.trim())),
    format: (value) => value,
  };
}

/** Comma-separated items of one kind; blanks around commas are ignored. */
export function listOf<T>(item: ValueKind<T>, opts: { minItems?: number } = {}): ValueKind<readonly T[]> {
  const minItems = opts.minItems ?? 0;
  const count = minItems === 0 ? 'items' : minItems === 1 ? 'at least one item' : `at least ${minItems} items`;
  return {
    expected: `a comma-separated list of ${count}, each ${item.expected}`,
    placeholder: `${item.placeholder},...`,
    boolean: false,
    parse: (raw) => {
      const parts = raw.split(',').map((p) => p.trim()).filter((p) => p !== '');
      if (parts.length < minItems) return bad(`it has ${parts.length} item${parts.length === 1 ? '' : 's'}`);
      const values: T[] = [];
      for (const part of parts) {
        const parsed = item.parse(part);
        if (!parsed.ok) return bad(`item "${part}" is not ${item.expected}`);
        values.push(parsed.value);
      }
      return ok(Object.freeze(values));
    },
    format: (value) => value.map((v) => item.format(v)).join(','),
  };
}
