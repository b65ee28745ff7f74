// Phase 4 of the projection benchmark: GET /v1/leaderboard?timePeriod=ALL at scale, on the positions phase's
// synthetic tables (10M fills between 100k addresses, ≤ 40 tokens and ~200 position versions each; generated
// here when that phase did not run), with `account_totals` filled as migration 4 fills it from those tables.
// Measured, once ClickHouse has finished merging:
//   board       computing the whole all-time board (every trader's PnL from every position held, volumes
//               from account_totals): what a read waits for when no board is kept, and what the background
//               refresh costs
//   reads       leaderboard() as the route calls it, the board kept (the service's default maxAge): pages by
//               PnL and by volume at offsets 0..1000, and single traders' standings
//   moving      the same reads while the projector's position moves at every read and boards older than 1 s
//               are recomputed in the background (ClickHouse busy beside the reads)

import type { ClickHouseClient } from '../storage/clickhouse.js';
import { ACCOUNT_TOTALS_FROM_TABLES } from '../projections/schema.js';
import { readContext } from '../projections/readModel/index.js';
import { computeBoard, leaderboard, type LeaderboardParams } from '../projections/readModel/leaderboard.js';
import { DEFAULT_BOARD_MAX_AGE_MS, LeaderboardBoards } from '../projections/readModel/leaderboardBoards.js';
import { summarise } from './latency.js';
import { Rng } from './prng.js';
import { generate, mergesSettled, type QueryOptions } from './projectionsQuery.js';

export interface LeaderboardResult {
  readonly traders: number;
  readonly positionRows: number;
  readonly prepareSec: number;
  readonly boardMs: readonly number[];
  readonly reads: { readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number; readonly count: number };
  readonly moving: { readonly p50Ms: number; readonly p99Ms: number; readonly maxMs: number; readonly count: number; readonly recomputed: number; readonly seconds: number };
}

async function scalar(ch: ClickHouseClient, query: string): Promise<number> {
  const result = await ch.query({ query, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  const [row] = (await result.json()) as { n: number }[];
  return Number(row?.n ?? 0);
}

/** The reads: pages by PnL and volume at offsets across 0..1000, and standings of random traders (3 in 10). */
function readParams(rng: Rng, traders: readonly string[]): LeaderboardParams {
  const orderBy = rng.int(2) === 0 ? 'PNL' : 'VOL';
  if (rng.int(10) < 3) return { timePeriod: 'ALL', orderBy, user: traders[rng.int(traders.length)] as string };
  return { timePeriod: 'ALL', orderBy, limit: rng.int(2) === 0 ? 25 : 50, offset: rng.int(3) === 0 ? 0 : 25 * rng.int(41) };
}

export async function measureLeaderboard(ch: ClickHouseClient, db: string, o: QueryOptions & { readonly generated: boolean; readonly boards: number; readonly movingSeconds: number }): Promise<LeaderboardResult> {
  const t0 = performance.now();
  if (!o.generated) {
    await generate(ch, db, o);
    await mergesSettled(ch, db, 300);
  }
  await ch.command({ query: `TRUNCATE TABLE ${db}.account_totals` });
  await ch.command({ query: ACCOUNT_TOTALS_FROM_TABLES.replaceAll('{db}', db) });
  await mergesSettled(ch, db, 300);
  const prepareSec = (performance.now() - t0) / 1000;
  const traders = await scalar(ch, `SELECT count() AS n FROM ${db}.account_totals FINAL`);
  const positionRows = await scalar(ch, `SELECT count() AS n FROM ${db}.positions`);
  const sample = ((await (await ch.query({ query: `SELECT account FROM ${db}.account_totals ORDER BY cityHash64(account) LIMIT 1000`, format: 'JSONEachRow' })).json()) as { account: string }[]).map((r) => r.account);

  let pos = 1;
  const ctx = readContext(ch, db);
  const boardMs: number[] = [];
  for (let i = 0; i < o.boards; i++) {
    const start = performance.now();
    const board = await computeBoard(ctx, 'ALL', undefined, pos);
    boardMs.push(performance.now() - start);
    if (board.byPnl.length !== traders) throw new Error(`the board has ${board.byPnl.length} traders, account_totals ${traders}`);
  }

  const rng = new Rng(7);
  const kept = new LeaderboardBoards(ctx, () => pos, DEFAULT_BOARD_MAX_AGE_MS).board;
  await leaderboard({ timePeriod: 'ALL' }, kept);
  const samples = new Float64Array(o.queries);
  for (let i = 0; i < o.queries; i++) {
    const start = performance.now();
    const got = await leaderboard(readParams(rng, sample), kept);
    samples[i] = performance.now() - start;
    if (got.length === 0) throw new Error('an empty leaderboard read');
  }
  const reads = summarise(samples);

  // The projector moving on at every read; boards older than 1 s recomputed in the background.
  const moving = new LeaderboardBoards(ctx, () => pos, 1_000);
  await leaderboard({ timePeriod: 'ALL' }, moving.board);
  const computedBefore = moving.computed;
  const movingSamples: number[] = [];
  const until = performance.now() + o.movingSeconds * 1000;
  while (performance.now() < until) {
    pos += 1;
    const start = performance.now();
    await leaderboard(readParams(rng, sample), moving.board);
    movingSamples.push(performance.now() - start);
    // Reads arrive spaced, as requests do, rather than back to back on this one thread.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const m = summarise(Float64Array.from(movingSamples));
  return {
    traders, positionRows, prepareSec, boardMs,
    reads: { p50Ms: reads.p50Ns, p99Ms: reads.p99Ns, maxMs: reads.maxNs, count: reads.count },
    moving: { p50Ms: m.p50Ns, p99Ms: m.p99Ns, maxMs: m.maxNs, count: m.count, recomputed: moving.computed - computedBefore, seconds: o.movingSeconds },
  };
}
