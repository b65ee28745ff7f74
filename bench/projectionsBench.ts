// Projection benchmark (`npm run bench:projections`), three phases on one embedded chDB (one data directory
// per process), each in its own database:
//   1. throughput  fills/s projected from a journal into chDB by a fresh projector (target >= 100k/s), with
//                  the time the projector spent in each table's insert (the book history included)
//      history     over the same database: bytes on disk per book level change, and /orderbook-history's
//                  read p99 for the busiest token over an hour, pages of 100 (target <= 100 ms)
//   2. lag         projection lag p99 while a real engine host + journal take a steady 5k fills/s and a
//                  projector runs beside them (target <= 1 s)
//   3. positions   GET /positions p99 (read model positions()) with 10M fills over 100k addresses, rows
//                  generated inside ClickHouse (target <= 50 ms)
//   4. leaderboard GET /v1/leaderboard?timePeriod=ALL p99 (read model leaderboard(), boards kept as the
//                  service keeps them) over the same tables (target <= 100 ms); the time to compute a whole
//                  board; reads while the projector moves and boards are recomputed beside them
// Sizes come from the environment (defaults finish in a few minutes on 2 cores; what was used is printed):
//   BENCH_PROJ_FILLS (200000)  BENCH_PROJ_ACCOUNTS (1000)  BENCH_PROJ_MARKETS (20)  BENCH_PROJ_MAKERS (4)
//   BENCH_PROJ_MAX_BATCH (the projector's default)  BENCH_LAG_RATE (5000)  BENCH_LAG_SECONDS (20)
//   BENCH_LAG_INTERVAL_MS (the service's projectionIntervalMs default)  BENCH_LAG_BUDGET_MS (the service's
//   projectionLagBudgetMs default; 0: none)  BENCH_POS_FILLS (10000000)
//   BENCH_POS_ADDRESSES (100000)  BENCH_POS_MARKETS (1000)  BENCH_POS_TOKENS_PER_ADDRESS (40)
//   BENCH_POS_MINUTES (1440)  BENCH_POS_QUERIES (1000)  BENCH_LB_QUERIES (2000)  BENCH_LB_BOARDS (3)
//   BENCH_LB_MOVING_SECONDS (20)  BENCH_PHASES (throughput,history,lag,positions,leaderboard)
//   BENCH_LAG_HANDOVER (1: the host hands its records to the projector in memory, as the service does; 0: the
//   projector reads them back from the journal)  BENCH_BOOK_HISTORY (1; 0: the projector writes no book history,
//   to see its cost)
// Profile the projector with: node --cpu-prof dist/bench/projectionsBench.js (BENCH_PHASES=throughput).
// The last line printed is one JSON object.

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECTION_INTERVAL_MS, PROJECTION_LAG_BUDGET_MS, projectionLagBudgetOf } from '../config/index.js';
import { openClickHouse } from '../storage/clickhouse.js';
import { DEFAULT_MAX_BATCH } from '../projections/projector.js';
import { measureThroughput } from './projectionsThroughput.js';
import { measureLag } from './projectionsLag.js';
import { measurePositionsQuery } from './projectionsQuery.js';
import { measureHistory } from './projectionsHistory.js';
import { measureLeaderboard } from './projectionsLeaderboard.js';
import { ProjectionsWorkload } from './projectionsWorkload.js';

const env = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0`);
  return value;
};

const config = {
  fills: env('BENCH_PROJ_FILLS', 200_000),
  accounts: env('BENCH_PROJ_ACCOUNTS', 1_000),
  markets: env('BENCH_PROJ_MARKETS', 20),
  makers: env('BENCH_PROJ_MAKERS', 4),
  maxBatch: env('BENCH_PROJ_MAX_BATCH', DEFAULT_MAX_BATCH),
  lagRate: env('BENCH_LAG_RATE', 5_000),
  lagSeconds: env('BENCH_LAG_SECONDS', 20),
  lagIntervalMs: env('BENCH_LAG_INTERVAL_MS', PROJECTION_INTERVAL_MS.embedded),
  lagBudgetMs: env('BENCH_LAG_BUDGET_MS', PROJECTION_LAG_BUDGET_MS),
  posFills: env('BENCH_POS_FILLS', 10_000_000),
  posAddresses: env('BENCH_POS_ADDRESSES', 100_000),
  posMarkets: env('BENCH_POS_MARKETS', 1_000),
  posTokensPerAddress: env('BENCH_POS_TOKENS_PER_ADDRESS', 40),
  posMinutes: env('BENCH_POS_MINUTES', 1_440),
  posQueries: env('BENCH_POS_QUERIES', 1_000),
  lagHandOver: env('BENCH_LAG_HANDOVER', 1) !== 0,
  bookHistory: env('BENCH_BOOK_HISTORY', 1) !== 0,
  lbQueries: env('BENCH_LB_QUERIES', 2_000),
  lbBoards: env('BENCH_LB_BOARDS', 3),
  lbMovingSeconds: env('BENCH_LB_MOVING_SECONDS', 20),
};
const phases = new Set((process.env.BENCH_PHASES ?? 'throughput,history,lag,positions,leaderboard').split(','));

const round = (x: number, digits = 1): number => Number(x.toFixed(digits));

async function main(): Promise<void> {
  const started = performance.now();
  console.log(`projection benchmark on ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`config ${JSON.stringify(config)}; phases ${[...phases].join(',')}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-proj-ch-'));
  const ch = await openClickHouse({ mode: 'embedded', dataDir, url: '', user: '', password: '', database: 'bench' });
  const summary: Record<string, number | boolean | string | null> = { node: process.version, cpus: cpus().length };
  for (const db of ['throughput', 'lag', 'positions']) await ch.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
  try {
    if (phases.has('throughput')) {
      const spent = new Map<string, { ms: number; rows: number }>();
      const onInsert = (table: string, rows: number, ms: number): void => {
        const entry = spent.get(table) ?? { ms: 0, rows: 0 };
        entry.ms += ms;
        entry.rows += rows;
        spent.set(table, entry);
      };
      const workload = new ProjectionsWorkload({ seed: 1, markets: config.markets, accounts: config.accounts, makers: config.makers });
      const r = await measureThroughput(ch, 'throughput', workload, config.fills, config.maxBatch, onInsert, config.bookHistory);
      const insertMs = [...spent.values()].reduce((n, e) => n + e.ms, 0);
      console.log(`throughput  ${r.fills} fills in ${r.records} records (${r.rows} rows, ${(r.rows / r.fills).toFixed(1)} per fill) projected in ${r.seconds.toFixed(2)} s: ${r.fillsPerSec.toFixed(0)} fills/s (target >= 100000), maxBatch ${r.maxBatch}`);
      const mainMs = r.threadCpuMs['main (JS)'] ?? 0;
      const others = Object.entries(r.threadCpuMs).filter(([name, ms]) => name !== 'main (JS)' && ms > 0).sort((a, b) => b[1] - a[1]);
      console.log(`            process CPU ${r.cpuSeconds.toFixed(2)} s (${((1e6 * r.cpuSeconds) / r.fills).toFixed(1)} µs per fill, all threads): JavaScript thread ${((1000 * mainMs) / r.fills).toFixed(1)} µs per fill;`);
      console.log(`            other threads (chDB inserts and merges, libuv) ${others.map(([name, ms]) => `${name} ${((1000 * ms) / r.fills).toFixed(1)}`).join(', ')} µs per fill`);
      console.log(`            inserts ${(insertMs / 1000).toFixed(2)} s wall (${((100 * insertMs) / 1000 / r.seconds).toFixed(0)}%; the next batch is read and built meanwhile)`);
      for (const [table, e] of [...spent].sort((a, b) => b[1].ms - a[1].ms)) {
        console.log(`            ${table.padEnd(20)} ${(e.ms / 1000).toFixed(2).padStart(7)} s  ${String(e.rows).padStart(9)} rows  ${(e.rows / (e.ms / 1000)).toFixed(0).padStart(8)} rows/s`);
      }
      Object.assign(summary, {
        throughput_fills: r.fills, throughput_seconds: round(r.seconds, 2), fills_per_sec: Math.round(r.fillsPerSec), rows_per_fill: round(r.rows / r.fills, 2),
        insert_share: round(insertMs / 1000 / r.seconds, 2), cpu_us_per_fill: round((1e6 * r.cpuSeconds) / r.fills), js_cpu_us_per_fill: round((1000 * (r.threadCpuMs['main (JS)'] ?? 0)) / r.fills, 1), target_fills_per_sec_met: r.fillsPerSec >= 100_000,
      });
    }
    if (phases.has('history') && phases.has('throughput') && config.bookHistory) {
      const r = await measureHistory(ch, 'throughput', 500);
      console.log(`history     ${r.levelChanges} level changes, ${r.changes} book changes, ${r.snapshots} whole books stored: ${r.bytesPerLevelChange.toFixed(1)} bytes on disk per level change (${r.levelChangeRowBytes.toFixed(1)} for its own row, the rest the index of changes and the whole books)`);
      console.log(`            /orderbook-history of the busiest token over its last hour (${r.windowChanges} changes), pages of 100 at random offsets, ${r.queries} reads: p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms (target p99 <= 100)`);
      Object.assign(summary, {
        history_level_changes: r.levelChanges, history_bytes_per_level_change: round(r.bytesPerLevelChange), history_window_changes: r.windowChanges,
        history_p50_ms: round(r.p50Ms), history_p99_ms: round(r.p99Ms), target_history_p99_met: r.p99Ms <= 100,
      });
    }
    if (phases.has('lag')) {
      const workload = new ProjectionsWorkload({ seed: 2, markets: config.markets, accounts: config.accounts, makers: config.makers });
      const r = await measureLag(ch, 'lag', workload, {
        fillsPerSec: config.lagRate, seconds: config.lagSeconds, warmupSec: Math.min(3, config.lagSeconds / 4), sampleMs: 20, minIntervalMs: config.lagIntervalMs, lagBudgetMs: projectionLagBudgetOf({ projectionLagBudgetMs: config.lagBudgetMs }), handOver: config.lagHandOver,
      });
      console.log(`lag         ${r.achievedFillsPerSec.toFixed(0)} fills/s achieved (target rate ${r.targetFillsPerSec}) for ${r.seconds.toFixed(1)} s, ${r.samples} samples: lag p50 ${r.lagP50Ms.toFixed(0)} ms, p99 ${r.lagP99Ms.toFixed(0)} ms, max ${r.lagMaxMs.toFixed(0)} ms (target p99 <= 1000); p99 ${r.lagP99Positions} positions behind; caught up ${(r.catchUpMs / 1000).toFixed(1)} s after the load stopped; ${r.handedOver} of ${r.projected} records handed over in memory`);
      const threads = Object.entries(r.threadCpuUsPerFill).sort((a, b) => b[1] - a[1]).map(([name, us]) => `${name} ${us.toFixed(1)}`);
      console.log(`            CPU ${r.cpuUsPerFill.toFixed(1)} µs per fill, all threads (engine host, journal, projector, chDB): ${threads.join(', ')}`);
      Object.assign(summary, {
        lag_rate: r.targetFillsPerSec, lag_achieved_fills_per_sec: Math.round(r.achievedFillsPerSec), lag_seconds: round(r.seconds), lag_p50_ms: Math.round(r.lagP50Ms), lag_p99_ms: Math.round(r.lagP99Ms),
        lag_max_ms: Math.round(r.lagMaxMs), lag_p99_positions: r.lagP99Positions, lag_catch_up_ms: Math.round(r.catchUpMs), lag_handed_over: r.handedOver, lag_cpu_us_per_fill: round(r.cpuUsPerFill), target_lag_met: r.lagP99Ms <= 1_000,
      });
    }
    if (phases.has('positions')) {
      const r = await measurePositionsQuery(ch, 'positions', {
        fills: config.posFills, addresses: config.posAddresses, markets: config.posMarkets, tokensPerAddress: config.posTokensPerAddress,
        minutes: config.posMinutes, queries: config.posQueries, warmup: Math.min(100, config.posQueries),
      });
      console.log(`positions   ${r.fills} synthetic fills over ${r.addresses} addresses (${r.positionRows} position rows), generated in ${r.generateSec.toFixed(1)} s, merges settled ${r.settleSec.toFixed(1)} s later; ${r.queries} queries, ${r.meanRows.toFixed(1)} positions each: p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, max ${r.maxMs.toFixed(1)} ms (target p99 <= 50)`);
      Object.assign(summary, {
        positions_fills: r.fills, positions_addresses: r.addresses, positions_rows: r.positionRows, positions_generate_seconds: round(r.generateSec), positions_settle_seconds: round(r.settleSec),
        positions_p50_ms: round(r.p50Ms), positions_p99_ms: round(r.p99Ms), positions_max_ms: round(r.maxMs), target_positions_p99_met: r.p99Ms <= 50,
      });
    }
    if (phases.has('leaderboard')) {
      const r = await measureLeaderboard(ch, 'positions', {
        fills: config.posFills, addresses: config.posAddresses, markets: config.posMarkets, tokensPerAddress: config.posTokensPerAddress,
        minutes: config.posMinutes, queries: config.lbQueries, warmup: 0, generated: phases.has('positions'), boards: config.lbBoards, movingSeconds: config.lbMovingSeconds,
      });
      const boards = [...r.boardMs].sort((a, b) => a - b);
      console.log(`leaderboard ${r.traders} traders, ${r.positionRows} position rows (account_totals filled in ${r.prepareSec.toFixed(1)} s); a whole all-time board computed in ${boards.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s`);
      console.log(`            /v1/leaderboard?timePeriod=ALL, board kept, ${r.reads.count} reads (pages by PnL and volume at offsets 0..1000, standings): p50 ${r.reads.p50Ms.toFixed(2)} ms, p99 ${r.reads.p99Ms.toFixed(2)} ms, max ${r.reads.maxMs.toFixed(1)} ms (target p99 <= 100)`);
      console.log(`            while the projector moves (boards older than 1 s recomputed in the background, ${r.moving.recomputed} in ${r.moving.seconds} s): ${r.moving.count} reads, p50 ${r.moving.p50Ms.toFixed(2)} ms, p99 ${r.moving.p99Ms.toFixed(2)} ms, max ${r.moving.maxMs.toFixed(1)} ms`);
      Object.assign(summary, {
        leaderboard_traders: r.traders, leaderboard_board_ms: Math.round(boards[Math.floor(boards.length / 2)] ?? 0), leaderboard_p50_ms: round(r.reads.p50Ms, 2),
        leaderboard_p99_ms: round(r.reads.p99Ms, 2), leaderboard_moving_p99_ms: round(r.moving.p99Ms, 2), leaderboard_moving_recomputed: r.moving.recomputed,
        target_leaderboard_p99_met: r.reads.p99Ms <= 100 && r.moving.p99Ms <= 100,
      });
    }
  } finally {
    await ch.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  summary.total_seconds = round((performance.now() - started) / 1000);
  summary.load_average = round(loadavg()[0] ?? 0, 2);
  console.log(JSON.stringify(summary));
}

await main();
