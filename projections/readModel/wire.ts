// Integer units → the wire: floats for the activity surface (JSON numbers), decimal strings for the
// order-book surface, and the identifiers we derive (asset form, transaction hash).

import { hash } from 'node:crypto';
import { formatUnits, UNIT } from '../../engine/index.js';

/** Base units or price micro-units → a JSON number (shares, USDC, or a price in [0, 1]). */
export function toFloat(units: number): number {
  return units / UNIT;
}

/** Base units or price micro-units → a plain decimal string ("0.42", "10", "1.5"). */
export function toDecimal(units: number): string {
  return formatUnits(units);
}

/** The activity surface's asset form (spec §1): `<condition_id>:<outcome_index>`. */
export function assetOf(conditionId: string, outcome: number): string {
  return `${conditionId}:${outcome}`;
}

/**
 * The `transactionHash` / `transaction_hash` of a fill. Fills settle inside the exchange, not on a chain, so
 * there is no transaction: we give every fill a stable id of the same shape, `0x` + sha256 of
 * `fill:<fill id>` in hex. Both sides of a fill share it; replaying the log reproduces it.
 */
export function transactionHashOf(fillId: string): string {
  // crypto.hash, the one-shot form: half the time of a Hash object, and every trade read shows up to 1,000.
  return `0x${hash('sha256', `fill:${fillId}`, 'hex')}`;
}
