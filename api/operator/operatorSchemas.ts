// The value formats of the operator API's bodies and path parameters: every rule operatorInputs.ts applies,
// as one exact pattern per value with its message (`x-error-pattern`), so the server checks them (after the
// token) and the OpenAPI document states them. A missing value or one of the wrong JSON type answers the
// generic message (`amount is required`, `amount must be a string`).

import { LOT, MAX_BALANCE, MAX_ORDER_AMOUNT, PRICE_ONE, UNIT, formatUnits, isValidTick } from '../../engine/index.js';
import type { ErrorRule, JsonSchema } from '../http/apiTypes.js';
import { ADDRESS_PATTERN, anchored, CONDITION_ID_PATTERN, decimalUpTo, uintUpTo } from '../schemas/formats.js';

const bad = (detail: string): ErrorRule => ({ code: 'bad_request', detail });
/** A string whose pattern answers `detail` (missing and wrong types answer the generic messages). */
const text = (pattern: string, detail: string, description: string): JsonSchema => ({ type: 'string', pattern, 'x-error-pattern': bad(detail), description });

export const address = (name: string, description = 'Address: 0x + 40 hex digits, any case.'): JsonSchema => text(ADDRESS_PATTERN, `${name} must be 0x followed by 40 hex digits`, description);

export const conditionId = (description = 'Condition id: 0x + 64 hex digits.'): JsonSchema => ({ type: 'string', pattern: CONDITION_ID_PATTERN, 'x-error-pattern': 'invalid_market', description });

export const negRiskMarketId = (name: string, description = 'Neg-risk market id (of the event): 0x + 64 hex digits.'): JsonSchema =>
  text(CONDITION_ID_PATTERN, `${name} must be 0x + 64 hex digits (a neg-risk market id)`, description);

/** A decimal uint256 without leading zeros. `{name}` is the value's place (tokenIds.0). */
export const tokenId = (description = 'Token id: a decimal uint256 without leading zeros.'): JsonSchema =>
  text(anchored(uintUpTo(2n ** 256n - 1n)), '{name} must be a decimal token id (uint256, no leading zeros)', description);

/** A positive USDC amount up to the engine's balance limit. */
export const usdcAmount = (name = 'amount'): JsonSchema =>
  text(
    anchored(decimalUpTo(BigInt(MAX_BALANCE), 6, { positive: true })),
    `${name} must be a decimal string with at most 6 decimals, above 0 and at most ${formatUnits(MAX_BALANCE)}, such as "100.5"`,
    `USDC as a decimal string, at most 6 decimals, above 0 and at most ${formatUnits(MAX_BALANCE)}.`,
  );

/** Every spelling of every valid tick: a multiple of 0.0001 that divides 1 and is below 0.5, at most 6 decimals. */
function tickSpellings(): string {
  const out: string[] = [];
  for (let units = 1; units < PRICE_ONE; units++) {
    if (!isValidTick(units)) continue;
    const digits = String(units).padStart(6, '0').replace(/0+$/, '');
    out.push(`0\\.${digits}${digits.length < 6 ? `0{0,${6 - digits.length}}` : ''}`);
  }
  return `^(?:${out.join('|')})$`;
}

export const tickSize = (): JsonSchema =>
  text(tickSpellings(), 'tickSize must be a multiple of 0.0001 that divides 1 and is below 0.5, as a decimal string of at most 6 decimals', 'Tick size as a decimal string: a multiple of 0.0001 that divides 1 and is below 0.5 (default "0.01").');

/** A positive multiple of a lot (0.01 share) up to MAX_ORDER_AMOUNT base units. */
function minSizePattern(): string {
  const lotDecimals = 6 - Math.log10(LOT);
  const maxShares = BigInt(MAX_ORDER_AMOUNT / UNIT);
  const fraction = `(?:\\.[0-9]{1,${lotDecimals}}0{0,${6 - lotDecimals}})?`;
  const belowOne = `0\\.(?:0[1-9]|[1-9][0-9]?)0{0,${6 - lotDecimals}}`;
  return `^(?:${belowOne}|${uintUpTo(maxShares - 1n, { positive: true })}${fraction}|${maxShares}(?:\\.0{1,6})?)$`;
}

export const minSize = (): JsonSchema =>
  text(
    minSizePattern(),
    `minSize must be a positive multiple of 0.01 share, at most ${formatUnits(MAX_ORDER_AMOUNT)}, as a decimal string of at most 6 decimals`,
    `Minimum order size in shares as a decimal string: a positive multiple of 0.01, at most ${formatUnits(MAX_ORDER_AMOUNT)} (default "5").`,
  );
