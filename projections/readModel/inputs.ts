// Checks of query parameters, shared by the query functions. Each returns the value to use (the default
// when the parameter is absent) or throws ReadModelInputError naming the parameter. Amounts given in
// shares or USDC become 6-decimal base units here, rounded to the nearest unit.

import { UNIT } from '../../engine/index.js';
import { ReadModelInputError } from './errors.js';

/** An integer in [min, max]; `fallback` when absent. */
export function intIn(param: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new ReadModelInputError(param, `must be an integer from ${min} to ${max}`);
  return value;
}

/** A finite amount >= 0 in shares or USDC → base units; `fallback` (base units) when absent. */
export function baseUnitsAtLeastZero(param: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value * UNIT > Number.MAX_SAFE_INTEGER) {
    throw new ReadModelInputError(param, 'must be a number >= 0');
  }
  return Math.round(value * UNIT);
}

/** One of `allowed` (case-insensitive, returned in the allowed spelling); `fallback` when absent. */
export function oneOf<T extends string>(param: string, value: string | undefined, allowed: readonly T[], fallback: T): T;
export function oneOf<T extends string>(param: string, value: string | undefined, allowed: readonly T[]): T | undefined;
export function oneOf<T extends string>(param: string, value: string | undefined, allowed: readonly T[], fallback?: T): T | undefined {
  if (value === undefined) return fallback;
  const found = allowed.find((a) => a.toLowerCase() === String(value).toLowerCase());
  if (found === undefined) throw new ReadModelInputError(param, `must be one of ${allowed.join(', ')}`);
  return found;
}

/** A non-empty string of at most `maxLength` characters, or undefined. */
export function text(param: string, value: string | undefined, maxLength = 200): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > maxLength) throw new ReadModelInputError(param, `must be a string of at most ${maxLength} characters`);
  return value;
}

/** A list of identifiers (duplicates dropped, order kept); undefined when absent. */
export function idList(param: string, value: readonly string[] | undefined, maxItems: number): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v.length === 0 || v.length > 200)) {
    throw new ReadModelInputError(param, 'must be a list of non-empty identifiers');
  }
  const unique = [...new Set(value)];
  if (unique.length > maxItems) throw new ReadModelInputError(param, `at most ${maxItems} values`);
  return unique;
}

/** A Unix-seconds timestamp given as a string of digits (the order-book surface's form), or undefined. */
export function unixSeconds(param: string, value: string | number | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const s = String(value);
  if (!/^\d{1,12}$/.test(s)) throw new ReadModelInputError(param, 'must be a Unix timestamp in seconds');
  return Number(s);
}
