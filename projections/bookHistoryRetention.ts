// How long the book history is kept (--book-history-retention-days): a ClickHouse TTL on its three tables,
// set (or removed, for 0 = keep everything) each time the projector starts, so that a changed setting takes
// effect at the next start. ClickHouse drops expired rows in its merges: parts past the TTL go without a
// query touching them. A book older than the retention can no longer be rebuilt; /orderbook-history and
// GET /book?at= then answer as before the token's first book (none).

import type { ClickHouseClient } from '@clickhouse/client';

export const BOOK_HISTORY_TABLES = ['book_level_changes', 'book_changes', 'book_snapshots'] as const;

/** Sets the tables' TTL to `days` (0: none). */
export async function applyBookHistoryRetention(ch: ClickHouseClient, db: string, days: number): Promise<void> {
  if (!Number.isSafeInteger(days) || days < 0) throw new Error(`book history retention must be a whole number of days, not ${days}`);
  const result = await ch.query({
    query: `SELECT name, engine_full FROM system.tables WHERE database = {db:String} AND name IN ({names:Array(String)})`,
    query_params: { db, names: [...BOOK_HISTORY_TABLES] },
    format: 'JSONEachRow',
  });
  const tables = (await result.json()) as { name: string; engine_full: string }[];
  for (const { name, engine_full } of tables) {
    const hasTtl = / TTL /.test(engine_full);
    if (days > 0) await ch.command({ query: `ALTER TABLE ${db}.${name} MODIFY TTL toDateTime(time) + INTERVAL ${days} DAY` });
    else if (hasTtl) await ch.command({ query: `ALTER TABLE ${db}.${name} REMOVE TTL` });
  }
}
