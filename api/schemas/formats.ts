// The formats of values that several routes share, as JSON-schema pieces that also say which catalogue error
// a value answers when it does not fit (`x-error`, read by api/http/schemas.ts). The same objects validate
// requests and are the OpenAPI document's schemas; code that still tests a value itself uses the regular
// expressions exported here, so the document, the validation and that code cannot disagree.
//
// Patterns are written for every engine that reads them (ajv here, schemathesis in Python, client
// generators): ASCII classes (`[0-9]`, never `\d`), no lookaround, anchored with ^ and $.

import { CURSOR_PATTERN } from '../../projections/readModel/cursor.js';
import type { ErrorRule, JsonSchema } from '../http/apiTypes.js';

/**
 * `schema` with the error a value answers when it does not fit, or is missing where required (`rule`), and
 * per failing keyword where that differs (`byKeyword`: `maxItems` → `payload_too_many`, say).
 */
export function answering(schema: JsonSchema, rule: ErrorRule, byKeyword: Readonly<Record<string, ErrorRule>> = {}): JsonSchema {
  const out: Record<string, unknown> = { ...schema, 'x-error': rule };
  for (const [keyword, r] of Object.entries(byKeyword)) out[`x-error-${keyword}`] = r;
  return out;
}

/** `schema` with a description. */
export const described = (schema: JsonSchema, description: string): JsonSchema => ({ ...schema, description });

// ---- Decimal integers and amounts as text ----

const digitRange = (lo: number, hi: number): string => (lo === hi ? String(lo) : `[${lo}-${hi}]`);
const anyDigits = (n: number): string => (n === 0 ? '' : n === 1 ? '[0-9]' : `[0-9]{${n}}`);

/** Strings of exactly s.length digits whose value is at most s, the first digit at least `lowFirst`. */
function digitsUpTo(s: string, lowFirst: number): string {
  const parts: string[] = [];
  for (let i = 0; i < s.length; i++) {
    const d = Number(s[i]);
    const lo = i === 0 ? lowFirst : 0;
    if (d > lo) parts.push(s.slice(0, i) + digitRange(lo, d - 1) + anyDigits(s.length - i - 1));
  }
  parts.push(s);
  return parts.length === 1 ? s : `(?:${parts.join('|')})`;
}

/** A regex body (no anchors) of the decimal integers from 0 (or 1) to max, without leading zeros. */
export function uintUpTo(max: bigint, opts: { positive?: boolean } = {}): string {
  const s = max.toString();
  const first = opts.positive === true ? 1 : 0;
  if (s.length === 1) return digitRange(first, Number(s));
  const parts = [opts.positive === true ? undefined : '0', s.length === 2 ? '[1-9]' : `[1-9][0-9]{0,${s.length - 2}}`, digitsUpTo(s, 1)];
  return `(?:${parts.filter((p) => p !== undefined).join('|')})`;
}

/** A regex body of digit strings of 1 to `digits` characters, leading zeros allowed, whose value is at most max (max has `digits` digits or fewer). */
export function digitsAtMost(max: bigint, digits: number): string {
  const s = max.toString();
  if (s.length > digits) throw new RangeError(`${max} has more than ${digits} digits`);
  const padded = digitsUpTo(s, 0);
  const shorter = s.length === 1 ? undefined : s.length === 2 ? '[0-9]' : `[0-9]{1,${s.length - 1}}`;
  const zeros = digits - s.length;
  const full = zeros === 0 ? padded : `0{0,${zeros}}${padded}`;
  return shorter === undefined ? full : `(?:${shorter}|${full})`;
}

/** A regex body of digit strings of 1 to `digits` characters, leading zeros allowed, whose value is 1 to max. */
export function positiveDigitsAtMost(max: bigint, digits: number): string {
  const s = max.toString();
  if (s.length > digits) throw new RangeError(`${max} has more than ${digits} digits`);
  const parts: string[] = [];
  for (let significant = 1; significant < s.length; significant++) parts.push(`0{0,${digits - significant}}[1-9]${anyDigits(significant - 1)}`);
  parts.push(`0{0,${digits - s.length}}${digitsUpTo(s, 1)}`);
  return `(?:${parts.join('|')})`;
}

/**
 * A regex body of decimal strings with at most `places` decimals whose value × 10^places is at most
 * `maxUnits` (positive: and above zero); the integer part without leading zeros. Needs maxUnits ≥ 10^places.
 */
export function decimalUpTo(maxUnits: bigint, places: number, opts: { positive?: boolean } = {}): string {
  const scale = 10n ** BigInt(places);
  const whole = maxUnits / scale;
  if (whole < 1n) throw new RangeError('decimalUpTo needs a maximum of at least 1');
  const fraction = (maxUnits % scale).toString().padStart(places, '0');
  const anyFraction = `(?:\\.[0-9]{1,${places}})?`;
  const nonZeroFraction = Array.from({ length: places }, (_, zeros) => `${'0'.repeat(zeros)}[1-9]${places - zeros - 1 > 0 ? `[0-9]{0,${places - zeros - 1}}` : ''}`).join('|');
  const fractionsUpTo = Array.from({ length: places }, (_, i) => digitsUpTo(fraction.slice(0, i + 1), 0)).join('|');
  const parts = [
    opts.positive === true ? `0\\.(?:${nonZeroFraction})` : `0${anyFraction}`,
    whole >= 2n ? `${uintUpTo(whole - 1n, { positive: true })}${anyFraction}` : undefined,
    `${whole}(?:\\.(?:${fractionsUpTo}))?`,
  ];
  return `(?:${parts.filter((p) => p !== undefined).join('|')})`;
}

/** An anchored pattern from a regex body. */
export const anchored = (body: string): string => `^${body}$`;

/** A pattern of the given words in any letter case (`buy`, `Buy`, `BUY`). */
export function anyCase(words: readonly string[]): string {
  const word = (w: string): string => [...w].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toUpperCase()}${c.toLowerCase()}]`)).join('');
  return `^(?:${words.map(word).join('|')})$`;
}

// ---- Identifiers ----

/** A decimal token id as the order-book reads take it (upstream §0): 1 to 78 digits. */
export const TOKEN_ID_PATTERN = '^[0-9]{1,78}$';
/** A condition id (also an order id's form): 0x + 64 hex digits, any case. */
export const CONDITION_ID_PATTERN = '^0x[0-9a-fA-F]{64}$';
/** An address: 0x + 40 hex digits, any case. */
export const ADDRESS_PATTERN = '^0x[0-9a-fA-F]{40}$';
/** bytes32 hex (builder codes): 0x + 64 hex digits, any case. */
export const BYTES32_PATTERN = CONDITION_ID_PATTERN;
/** An order id: the EIP-712 hash of the signed order, 0x + 64 hex digits, any case. */
export const ORDER_ID_PATTERN = CONDITION_ID_PATTERN;
/** Unix seconds as the order-book surface takes them: 0 to 2^32 − 1 (ClickHouse DateTime), no leading zeros. */
export const UNIX_SECONDS_PATTERN = anchored(uintUpTo(2n ** 32n - 1n));
/** A uint256 in decimal as signed orders carry it: up to 80 digits, leading zeros allowed, below 2^256. */
export const UINT256_PATTERN = anchored(digitsAtMost(2n ** 256n - 1n, 80));
/** A side of an order in any letter case. */
export const SIDE_PATTERN = anyCase(['BUY', 'SELL']);

export const TOKEN_ID = new RegExp(TOKEN_ID_PATTERN);
export const CONDITION_ID = new RegExp(CONDITION_ID_PATTERN);
export const ADDRESS = new RegExp(ADDRESS_PATTERN);
export const UNIX_SECONDS = new RegExp(UNIX_SECONDS_PATTERN);

const text = (pattern: string, maxLength: number, description: string): JsonSchema => ({ type: 'string', pattern, maxLength, description });

/** A token id; `Invalid token id` otherwise. */
export const tokenId = (description = 'Token id (decimal).'): JsonSchema => answering(text(TOKEN_ID_PATTERN, 78, description), 'invalid_token_id');
/** A condition id; `Invalid market` otherwise. */
export const conditionId = (description = 'Condition id: 0x + 64 hex digits.'): JsonSchema => answering(text(CONDITION_ID_PATTERN, 66, description), 'invalid_market');
/** An order id; `Invalid orderID` otherwise. */
export const orderId = (description = 'Order id: 0x + 64 hex digits.'): JsonSchema => answering(text(ORDER_ID_PATTERN, 66, description), 'invalid_order_id');
/** An address; a 400 naming the parameter otherwise. */
export const address = (name: string, description = 'Address: 0x + 40 hex digits, any case.'): JsonSchema =>
  answering(text(ADDRESS_PATTERN, 42, description), { code: 'bad_request', detail: `${name}: must be an address (0x + 40 hex digits)` });
/** Unix seconds; a 400 naming the parameter otherwise. */
export const unixSeconds = (name: string, description = 'Unix seconds.'): JsonSchema =>
  answering(text(UNIX_SECONDS_PATTERN, 10, `${description} 0 to 4294967295, no leading zeros.`), { code: 'bad_request', detail: `${name}: must be a Unix timestamp in seconds` });
/** BUY or SELL in any letter case; `Invalid side` otherwise. */
export const side = (description = 'BUY or SELL, any letter case.'): JsonSchema => answering(text(SIDE_PATTERN, 4, description), 'invalid_side');

// ---- Cursors of the order-book surface ----

// Exactly the cursors the read model issues (projections/readModel/cursor.ts, which owns their form).
export { CURSOR_PATTERN };

/** A page cursor; a 400 otherwise. Empty or absent: the first page. */
export const cursor = (description = 'Cursor of the page: MA== (or empty) for the first, the previous page\'s next_cursor for the next; LTE= answers an empty last page. Only cursors this service issued: the base64 of a decimal offset.'): JsonSchema =>
  answering(text(CURSOR_PATTERN, 12, description), { code: 'bad_request', detail: 'next_cursor: is not a cursor this service issued' });

// ---- Lists ----

/**
 * A comma-separated list parameter (an array of `items`), at most `maxItems`, each item answering its own
 * error; more items than that answer `tooMany` (the item's error by default).
 */
export function list(items: JsonSchema, maxItems: number, description: string, opts: { minItems?: number; tooMany?: ErrorRule; missing?: ErrorRule } = {}): JsonSchema {
  const itemRule = items['x-error'] as ErrorRule | undefined;
  const rule = opts.missing ?? itemRule ?? 'bad_request';
  return answering(
    { type: 'array', items, ...(opts.minItems === undefined ? {} : { minItems: opts.minItems }), maxItems, description },
    rule,
    opts.tooMany === undefined ? {} : { maxItems: opts.tooMany },
  );
}
