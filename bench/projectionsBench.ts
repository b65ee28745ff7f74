// Projection benchmark (`npm run bench:projections`), three phases on one embedded chDB (one data directory
// per process), each in its own database:
//   1. throughput  fills/s projected from a journal into chDB by a fresh projector (target >= 100k/s), with
//                  the time the projector spent in each table's insert
//   2. lag         projection lag p99 while a real engine host + journal take a steady 5k fills/s and a
//                  projector runs beside them (target <= 1 s)
//   3. positions   GET /positions p99 (read model positions()) with 10M fills over 100k addresses, rows
//                  generated inside ClickHouse (target <= 50 ms)
// Sizes come from the environment (defaults finish in a few minutes on 2 cores; what was used is printed):
//   BENCH_PROJ_FILLS (200000)  BENCH_PROJ_ACCOUNTS (1000)  BENCH_PROJ_MARKETS (20)  BENCH_PROJ_MAKERS (4)
//   BENCH_PROJ_MAX_BATCH (5000)  BENCH_LAG_RATE (5000)  BENCH_LAG_SECONDS (20)  BENCH_POS_FILLS (10000000)
//   BENCH_POS_ADDRESSES (100000)  BENCH_POS_MARKETS (1000)  BENCH_POS_TOKENS_PER_ADDRESS (40)
//   BENCH_POS_MINUTES (1440)  BENCH_POS_QUERIES (1000)  BENCH_PHASES (throughput,lag,positions)
// Profile the projector with: node --cpu-prof dist/bench/projectionsBench.js (BENCH_PHASES=throughput).
// The last line printed is one JSON object.

import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openClickHouse, type ClickHouseClient } from '../storage/clickhouse.js';
import { measureThroughput } from './projectionsThroughput.js';
import { measureLag } from './projectionsLag.js';
import { measurePositionsQuery } from './projectionsQuery.js';
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
  maxBatch: env('BENCH_PROJ_MAX_BATCH', 5_000),
  lagRate: env('BENCH_LAG_RATE', 5_000),
  lagSeconds: env('BENCH_LAG_SECONDS', 20),
  posFills: env('BENCH_POS_FILLS', 10_000_000),
  posAddresses: env('BENCH_POS_ADDRESSES', 100_000),
  posMarkets: env('BENCH_POS_MARKETS', 1_000),
  posTokensPerAddress: env('BENCH_POS_TOKENS_PER_ADDRESS', 40),
  posMinutes: env('BENCH_POS_MINUTES', 1_440),
  posQueries: env('BENCH_POS_QUERIES', 1_000),
};
const phases = new Set((process.env.BENCH_PHASES ?? 'throughput,lag,positions').split(','));

/** The client with the time spent in insert() summed per table. */
function timingInserts(ch: ClickHouseClient, spent: Map<string, { ms: number; rows: number }>): ClickHouseClient {
  return new Proxy(ch, {
    get(client, key, receiver) {
      if (key !== 'insert') return Reflect.get(client, key, receiver);
      return async (params: Parameters<ClickHouseClient['insert']>[0]) => {
        const t0 = performance.now();
        const result = await client.insert(params);
        const table = params.table.split('.').pop() ?? params.table;
        const entry = spent.get(table) ?? { ms: 0, rows: 0 };
        entry.ms += performance.now() - t0;
        entry.rows += Array.isArray(params.values) ? params.values.length : 0;
        spent.set(table, entry);
        return result;
      };
    },
  });
}

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
      const workload = new ProjectionsWorkload({ seed: 1, markets: config.markets, accounts: config.accounts, makers: config.makers });
      const r = await measureThroughput(timingInserts(ch, spent), 'throughput', workload, config.fills, config.maxBatch);
      const insertMs = [...spent.values()].reduce((n, e) => n + e.ms, 0);
      console.log(`throughput  ${r.fills} fills in ${r.records} records (${r.rows} rows, ${(r.rows / r.fills).toFixed(1)} per fill) projected in ${r.seconds.toFixed(2)} s: ${r.fillsPerSec.toFixed(0)} fills/s (target >= 100000), maxBatch ${r.maxBatch}`);
      console.log(`            inserts ${(insertMs / 1000).toFixed(2)} s (${((100 * insertMs) / 1000 / r.seconds).toFixed(0)}%); journal read, row building and the rest ${(r.seconds - insertMs / 1000).toFixed(2)} s`);
      for (const [table, e] of [...spent].sort((a, b) => b[1].ms - a[1].ms)) {
        console.log(`            ${table.padEnd(20)} ${(e.ms / 1000).toFixed(2).padStart(7)} s  ${String(e.rows).padStart(9)} rows  ${(e.rows / (e.ms / 1000)).toFixed(0).padStart(8)} rows/s`);
      }
      Object.assign(summary, {
        throughput_fills: r.fills, throughput_seconds: round(r.seconds, 2), fills_per_sec: Math.round(r.fillsPerSec), rows_per_fill: round(r.rows / r.fills, 2),
        insert_share: round(insertMs / 1000 / r.seconds, 2), target_fills_per_sec_met: r.fillsPerSec >= 100_000,
      });
    }
    if (phases.has('lag')) {
      const workload = new ProjectionsWorkload({ seed: 2, markets: config.markets, accounts: config.accounts, makers: config.makers });
      const r = await measureLag(ch, 'lag', workload, { fillsPerSec: config.lagRate, seconds: config.lagSeconds, warmupSec: Math.min(3, config.lagSeconds / 4), sampleMs: 20 });
      console.log(`lag         ${r.achievedFillsPerSec.toFixed(0)} fills/s achieved (target rate ${r.targetFillsPerSec}) for ${r.seconds.toFixed(1)} s, ${r.samples} samples: lag p50 ${r.lagP50Ms.toFixed(0)} ms, p99 ${r.lagP99Ms.toFixed(0)} ms, max ${r.lagMaxMs.toFixed(0)} ms (target p99 <= 1000); p99 ${r.lagP99Positions} positions behind; caught up ${(r.catchUpMs / 1000).toFixed(1)} s after the load stopped`);
      Object.assign(summary, {
        lag_rate: r.targetFillsPerSec, lag_achieved_fills_per_sec: Math.round(r.achievedFillsPerSec), lag_seconds: round(r.seconds), lag_p50_ms: Math.round(r.lagP50Ms), lag_p99_ms: Math.round(r.lagP99Ms),
        lag_max_ms: Math.round(r.lagMaxMs), lag_p99_positions: r.lagP99Positions, lag_catch_up_ms: Math.round(r.catchUpMs), target_lag_met: r.lagP99Ms <= 1_000,
      });
    }
    if (phases.has('positions')) {
      const r = await measurePositionsQuery(ch, 'positions', {
        fills: config.posFills, addresses: config.posAddresses, markets: config.posMarkets, tokensPerAddress: config.posTokensPerAddress,
        minutes: config.posMinutes, queries: config.posQueries, warmup: Math.min(100, config.posQueries),
      });
      console.log(`positions   ${r.fills} synthetic fills over ${r.addresses} addresses (${r.positionRows} position rows), generated in ${r.generateSec.toFixed(1)} s; ${r.queries} queries, ${r.meanRows.toFixed(1)} positions each: p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, max ${r.maxMs.toFixed(1)} ms (target p99 <= 50)`);
      Object.assign(summary, {
        positions_fills: r.fills, positions_addresses: r.addresses, positions_rows: r.positionRows, positions_generate_seconds: round(r.generateSec),
        positions_p50_ms: round(r.p50Ms), positions_p99_ms: round(r.p99Ms), positions_max_ms: round(r.maxMs), target_positions_p99_met: r.p99Ms <= 50,
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
