// Start-up of the fill windows (fillWindows.ts) from the `fills` table as of the projector's committed
// position `at`: the newest fills up to the global bound, whole records only (a record's fills all load or
// none do), added oldest first as the log would add them, so each window holds what following the log would
// have left in it. Accounts with fills older than those loaded are marked as missing some: their reads that
// reach past the window go to ClickHouse.

import type { ClickHouseClient } from '@clickhouse/client';
import type { FillWindows } from './fillWindows.js';

const READ = { output_format_json_quote_64bit_integers: 0 } as const;
/** Accounts per query when marking those with older fills. */
const ACCOUNTS_PER_QUERY = 5_000;

const COLUMNS = `fill_id, toUnixTimestamp64Milli(time) AS time_ms, condition_id, size, bucket_index,
  taker_order_id, taker_account, taker_owner, taker_token_id, taker_outcome, taker_side, taker_price, taker_fee_bps, taker_amount,
  maker_order_id, maker_account, maker_owner, maker_token_id, maker_outcome, maker_side, maker_price, maker_fee_bps, maker_amount`;

/** A `fills` row in COLUMNS' order (JSONCompactEachRow: an array per row, a third of the bytes of named fields). */
type Row = [
  string, number, string, number, number,
  string, string, string, string, number, 'BUY' | 'SELL', number, number, number,
  string, string, string, string, number, 'BUY' | 'SELL', number, number, number,
];

async function query(ch: ClickHouseClient, sql: string, params: Record<string, unknown>): Promise<unknown[]> {
  const result = await ch.query({ query: sql, format: 'JSONCompactEachRow', query_params: params, clickhouse_settings: READ });
  return (await result.json()) as unknown[];
}

/** Fills `windows` (empty) with the newest fills at or before log position `at`. */
export async function restoreFills(ch: ClickHouseClient, db: string, at: number, windows: FillWindows): Promise<void> {
  if (at <= 0 || !windows.enabled) return;
  // The position of the newest fill beyond the bound: fills at or before it stay in ClickHouse.
  const cutRows = (await query(ch, `SELECT pos FROM ${db}.fills WHERE pos <= {at:UInt64} ORDER BY pos DESC LIMIT 1 OFFSET {bound:UInt64}`, { at, bound: windows.maxFills })) as [number][];
  const cut = Number(cutRows[0]?.[0] ?? 0);
  const rows = (await query(ch, `SELECT ${COLUMNS} FROM ${db}.fills WHERE pos > {cut:UInt64} AND pos <= {at:UInt64} ORDER BY pos, bucket_index`, { cut, at })) as Row[];
  for (const r of rows) {
    windows.add(
      r[0], Number(r[1]), r[2], Number(r[3]), Number(r[4]),
      r[5], r[6], r[7], r[8], Number(r[9]), r[10], Number(r[11]), Number(r[12]), Number(r[13]),
      r[14], r[15], r[16], r[17], Number(r[18]), r[19], Number(r[20]), Number(r[21]), Number(r[22]),
    );
  }
  if (cut === 0) return;
  const accounts = [...windows.heldAccounts()];
  for (let i = 0; i < accounts.length; i += ACCOUNTS_PER_QUERY) {
    const some = accounts.slice(i, i + ACCOUNTS_PER_QUERY);
    const older = (await query(ch, `SELECT DISTINCT account FROM ${db}.fill_sides WHERE account IN {some:Array(String)} AND pos <= {cut:UInt64}`, { some, cut })) as [string][];
    for (const [account] of older) windows.markDropped(account);
  }
}
