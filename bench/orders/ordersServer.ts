// The server side of `npm run bench:orders`, run as a child process (an IPC channel to the parent) so the
// load generator does not share its thread: the whole service as `npm start` runs it (engine host on the
// fsynced journal, projector into embedded chDB, demo catalog, header edge as configured) on a temporary
// data directory, with rate limits off, the L2 and order timestamp windows wide enough for orders signed
// before the timed window, and the operator API on (a random token, in READY) so the parent funds wallets
// over HTTP. It prints `READY {json}` with the port, the operator token and the markets to trade, then
// answers the parent's messages (nothing here changes the service's state):
//   {op: 'cpu', id}                    process.cpuUsage() and CPU per thread name (libuv's pool, which runs
//                                      chDB's queries, named libuv-worker: processProbe.ts), the log and projector
//                                      positions, the event loop delay, the journal appends, the answer
//                                      watches' tallies (threads/answerWatch.ts)
//   {op: 'profile', id, action, file}  starts / stops the inspector's CPU profiler (written to `file`)
//   {op: 'allocations', id, action, file}  starts / stops the sampling heap profiler (allocations, freed ones
//                                      included; written to `file`)
//   {op: 'memory', id}                 the process's RSS, the main thread's JS heap and the engine's resting
//                                      orders
//   {op: 'minute', id}                 since the last 'minute': GC time (of it major), the longest GC pause,
//                                      event-loop stall and journal append (bench/orders/minuteRows.ts)
//   {op: 'settle', id}                 waits until the engine is idle and the projector has caught up
//   {op: 'heap', id, file}             writes a heap snapshot of the main thread to `file`
//   {op: 'align', id, inMs}            moves the engine's clock forward (never back) so that its next minute
//                                      comes `inMs` from now: the rewards sampler then runs inside the window
//   {op: 'rewards', id}                the rewards programs, the samples the engine has taken and the engine's
//                                      time on the commands that carried them (ms)
// Every answer is {id, ...}. SIGTERM closes the service gracefully and removes the data directory.
// BENCH_REWARDS=on: every market of the engine gets a liquidity rewards program at start ($1,000 a day, 5 cents,
// 5 shares: the bench's resting orders score), so the sampler works on the bench's books; otherwise no market
// has one (those the demo catalog hands off end).

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver, constants, monitorEventLoopDelay } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { pino } from 'pino';
import { parseConfig } from '../../config/index.js';
import { startService } from '../../server/service.js';
import { watchTallies } from '../../threads/answerWatch.js';
import { heapTrimCollections } from '../../threads/heapTrim.js';
import { summarise } from '../latency.js';
import { nameThreadPool, startAllocationProfile, startCpuProfile, stopAllocationProfile, stopCpuProfile, threadCpuMs, threadSwitches } from '../processProbe.js';

interface Message {
  readonly op: 'cpu' | 'memory' | 'profile' | 'allocations' | 'settle' | 'heap' | 'align' | 'rewards' | 'minute';
  readonly id: number;
  readonly action?: 'start' | 'stop';
  readonly file?: string;
  readonly inMs?: number;
}

// PMX_* variables apply (e.g. PMX_SIGNATURE_WORKERS=0, PMX_PROJECTION_INTERVAL_MS=0); the settings below override them.
const parsed = parseConfig([], process.env);
if (parsed.kind !== 'config') throw new Error('bad default config');
const dataDir = mkdtempSync(join(tmpdir(), 'bench-orders-'));
const headerEdge = (process.env.BENCH_HEADER_EDGE ?? String(parsed.config.headerEdge)) !== 'false';
const config = {
  ...parsed.config,
  dataDir,
  httpPort: 0,
  rateLimit: false,
  logLevel: 'warn' as const,
  headerEdge,
  authFreshnessSec: 3600,
  orderTimestampWindowSec: 3600,
  demoTraders: false,
  operatorToken: randomBytes(24).toString('hex'),
  // BENCH_ANALYST: the ClickHouse HTTP interface with an analyst user, for the analyst load.
  ...(Number(process.env.BENCH_ANALYST ?? 0) > 0 ? { clickhouseHttpPort: 0, analystPassword: randomBytes(12).toString('hex') } : {}),
};
/** The engine's clock: the wall clock plus an offset that 'align' moves forward (orders' windows are 3600 s wide). */
let clockOffset = 0;
const running = await startService(config, pino({ level: 'warn' }), { engineClock: () => Date.now() + clockOffset });
// libuv's pool (chDB's queries) apart from V8's platform threads (GC, compiler) in the CPU per thread.
await nameThreadPool();
const host = running.engine;
const rewarded = process.env.BENCH_REWARDS === 'on';
// Without rewards, none at all: the programs the demo catalog hands off end too.
for (const m of [...host.engine.markets()].filter((x) => x.status === 'active')) {
  if (rewarded) await host.submit({ type: 'SetMarketRewards', conditionId: m.conditionId, dailyRate: 1_000_000_000, maxSpread: 50_000, minSize: 5_000_000 });
  else if (host.engine.rewardTerms().has(m.conditionId)) await host.submit({ type: 'EndMarketRewards', conditionId: m.conditionId });
}
/** Time the engine spent on the commands that carried rewards samples or payouts (the sampler's cost), ms. */
let samplerMs = 0;
const engineApply = host.engine.apply.bind(host.engine);
host.engine.apply = (command) => {
  const started = performance.now();
  const events = engineApply(command);
  const ms = performance.now() - started;
  for (const e of events) {
    if (e.type === 'RewardsSampled' || e.type === 'RewardsDistributed' || e.type === 'MarketRewardsEnded') {
      samplerMs += ms;
      break;
    }
  }
  return events;
};
const markets = [...host.engine.markets()]
  .filter((m) => m.status === 'active' && !m.params.negRisk && m.params.tickSize === 10_000 && m.params.minSize <= 5_000_000)
  .map((m) => ({ conditionId: m.conditionId, tokenIds: [...m.tokenIds], minSize: m.params.minSize, makerFeeBps: m.params.makerFeeBps, takerFeeBps: m.params.takerFeeBps }));
if (markets.length === 0) throw new Error('the demo catalog lists no active standard market with tick 0.01 and min size <= 5');

// Group commit as the host sees it: appends (one fsync each), records per append, time per append.
const appendStats = { appends: 0, records: 0, ms: 0, maxMs: 0 };
/** Each append's ms since the last 'cpu' report. */
let appendTimes: number[] = [];
const log = host.log;
const append = log.append.bind(log);
log.append = async (records) => {
  const started = performance.now();
  try {
    return await append(records);
  } finally {
    const ms = performance.now() - started;
    appendStats.appends += 1;
    appendStats.records += records.length;
    appendStats.ms += ms;
    appendStats.maxMs = Math.max(appendStats.maxMs, ms);
    appendTimes.push(ms);
    minute.appendMaxMs = Math.max(minute.appendMaxMs, ms);
  }
};

/** Event loop delay, sampled every LOOP_RESOLUTION_MS: reported as the excess over that period (a stall). */
const LOOP_RESOLUTION_MS = 2;
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
loopDelay.enable();
/** The same figures since the last 'minute' question; the loop's own monitor so that 'cpu' does not reset it. */
const minute = { gcMs: 0, gcMaxMs: 0, majorGcMs: 0, appendMaxMs: 0 };
const minuteDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
minuteDelay.enable();
/** Cumulative counts of the service's request-time histogram by bucket bound (s), all routes, at the last 'minute'. */
let lastBuckets = new Map<number, number>();
/**
 * The service's own view of the minute's requests (http_request_duration_seconds: from the handler's call on the
 * request thread to the reply): the histogram bucket its p99 falls in, and the requests over 100 ms.
 */
async function requestTimes(): Promise<{ serverP99UpToMs: number; serverOver100Ms: number }> {
  const metric = running.metrics.registry.getSingleMetric('http_request_duration_seconds');
  const buckets = new Map<number, number>();
  for (const v of metric === undefined ? [] : (await metric.get()).values) {
    if ((v as { metricName?: string }).metricName !== 'http_request_duration_seconds_bucket') continue;
    const le = v.labels.le === '+Inf' ? Infinity : Number(v.labels.le);
    buckets.set(le, (buckets.get(le) ?? 0) + v.value);
  }
  const bounds = [...buckets.keys()].sort((a, b) => a - b);
  const delta = bounds.map((le) => (buckets.get(le) ?? 0) - (lastBuckets.get(le) ?? 0));
  lastBuckets = buckets;
  const total = delta[delta.length - 1] ?? 0;
  const p99 = bounds.find((_, i) => (delta[i] ?? 0) >= 0.99 * total) ?? Infinity;
  const within100 = delta[bounds.indexOf(0.1)] ?? total;
  return { serverP99UpToMs: p99 * 1000, serverOver100Ms: total - within100 };
}
/** Each consumer of the durable records: its time on the request thread so far (durable_consumer_seconds_total), ms. */
async function consumerMs(): Promise<Record<string, number>> {
  const metric = running.metrics.registry.getSingleMetric('durable_consumer_seconds_total');
  const ms: Record<string, number> = {};
  for (const v of metric === undefined ? [] : (await metric.get()).values) ms[String(v.labels.consumer)] = v.value * 1000;
  return ms;
}
/** Garbage-collection pauses of the main thread since the last 'cpu' report (ms each). */
let gcPauses: number[] = [];
/** Pause ms by GC kind (perf_hooks constants: 1 minor/scavenge, 4 major, 8 incremental marking, 16 weak callbacks). */
let gcByKind: Record<string, number> = {};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    gcPauses.push(entry.duration);
    const kind = String((entry as unknown as { detail?: { kind?: number } }).detail?.kind ?? '?');
    minute.gcMs += entry.duration;
    minute.gcMaxMs = Math.max(minute.gcMaxMs, entry.duration);
    if (kind === String(constants.NODE_PERFORMANCE_GC_MAJOR)) minute.majorGcMs += entry.duration;
    gcByKind[kind] = (gcByKind[kind] ?? 0) + entry.duration;
  }
}).observe({ entryTypes: ['gc'] });
/** The GC pauses since the last call (summarise's figures are in its samples' unit: ms here). */
function gcSummary(): { count: number; totalMs: number; p99Ms: number; maxMs: number; msByKind: Record<string, number> } {
  const pauses = summarise(Float64Array.from(gcPauses));
  const msByKind = gcByKind;
  gcPauses = [];
  gcByKind = {};
  return { count: pauses.count, totalMs: pauses.meanNs * pauses.count, p99Ms: pauses.p99Ns, maxMs: pauses.maxNs, msByKind };
}
async function handle(m: Message): Promise<object> {
  switch (m.op) {
    case 'cpu': {
      const excess = (ns: number): number => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
      const delay = { p50Ms: excess(loopDelay.percentile(50)), p99Ms: excess(loopDelay.percentile(99)), maxMs: excess(loopDelay.max) };
      loopDelay.reset();
      const appendMs = summarise(Float64Array.from(appendTimes));
      const appends = { ...appendStats, p90Ms: appendMs.p90Ns, p99Ms: appendMs.p99Ns };
      appendStats.maxMs = 0;
      appendTimes = [];
      const wakes = Object.fromEntries([...watchTallies()].map(([name, tally]) => [name, { ...tally }]));
      const edgeStats = running.edge?.stats;
      const edge = edgeStats === undefined ? undefined : { requests: edgeStats.requests, upstreamReads: edgeStats.upstreamReads, holds: edgeStats.holds, heldRequests: edgeStats.heldRequests };
      const chain = running.chainAffinity === undefined ? undefined : { placement: running.chainAffinity.placement, moves: running.chainAffinity.moves };
      return { threads: threadCpuMs(), switches: threadSwitches(), consumers: await consumerMs(), appends, wakes, edge, chain, cpu: process.cpuUsage(), logPos: host.position, projectorPos: running.projector.position, engineSeq: host.engine.seq, loopDelay: delay, gc: gcSummary(), heapTrims: heapTrimCollections(), rssMb: Math.round(process.memoryUsage().rss / 2 ** 20) };
    }
    case 'minute': {
      const answer = { ...minute, stallMaxMs: Math.max(0, minuteDelay.max / 1e6 - LOOP_RESOLUTION_MS), ...(await requestTimes()) };
      Object.assign(minute, { gcMs: 0, gcMaxMs: 0, majorGcMs: 0, appendMaxMs: 0 });
      minuteDelay.reset();
      return answer;
    }
    case 'memory': {
      const memory = process.memoryUsage();
      return { rssMb: Math.round(memory.rss / 2 ** 20), heapUsedMb: Math.round(memory.heapUsed / 2 ** 20), resting: host.engine.state.live.size() };
    }
    case 'profile': {
      if (m.action === 'start') {
        await startCpuProfile();
        return {};
      }
      return stopCpuProfile(m.file);
    }
    case 'allocations': {
      if (m.action === 'start') {
        await startAllocationProfile();
        return {};
      }
      return stopAllocationProfile(m.file);
    }
    case 'heap':
      return { file: writeHeapSnapshot(m.file) };
    case 'align': {
      const now = Date.now() + clockOffset;
      const toNext = 60_000 - (now % 60_000);
      clockOffset += (toNext - (m.inMs ?? 0) + 60_000) % 60_000;
      return { engineNow: Date.now() + clockOffset };
    }
    case 'rewards': {
      const programs = [...host.engine.rewardTerms().keys()];
      const samples = programs.reduce((n, cid) => n + (host.engine.rewardDaySoFar(cid)?.samples ?? 0), 0);
      return { rewarded, programs: programs.length, samples, samplerMs };
    }
    case 'settle': {
      const started = performance.now();
      await host.idle();
      const target = host.position;
      await running.projector.waitFor(target, 600_000);
      return { ms: performance.now() - started, logPos: target };
    }
  }
}

process.on('message', (m: Message) => {
  handle(m).then(
    (answer) => process.send?.({ id: m.id, ...answer }),
    (error: unknown) => process.send?.({ id: m.id, error: error instanceof Error ? error.message : String(error) }),
  );
});

process.on('SIGTERM', () => {
  void running
    .close()
    .catch((error: unknown) => process.stderr.write(`close failed: ${String(error)}\n`))
    .finally(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
});

const analyst = running.clickhouseHttp === undefined ? undefined : { port: running.clickhouseHttp.port, password: config.analystPassword };
process.stdout.write(`READY ${JSON.stringify({ port: running.port, operatorToken: config.operatorToken, edge: running.edge !== undefined, uwsNative: running.uwsNative, markets, analyst })}\n`);
