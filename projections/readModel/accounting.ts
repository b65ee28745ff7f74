// GET /v1/accounting/snapshot: the two CSV files of upstream's accounting snapshot, of one valuation time.
//   positions.csv  conditionId,asset,size,curPrice,valuationTime: each position held (size > 0), by
//                  condition id then outcome; asset `<condition_id>:<outcome_index>` as every activity read
//   equity.csv     cashBalance,positionsValue,equity,valuationTime: one row. cashBalance = the wallet's
//                  collateral in the engine (free and held by open orders); positionsValue = Σ size ×
//                  curPrice rounded per position as /value; equity = their sum
// Numbers with 6 decimals (exact base units), times RFC 3339 UTC to the second.

import type { MarketInfo } from './markets.js';
import { curPriceOf, valueOf, type HeldPosition } from './portfolio.js';
import { assetOf } from './wire.js';

/** Base units or micro-units as a decimal with exactly 6 places. */
export function sixDecimals(units: number): string {
  const sign = units < 0 ? '-' : '';
  const abs = Math.abs(units);
  return `${sign}${Math.floor(abs / 1_000_000)}.${String(abs % 1_000_000).padStart(6, '0')}`;
}

/** RFC 3339, UTC, whole seconds. */
export const rfc3339 = (ms: number): string => `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;

export interface AccountingFiles {
  readonly positionsCsv: string;
  readonly equityCsv: string;
}

/** The files from the wallet's held positions, their markets and marks, its collateral and the time. */
export function accountingFiles(rows: readonly HeldPosition[], info: ReadonlyMap<string, MarketInfo>, marks: ReadonlyMap<string, number>, cashBalance: number, valuationMs: number): AccountingFiles {
  const at = rfc3339(valuationMs);
  const held = [...rows].filter((r) => r.size > 0).sort((a, b) => (a.condition_id !== b.condition_id ? (a.condition_id < b.condition_id ? -1 : 1) : a.outcome - b.outcome));
  let value = 0;
  const lines = ['conditionId,asset,size,curPrice,valuationTime'];
  for (const r of held) {
    const price = curPriceOf(r.outcome, info.get(r.condition_id), marks.get(r.token_id));
    value += valueOf(r.size, price);
    lines.push(`${r.condition_id},${assetOf(r.condition_id, r.outcome)},${sixDecimals(r.size)},${sixDecimals(price)},${at}`);
  }
  return {
    positionsCsv: `${lines.join('\n')}\n`,
    equityCsv: `cashBalance,positionsValue,equity,valuationTime\n${sixDecimals(cashBalance)},${sixDecimals(value)},${sixDecimals(cashBalance + value)},${at}\n`,
  };
}
