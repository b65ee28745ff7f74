// Start-up of the ledger windows (ledgerWindows.ts) from `ledger_events` as of the projector's committed
// position `at`: the newest entries of the activity kinds up to the global bound, added oldest first as the
// log would add them. Every account with entries older than those loaded is marked as missing some (an
// account without a window counts as having none otherwise).

import type { ClickHouseClient } from '@clickhouse/client';
import { ACTIVITY_LEDGER_KINDS, type LedgerKind, type LedgerWindows } from './ledgerWindows.js';

const READ = { output_format_json_quote_64bit_integers: 0 } as const;

async function query(ch: ClickHouseClient, sql: string, params: Record<string, unknown>): Promise<unknown[]> {
  const result = await ch.query({ query: sql, format: 'JSONCompactEachRow', query_params: params, clickhouse_settings: READ });
  return (await result.json()) as unknown[];
}

/** Fills `windows` (empty) with the newest entries at or before log position `at`. */
export async function restoreLedger(ch: ClickHouseClient, db: string, at: number, windows: LedgerWindows): Promise<void> {
  if (at <= 0 || !windows.enabled) return;
  const kinds = ACTIVITY_LEDGER_KINDS;
  const cutRows = (await query(ch, `SELECT pos FROM ${db}.ledger_events WHERE pos <= {at:UInt64} AND kind IN {kinds:Array(String)} ORDER BY pos DESC, seq DESC LIMIT 1 OFFSET {bound:UInt64}`, { at, kinds, bound: windows.maxEntries })) as [number][];
  // Entries at or before the cut stay in ClickHouse (a record's entries all load or none do).
  const cut = Number(cutRows[0]?.[0] ?? 0);
  const rows = (await query(
    ch,
    `SELECT seq, toUnixTimestamp64Milli(time), account, kind, condition_id, amount, payout FROM ${db}.ledger_events
      WHERE pos > {cut:UInt64} AND pos <= {at:UInt64} AND kind IN {kinds:Array(String)} ORDER BY pos, seq`,
    { cut, at, kinds },
  )) as [number, number, string, LedgerKind, string, number, number][];
  for (const r of rows) windows.add(Number(r[0]), Number(r[1]), r[2], r[3], r[4], Number(r[5]), Number(r[6]));
  if (cut === 0) return;
  const older = (await query(ch, `SELECT DISTINCT account FROM ${db}.ledger_events WHERE pos <= {cut:UInt64} AND kind IN {kinds:Array(String)}`, { cut, kinds })) as [string][];
  for (const [account] of older) windows.markDropped(account);
}
