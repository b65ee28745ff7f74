// The book history's cost on disk and its read speed (bench:projections, phase `history`, over the database the
// throughput phase projected): bytes per level change on disk (compressed, with the index of changes and the
// whole books stored beside them), and /orderbook-history's read (projections/readModel/bookHistory.ts, what
// the endpoint runs) for the busiest token over its last hour of changes, pages of 100 at random offsets.

import type { ClickHouseClient } from '../storage/clickhouse.js';
import { bookChangeCount, bookChanges } from '../projections/readModel/bookHistory.js';
import { readContext } from '../projections/readModel/index.js';
import { summarise } from './latency.js';

export interface HistoryFigures {
  readonly levelChanges: number;
  readonly changes: number;
  readonly snapshots: number;
  /** Compressed bytes of the three tables per level change. */
  readonly bytesPerLevelChange: number;
  /** Compressed bytes of book_level_changes alone per row. */
  readonly levelChangeRowBytes: number;
  readonly token: string;
  readonly windowChanges: number;
  readonly queries: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export async function measureHistory(ch: ClickHouseClient, db: string, queries: number): Promise<HistoryFigures> {
  await ch.command({ query: `OPTIMIZE TABLE ${db}.book_level_changes FINAL` });
  const sizes = (await (await ch.query({
    query: `SELECT table, sum(rows) AS rows, sum(data_compressed_bytes) AS bytes FROM system.parts WHERE database = {db:String} AND active AND table LIKE 'book_%' GROUP BY table`,
    query_params: { db }, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })).json()) as { table: string; rows: number; bytes: number }[];
  const of = (t: string): { rows: number; bytes: number } => sizes.find((s) => s.table === t) ?? { rows: 0, bytes: 0 };
  const levels = of('book_level_changes');
  const total = sizes.reduce((n, s) => n + Number(s.bytes), 0);
  const [busiest] = (await (await ch.query({
    query: `SELECT token_id, count() AS n, toUnixTimestamp64Milli(max(time)) AS last FROM ${db}.book_changes GROUP BY token_id ORDER BY n DESC LIMIT 1`,
    format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })).json()) as { token_id: string; n: number; last: number }[];
  const ctx = readContext(ch, db);
  const token = busiest?.token_id ?? '';
  const end = Number(busiest?.last ?? 0);
  const start = end - 3_600_000;
  const windowChanges = await bookChangeCount(ctx, token, start, end);
  const times: number[] = [];
  let seed = 7;
  for (let i = 0; i < queries + 20; i++) {
    seed = (seed * 48271) % 2147483647;
    const offset = Math.max(0, Math.floor((seed / 2147483647) * Math.max(0, windowChanges - 100)));
    const t0 = performance.now();
    await Promise.all([bookChangeCount(ctx, token, start, end), bookChanges(ctx, token, start, end, 100, offset)]);
    if (i >= 20) times.push(performance.now() - t0);
  }
  return {
    levelChanges: Number(levels.rows), changes: Number(of('book_changes').rows), snapshots: Number(of('book_snapshots').rows),
    bytesPerLevelChange: Number(levels.rows) === 0 ? 0 : total / Number(levels.rows), levelChangeRowBytes: Number(levels.rows) === 0 ? 0 : Number(levels.bytes) / Number(levels.rows),
    token, windowChanges, queries, p50Ms: summarise(Float64Array.from(times)).p50Ns, p99Ms: summarise(Float64Array.from(times)).p99Ns,
  };
}
