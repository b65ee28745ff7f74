// What the operator API accepts, checked exactly before anything reaches the engine, so a malformed request
// changes nothing (not even the engine's sequence number):
//
// - Addresses: `0x` + 40 hex digits in any case (checksummed ones too), lower-cased, as the engine keys
//   accounts.
// - Condition ids: `0x` + 64 hex digits, lower-cased. Token ids: decimal uint256 without leading zeros.
// - Amounts of USDC and share quantities: decimal strings with at most 6 decimals ("100", "100.5",
//   "0.000001"), converted to base units with integer arithmetic (never a float). JSON numbers are refused,
//   because a float cannot carry every 6-decimal amount exactly.
// - Bodies: JSON objects of the route's schema, unknown fields refused (a typo must not pass unnoticed).

import { Ajv, type ValidateFunction } from 'ajv';
import { LOT, MAX_BALANCE, MAX_ORDER_AMOUNT, PRICE_ONE, UNIT, formatUnits, isValidTick } from '../../engine/index.js';
import { badRequest } from '../http/apiErrors.js';
import type { JsonSchema } from '../http/apiTypes.js';
import { validationError } from '../http/schemas.js';
import { conditionIdOf } from '../clob/clobInputs.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const TOKEN_ID = /^(0|[1-9][0-9]{0,77})$/;
const UINT256_LIMIT = 2n ** 256n;
/** At most 16 integer digits, so the value is checked against its limit as a bigint before it is a number. */
const DECIMAL = /^(0|[1-9][0-9]{0,15})(?:\.([0-9]{1,6}))?$/;

const ajv = new Ajv({ coerceTypes: false, useDefaults: false, allErrors: false, strict: false });

/** A body validator compiled once. */
export function bodyValidator(schema: JsonSchema): ValidateFunction {
  return ajv.compile(schema);
}

/** The raw body as JSON checked against `validate`; 400 bad_request otherwise. */
export function readBody<B>(raw: string, validate: ValidateFunction): B {
  let body: unknown;
  try {
    body = JSON.parse(raw) as unknown;
  } catch {
    throw badRequest(raw === '' ? 'a JSON body is required' : 'body is not valid JSON');
  }
  if (!validate(body)) throw validationError(validate.errors, 'body');
  return body as B;
}

export function address(value: string, name: string): string {
  if (!ADDRESS.test(value)) throw badRequest(`${name} must be 0x followed by 40 hex digits`);
  return value.toLowerCase();
}

export function conditionId(value: string): string {
  return conditionIdOf(value).toLowerCase();
}

/** A neg-risk event id (upstream's neg-risk market id): 0x + 64 hex, answered lower-case. */
export function negRiskMarketId(value: string, name = 'negRiskMarketId'): string {
  if (!/^0x[0-9a-fA-F]{64}$/.test(value)) throw badRequest(`${name} must be 0x + 64 hex digits (a neg-risk market id)`);
  return value.toLowerCase();
}

export function tokenId(value: string, name: string): string {
  if (!TOKEN_ID.test(value) || BigInt(value) >= UINT256_LIMIT) throw badRequest(`${name} must be a decimal token id (uint256, no leading zeros)`);
  return value;
}

/** A decimal string with at most 6 decimals, in base units (millionths), exactly. */
export function decimalUnits(value: string, name: string): bigint {
  const match = DECIMAL.exec(value);
  if (match === null) throw badRequest(`${name} must be a decimal string with at most 6 decimals, such as "100.5"`);
  const whole = BigInt(match[1] as string);
  const fraction = BigInt((match[2] ?? '').padEnd(6, '0'));
  return whole * BigInt(UNIT) + fraction;
}

/** A positive amount of USDC, at most the engine's balance limit, in base units. */
export function usdcAmount(value: string, name = 'amount'): number {
  const units = decimalUnits(value, name);
  if (units <= 0n) throw badRequest(`${name} must be positive`);
  if (units > BigInt(MAX_BALANCE)) throw badRequest(`${name} must be at most ${formatUnits(MAX_BALANCE)}`);
  return Number(units);
}

/** A tick size ("0.01") in price units: a multiple of 0.0001 that divides 1 and is below 0.5. */
export function tickSize(value: string): number {
  const units = decimalUnits(value, 'tickSize');
  const tick = units < BigInt(PRICE_ONE) ? Number(units) : 0;
  if (!isValidTick(tick)) throw badRequest('tickSize must be a multiple of 0.0001 that divides 1 and is below 0.5');
  return tick;
}

/** A minimum order size in shares ("5") in base units: a positive whole number of lots of 0.01 share. */
export function minSize(value: string): number {
  const units = decimalUnits(value, 'minSize');
  if (units < BigInt(LOT) || units > BigInt(MAX_ORDER_AMOUNT) || units % BigInt(LOT) !== 0n) {
    throw badRequest(`minSize must be a positive multiple of 0.01 share, at most ${formatUnits(MAX_ORDER_AMOUNT)}`);
  }
  return Number(units);
}
