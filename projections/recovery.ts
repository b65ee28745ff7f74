// Redoing the pending batch after a crash, without relying on rows that merges may have discarded.
//
// The in-memory state is restored from the latest-state tables (restoreState.ts): "as of position P" means
// each key's row with the greatest version <= P. That row survives only while no newer row of the key is in
// the same part: once some of the pending batch's rows have landed, a ReplacingMergeTree merge may keep only
// those, and the state as of P is gone for those keys. So a builder whose table already holds rows of the
// pending batch is restored as of the batch's end instead (its rows are the batch's result), and does not
// apply the batch again ("landed"); the others are restored as of P and rebuild their rows.
//
// This is sound because the tables are inserted one at a time, in PROJECTED_TABLES order (schema.ts): the
// tables whose rows depend on a builder's state before the batch come before that builder's own table. If a
// builder's table has landed, every table depending on it has landed too and is not rebuilt (the closure
// below), while every table still to insert depends only on builders restored as of P.
//
//   table           its rows depend on the state before the batch of
//   reward_*        -
//   ledger_events   -
//   fills           orders (builder codes, remaining sizes)
//   order_events    orders
//   book_*          prices (last trades), orders (books), markets (builders/bookHistory.ts)
//   price_history   prices (last trades), orders (books), markets
//   positions       positions, markets
//   orders          orders
//   engine_markets  markets
//   account_totals  accounts
//
// A table without rows of the batch reports "not landed": its builder did not change in the batch, so
// either restore gives the same state.

import type { ClickHouseClient } from '@clickhouse/client';
import type { RowSink } from './rows.js';

export type BuilderName = 'markets' | 'orders' | 'positions' | 'prices' | 'accounts';

/** The latest-state table that holds each builder's state. */
const STATE_TABLE: Readonly<Record<BuilderName, string>> = { prices: 'price_history', positions: 'positions', orders: 'orders', markets: 'engine_markets', accounts: 'account_totals' };

/** Builders that must be taken as landed when one is (their tables come before its table). */
const IMPLIED: Readonly<Record<BuilderName, readonly BuilderName[]>> = { accounts: ['markets', 'orders', 'positions', 'prices'], markets: ['orders', 'positions', 'prices'], orders: ['prices'], positions: [], prices: [] };

/** The builders whose tables hold rows of the batch [from, to], closed under IMPLIED. */
export async function landedBuilders(ch: ClickHouseClient, db: string, from: number, to: number): Promise<Set<BuilderName>> {
  const names = Object.keys(STATE_TABLE) as BuilderName[];
  const result = await ch.query({
    query: `SELECT ${names.map((b) => `(SELECT count() FROM ${db}.${STATE_TABLE[b]} WHERE version BETWEEN {from:UInt64} AND {to:UInt64}) AS ${b}`).join(', ')}`,
    format: 'JSONEachRow',
    query_params: { from, to },
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  });
  const [row] = (await result.json()) as Record<BuilderName, number>[];
  const landed = new Set<BuilderName>();
  for (const b of names) {
    if (Number(row?.[b] ?? 0) === 0) continue;
    landed.add(b);
    for (const implied of IMPLIED[b]) landed.add(implied);
  }
  return landed;
}

/**
 * Append-only tables (MergeTree, no version) and the tables ClickHouse derives from them. The redo of a
 * pending batch writes each one it has rows for afresh, so the rows of the batch's range that an earlier
 * attempt left there are deleted first; the latest-state tables need no such step (a row again at the
 * same version changes nothing) and neither does latest_prices (argMax states merge to the same value).
 */
const APPENDED: readonly { readonly table: 'reward_samples' | 'reward_earnings' | 'ledger_events' | 'fills' | 'order_events' | 'book_level_changes' | 'book_changes' | 'book_snapshots'; readonly alsoClears: readonly string[] }[] = [
  { table: 'reward_samples', alsoClears: [] },
  { table: 'reward_earnings', alsoClears: [] },
  { table: 'ledger_events', alsoClears: [] },
  { table: 'fills', alsoClears: ['fill_sides', 'order_events'] },
  { table: 'order_events', alsoClears: [] },
  { table: 'book_level_changes', alsoClears: [] },
  { table: 'book_changes', alsoClears: [] },
  { table: 'book_snapshots', alsoClears: [] },
];

/**
 * Deletes the rows of positions from..to from every append-only table the redo `rows` writes to (fills
 * also from the tables its views write), before the redo inserts them again. A table the redo leaves out
 * (its builder's rows had landed, see above) keeps its rows. Deleting twice, after a crash during this
 * step or the inserts after it, deletes the same range again.
 */
export async function clearAppendedRows(ch: ClickHouseClient, db: string, rows: RowSink, from: number, to: number): Promise<void> {
  const tables = new Set<string>();
  for (const { table, alsoClears } of APPENDED) {
    if (rows.rows(table) === 0) continue;
    tables.add(table);
    for (const t of alsoClears) tables.add(t);
  }
  for (const table of tables) {
    await ch.command({ query: `DELETE FROM ${db}.${table} WHERE pos BETWEEN {from:UInt64} AND {to:UInt64}`, query_params: { from, to } });
  }
}
