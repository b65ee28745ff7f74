// Query-string parsing for the catalog surface. Liberal where that is safe: an empty value counts as absent,
// list parameters accept repeated keys and comma-separated values, unknown parameters are ignored (as the
// upstream does). Booleans are exactly true or false, as the OpenAPI document says (catalogApiRoutes.ts). Strict where a wrong guess would mislead: a
// malformed number or boolean, an unknown sort column, or a bound the spec sets is a 400.
//
// Limits (the spec fixes only /series; the others are decided here):
// | endpoint          | limit default | limit range                        | offset       |
// |-------------------|---------------|------------------------------------|--------------|
// | GET /markets      | 20            | 0..500, larger values are clamped  | >= 0         |
// | GET /events       | 20            | 0..500, larger values are clamped  | >= 0         |
// | GET /tags         | 100           | 0..1000, larger values are clamped | >= 0         |
// | GET /series       | 20            | 1..100 (spec 8.4), else 400        | >= 0         |
// | GET /public-search| 10 per type   | 1..50, larger values are clamped   | page >= 1    |

import { BadRequest } from './catalogErrors.js';
import { resolveOrder, type Page, type Sort, type SortColumns } from '../../catalog/queries.js';

export interface LimitRule {
  readonly default: number;
  readonly min: number;
  readonly max: number;
  /** Above max: clamp (true) or 400 (false). */
  readonly clamp: boolean;
}

export const LIMITS = {
  markets: { default: 20, min: 0, max: 500, clamp: true },
  events: { default: 20, min: 0, max: 500, clamp: true },
  tags: { default: 100, min: 0, max: 1000, clamp: true },
  series: { default: 20, min: 1, max: 100, clamp: false },
  search: { default: 10, min: 1, max: 50, clamp: true },
} as const satisfies Record<string, LimitRule>;

/** The first non-empty value among a parameter and its aliases. */
export function text(query: URLSearchParams, ...names: string[]): string | undefined {
  for (const name of names) {
    for (const value of query.getAll(name)) {
      const trimmed = value.trim();
      if (trimmed !== '') return trimmed;
    }
  }
  return undefined;
}

/** Every value of a list parameter and its aliases (repeated keys, comma-separated), or undefined if none. */
export function list(query: URLSearchParams, ...names: string[]): string[] | undefined {
  const out: string[] = [];
  for (const name of names) {
    for (const value of query.getAll(name)) {
      for (const item of value.split(',')) {
        const trimmed = item.trim();
        if (trimmed !== '' && !out.includes(trimmed)) out.push(trimmed);
      }
    }
  }
  return out.length === 0 ? undefined : out;
}

export function bool(query: URLSearchParams, name: string): boolean | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new BadRequest(`${name} must be true or false`);
}

function integerOf(name: string, value: string, min: number): number {
  if (!/^[+-]?\d+$/.test(value)) throw new BadRequest(`${name} must be an integer`);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) throw new BadRequest(`${name} must be an integer of at least ${min}`);
  return n;
}

export function int(query: URLSearchParams, name: string, min: number): number | undefined {
  const value = text(query, name);
  return value === undefined ? undefined : integerOf(name, value, min);
}

/** An integer-id list parameter (tag_id, event_id): every item must be a non-negative integer. */
export function intList(query: URLSearchParams, ...names: string[]): string[] | undefined {
  const values = list(query, ...names);
  if (values === undefined) return undefined;
  return values.map((v) => String(integerOf(names[0] as string, v, 0)));
}

export function limitOf(query: URLSearchParams, rule: LimitRule, name = 'limit'): number {
  const value = text(query, name);
  if (value === undefined) return rule.default;
  const n = integerOf(name, value, rule.min);
  if (n <= rule.max) return n;
  if (rule.clamp) return rule.max;
  throw new BadRequest(`${name} must be an integer from ${rule.min} to ${rule.max}`);
}

export function pageOf(query: URLSearchParams, rule: LimitRule): Page {
  return { limit: limitOf(query, rule), offset: int(query, 'offset', 0) ?? 0 };
}

/**
 * `order` (comma-separated field names from `columns`) and `ascending`. Without `order` the list is by id,
 * ascending unless `ascending=false`; with `order`, descending unless `ascending=true`.
 */
export function sortOf(query: URLSearchParams, columns: SortColumns): Sort {
  const ascending = bool(query, 'ascending');
  const order = text(query, 'order');
  if (order === undefined) return { columns: [], ascending: ascending ?? true };
  const resolved = resolveOrder(order, columns);
  if ('unknown' in resolved) throw new BadRequest(`order: unknown field ${resolved.unknown}`);
  return { columns: resolved.columns, ascending: ascending ?? false };
}

/** The `creator` scope, when given. */
export function creatorOf(query: URLSearchParams): string | undefined {
  return text(query, 'creator');
}
