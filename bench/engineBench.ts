// `npm run bench:engine`: the matching engine against the peer, `nodejs-order-book`, on one fixed-seed
// mixed workload, then a heap test with 1M resting orders. See workload.ts for the workload and heap.ts for
// the heap phase.
//
// Phases: generate the workload (untimed), warm up both (JIT), measure throughput in a plain loop (no
// per-op timing; median of BENCH_REPS runs, ours and the peer alternating, each on a fresh engine/book
// with the untimed setup applied), measure per-operation latency with process.hrtime.bigint() in a separate
// run, check correctness (replay reproduces the generator, invariants hold, the peer's books equal ours
// level by level), then the heap phase. Prints a table, then one JSON object as the last line.
//
// Env: BENCH_SEED, BENCH_OPS, BENCH_MARKETS, BENCH_ACCOUNTS, BENCH_RESTING (per market), BENCH_WARMUP,
// BENCH_REPS, BENCH_HEAP_ORDERS, BENCH_HEAP_ACCOUNTS, BENCH_DEDUPE_MS. A workload whose orders are refused
// (more than 1%), a failed invariant or a replay mismatch exits with status 1 and no JSON line.

import os from 'node:os';
import { Engine, type Command, type EngineEvent } from '../engine/index.js';
import { generateWorkload, type Workload, type WorkloadConfig } from './workload.js';
import { PeerBooks, type PeerOp } from './peer.js';
import { summarise, timerOverheadNs, us, type LatencySummary } from './latency.js';
import { heapPhase, type HeapResult } from './heap.js';

const TARGET_RATIO = 5;
const TARGET_P99_US = 20;
const TARGET_HEAP_MB_PER_MILLION = 500;
const MAX_REJECTED_FRACTION = 0.01;

function envInt(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}, got ${raw}`);
  return value;
}

const failures: string[] = [];
function check(ok: boolean, message: string): void {
  if (!ok) failures.push(message);
}

/** Prints every failure and exits with status 1 (no JSON line). */
function failIfAny(): void {
  if (failures.length === 0) return;
  for (const f of failures) process.stderr.write(`BENCHMARK FAILED: ${f}\n`);
  process.exit(1);
}

function log(line = ''): void {
  process.stdout.write(line + '\n');
}

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** CPU seconds (user + system, all threads of the process) since `start`. */
function cpuSeconds(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

// ---- runners: ours --------------------------------------------------------------------------------------

function freshOurs(wl: Workload): Engine {
  const engine = new Engine();
  for (const cmd of wl.setup) {
    for (const e of engine.apply(cmd)) {
      if (e.type === 'OrderRejected' || e.type === 'CommandRejected') throw new Error(`setup refused: ${e.message}`);
    }
  }
  return engine;
}

/** Applies ops[0..n) with no timing inside the loop; returns the number of OrderRejected events. */
function oursLoop(engine: Engine, ops: readonly Command[], n: number): number {
  let rejected = 0;
  for (let i = 0; i < n; i++) {
    const events = engine.apply(ops[i] as Command);
    for (let j = 0; j < events.length; j++) if ((events[j] as EngineEvent).type === 'OrderRejected') rejected += 1;
  }
  return rejected;
}

/** Applies ops[0..n), timing each apply into `lat` (ns); returns the number of OrderRejected events. */
function oursTimed(engine: Engine, ops: readonly Command[], n: number, lat: Float64Array): number {
  let rejected = 0;
  for (let i = 0; i < n; i++) {
    const cmd = ops[i] as Command;
    const t0 = process.hrtime.bigint();
    const events = engine.apply(cmd);
    const t1 = process.hrtime.bigint();
    lat[i] = Number(t1 - t0);
    for (let j = 0; j < events.length; j++) if ((events[j] as EngineEvent).type === 'OrderRejected') rejected += 1;
  }
  return rejected;
}

// ---- runners: the peer ----------------------------------------------------------------------------------

function freshPeer(wl: Workload, markets: number): PeerBooks {
  const peer = new PeerBooks(markets);
  for (const op of wl.peerSetup) if (peer.apply(op) !== 0) throw new Error('peer setup refused an order');
  return peer;
}

function peerLoop(peer: PeerBooks, ops: readonly PeerOp[], n: number): number {
  let rejected = 0;
  for (let i = 0; i < n; i++) rejected += peer.apply(ops[i] as PeerOp);
  return rejected;
}

function peerTimed(peer: PeerBooks, ops: readonly PeerOp[], n: number, lat: Float64Array): number {
  let rejected = 0;
  for (let i = 0; i < n; i++) {
    const op = ops[i] as PeerOp;
    const t0 = process.hrtime.bigint();
    const r = peer.apply(op);
    const t1 = process.hrtime.bigint();
    lat[i] = Number(t1 - t0);
    rejected += r;
  }
  return rejected;
}

// ---- the mixed workload ---------------------------------------------------------------------------------

interface MixedResult {
  readonly engine: Engine;
  readonly genSeconds: number;
  readonly stats: Workload['stats'];
  readonly placed: number;
  readonly oursRuns: number[];
  readonly peerRuns: number[];
  readonly oursCpuRuns: number[];
  readonly peerCpuRuns: number[];
  readonly oursLatency: LatencySummary;
  readonly peerLatency: LatencySummary;
  readonly oursTimedOpsPerSec: number;
  readonly peerTimedOpsPerSec: number;
  readonly peerResting: number;
  readonly oursRejected: number;
  readonly peerRejected: number;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function mixedPhase(cfg: WorkloadConfig, warmup: number, reps: number, gc: () => void): MixedResult {
  log(`generating workload (seed ${cfg.seed}, ${cfg.ops} ops, ${cfg.markets} markets, ${cfg.accounts} accounts, ${cfg.restingTarget} resting per market) ...`);
  const genStart = process.hrtime.bigint();
  const wl = generateWorkload(cfg);
  const genSeconds = seconds(genStart);
  const n = wl.ops.length;
  const s = wl.stats;
  const placed = s.limits + s.fak + s.fok;
  log(`  generated in ${genSeconds.toFixed(1)} s: ${s.limits} limit (${((100 * s.crossingLimits) / Math.max(1, s.limits)).toFixed(1)}% crossing), ${s.cancels} cancels, ${s.fak} FAK sweeps, ${s.fok} FOK, ${s.fills} fills; generator saw ${s.orderRejected} orders rejected, ${s.cancelRejected} cancels rejected`);
  check(s.orderRejected <= MAX_REJECTED_FRACTION * placed, `workload: ${s.orderRejected} of ${placed} orders rejected by the engine (codes ${JSON.stringify(s.rejectCodes)}); the workload is wrong`);
  check(s.cancelRejected <= MAX_REJECTED_FRACTION * Math.max(1, s.cancels), `workload: ${s.cancelRejected} of ${s.cancels} cancels rejected`);
  failIfAny(); // a wrong workload is not worth timing

  // Warm-up: the same loops on throwaway engines/books, on a prefix of the workload.
  const w = Math.min(warmup, n);
  const warmLat = new Float64Array(w);
  const wStart = process.hrtime.bigint();
  oursLoop(freshOurs(wl), wl.ops, w);
  oursTimed(freshOurs(wl), wl.ops, w, warmLat);
  peerLoop(freshPeer(wl, cfg.markets), wl.peerOps, w);
  peerTimed(freshPeer(wl, cfg.markets), wl.peerOps, w, warmLat);
  log(`  warm-up: ${w} ops on each loop of both, ${seconds(wStart).toFixed(1)} s`);

  // Throughput: plain loops, ours and the peer alternating.
  const oursRuns: number[] = [];
  const peerRuns: number[] = [];
  const oursCpuRuns: number[] = [];
  const peerCpuRuns: number[] = [];
  let oursRejected = 0;
  let peerRejected = 0;
  for (let r = 0; r < reps; r++) {
    let engine: Engine | undefined = freshOurs(wl);
    gc();
    let c = process.cpuUsage();
    let t = process.hrtime.bigint();
    oursRejected = Math.max(oursRejected, oursLoop(engine, wl.ops, n));
    const oursSec = seconds(t);
    oursCpuRuns.push(n / cpuSeconds(c));
    oursRuns.push(n / oursSec);
    check(engine.seq === wl.expectedSeq && engine.state.live.size() === wl.expectedResting, `replay ${r}: seq ${engine.seq} / resting ${engine.state.live.size()}, generator had ${wl.expectedSeq} / ${wl.expectedResting}`);
    engine = undefined;

    let peer: PeerBooks | undefined = freshPeer(wl, cfg.markets);
    gc();
    c = process.cpuUsage();
    t = process.hrtime.bigint();
    peerRejected = Math.max(peerRejected, peerLoop(peer, wl.peerOps, n));
    const peerSec = seconds(t);
    peerCpuRuns.push(n / cpuSeconds(c));
    peerRuns.push(n / peerSec);
    peer = undefined;
    log(`  throughput run ${r + 1}/${reps}: ours ${Math.round(n / oursSec).toLocaleString('en-US')} ops/s (${oursSec.toFixed(2)} s), peer ${Math.round(n / peerSec).toLocaleString('en-US')} ops/s (${peerSec.toFixed(2)} s)`);
  }

  // Latency: one run each, every operation timed.
  const lat = new Float64Array(n);
  const engine = freshOurs(wl);
  gc();
  let t = process.hrtime.bigint();
  oursRejected = Math.max(oursRejected, oursTimed(engine, wl.ops, n, lat));
  const oursTimedOpsPerSec = n / seconds(t);
  const oursLatency = summarise(lat);

  const peer = freshPeer(wl, cfg.markets);
  gc();
  t = process.hrtime.bigint();
  peerRejected = Math.max(peerRejected, peerTimed(peer, wl.peerOps, n, lat));
  const peerTimedOpsPerSec = n / seconds(t);
  const peerLatency = summarise(lat);
  log(`  latency runs: ours ${Math.round(oursTimedOpsPerSec).toLocaleString('en-US')} ops/s, peer ${Math.round(peerTimedOpsPerSec).toLocaleString('en-US')} ops/s (per-op timing on)`);

  // Correctness: replay matches the generator, invariants hold, the peer's books equal ours.
  check(oursRejected <= MAX_REJECTED_FRACTION * placed, `ours: ${oursRejected} of ${placed} orders rejected`);
  check(peerRejected <= MAX_REJECTED_FRACTION * placed, `peer: ${peerRejected} of ${placed} orders rejected`);
  check(engine.seq === wl.expectedSeq && engine.state.live.size() === wl.expectedResting, `latency replay: seq ${engine.seq} / resting ${engine.state.live.size()}, generator had ${wl.expectedSeq} / ${wl.expectedResting}`);
  const violations = engine.checkInvariants();
  check(violations.length === 0, `invariants: ${violations.length} violations, first: ${violations.slice(0, 3).join('; ')}`);
  let levelMismatches = 0;
  wl.universe.markets.forEach((market, m) => {
    const ours = engine.book(market.yes);
    const theirs = peer.levels(m);
    const same = (a: readonly { price: number; size: number }[], b: [number, number][]): boolean =>
      a.length === b.length && a.every((level, i) => level.price === b[i]?.[0] && level.size === b[i]?.[1]);
    if (ours === undefined || !same(ours.bids, theirs.bids) || !same(ours.asks, theirs.asks)) levelMismatches += 1;
  });
  const peerResting = countPeerOrders(peer);
  check(levelMismatches === 0, `peer: ${levelMismatches} of ${cfg.markets} books differ from ours at the end (the peer was not fed the same orders)`);
  check(peerResting === engine.state.live.size(), `peer holds ${peerResting} resting orders, ours ${engine.state.live.size()}`);

  return {
    engine, genSeconds, stats: s, placed, oursRuns, peerRuns, oursCpuRuns, peerCpuRuns, oursLatency, peerLatency,
    oursTimedOpsPerSec, peerTimedOpsPerSec, peerResting, oursRejected, peerRejected,
  };
}

/** Resting orders in the peer's books, through its public snapshot. */
function countPeerOrders(peer: PeerBooks): number {
  let count = 0;
  for (const book of peer.books) {
    const snap = book.snapshot();
    for (const level of [...snap.bids, ...snap.asks]) count += level.orders.length;
  }
  return count;
}

// ---- main -----------------------------------------------------------------------------------------------

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function main(): void {
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench:engine does)');

  const cfg: WorkloadConfig = {
    seed: envInt('BENCH_SEED', 42, 0),
    ops: envInt('BENCH_OPS', 500_000),
    markets: envInt('BENCH_MARKETS', 4),
    accounts: envInt('BENCH_ACCOUNTS', 1000),
    restingTarget: envInt('BENCH_RESTING', 5000),
    crossFraction: 0.3,
    marketableFraction: 0.1,
    dedupeMs: envInt('BENCH_DEDUPE_MS', 60_000, 0),
  };
  const warmup = envInt('BENCH_WARMUP', 100_000, 0);
  const reps = envInt('BENCH_REPS', 3);
  const heapOrders = envInt('BENCH_HEAP_ORDERS', 1_000_000);
  const heapAccounts = envInt('BENCH_HEAP_ACCOUNTS', 1000);

  const cpus = os.cpus();
  const machine = `${cpus[0]?.model ?? 'unknown CPU'} x${cpus.length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()} ${os.arch()}`;
  log(`engine benchmark: node ${process.version} (V8 ${process.versions.v8}), ${machine}`);
  const loadAtStart = os.loadavg()[0] ?? 0;
  log(`load average at start: ${loadAtStart.toFixed(2)} (${cpus.length} CPUs); other processes on the machine slow both engines alike, the CPU-time rates below are less sensitive to it`);
  log(`config: BENCH_SEED=${cfg.seed} BENCH_OPS=${cfg.ops} BENCH_MARKETS=${cfg.markets} BENCH_ACCOUNTS=${cfg.accounts} BENCH_RESTING=${cfg.restingTarget} BENCH_WARMUP=${warmup} BENCH_REPS=${reps} BENCH_HEAP_ORDERS=${heapOrders} BENCH_HEAP_ACCOUNTS=${heapAccounts} BENCH_DEDUPE_MS=${cfg.dedupeMs}`);
  const overhead = timerOverheadNs();
  log(`timer: two process.hrtime.bigint() calls cost ~${overhead} ns (included in every latency sample, not subtracted)`);

  const started = process.hrtime.bigint();
  let mixed: MixedResult | undefined = mixedPhase(cfg, warmup, reps, gc);
  // The workload is unreachable now; the heap at the end is the mixed-run engine (and the runtime).
  const restingEnd = mixed.engine.state.live.size();
  gc();
  gc();
  const heapEndBytes = process.memoryUsage().heapUsed;
  const m = { ...mixed, engine: undefined };
  mixed = undefined;

  log(`heap phase: ${heapOrders} resting orders, ${heapAccounts} accounts ...`);
  const heap: HeapResult = heapPhase(cfg.seed + 1, heapOrders, cfg.markets, heapAccounts, gc);
  check(heap.rejected === 0 && heap.trades === 0 && heap.resting === heapOrders, `heap phase: ${heap.rejected} rejected, ${heap.trades} trades, ${heap.resting} of ${heapOrders} resting`);
  check(heap.invariantViolations.length === 0, `heap phase invariants: ${heap.invariantViolations.slice(0, 3).join('; ')}`);

  const oursOps = median(m.oursRuns);
  const peerOps = median(m.peerRuns);
  const ratio = oursOps / peerOps;
  const oursCpuOps = median(m.oursCpuRuns);
  const peerCpuOps = median(m.peerCpuRuns);
  const loadAtEnd = os.loadavg()[0] ?? 0;
  const L = m.oursLatency;
  const P = m.peerLatency;
  const heapMbEnd = heapEndBytes / 1e6;
  const targetRatio = ratio >= TARGET_RATIO;
  const targetP99 = L.p99Ns / 1000 <= TARGET_P99_US;
  const targetHeap = heap.mbPerMillion <= TARGET_HEAP_MB_PER_MILLION;

  const rows: [string, string, string, string][] = [
    ['metric', 'ours', 'peer (nodejs-order-book)', 'target'],
    ['ops/s, plain loop (median of ' + reps + ')', fmt(oursOps), fmt(peerOps), `ratio ${ratio.toFixed(2)}x (>= ${TARGET_RATIO}x) ${targetRatio ? 'MET' : 'MISSED'}`],
    ['ops/s, plain loop (all runs)', m.oursRuns.map(fmt).join(' / '), m.peerRuns.map(fmt).join(' / '), ''],
    ['ops per CPU-second, plain loop (median)', fmt(oursCpuOps), fmt(peerCpuOps), `ratio ${(oursCpuOps / peerCpuOps).toFixed(2)}x`],
    ['ops/s, with per-op timing', fmt(m.oursTimedOpsPerSec), fmt(m.peerTimedOpsPerSec), ''],
    ['latency p50 (us)', String(us(L.p50Ns)), String(us(P.p50Ns)), ''],
    ['latency p90 (us)', String(us(L.p90Ns)), String(us(P.p90Ns)), ''],
    ['latency p99 (us)', String(us(L.p99Ns)), String(us(P.p99Ns)), `<= ${TARGET_P99_US} ${targetP99 ? 'MET' : 'MISSED'}`],
    ['latency p99.9 (us)', String(us(L.p999Ns)), String(us(P.p999Ns)), ''],
    ['latency max (us)', String(us(L.maxNs)), String(us(P.maxNs)), ''],
    ['latency mean (us)', String(us(L.meanNs)), String(us(P.meanNs)), ''],
    ['resting orders at end', fmt(restingEnd), fmt(m.peerResting), ''],
    ['heap at end of mixed run (MB)', heapMbEnd.toFixed(1), '', ''],
    [`heap phase: ${fmt(heap.resting)} resting, MB/1M`, heap.mbPerMillion.toFixed(1), '', `<= ${TARGET_HEAP_MB_PER_MILLION} ${targetHeap ? 'MET' : 'MISSED'}`],
    ['heap phase: bytes per resting order', heap.bytesPerOrder.toFixed(0), '', ''],
    ['heap phase: place rate (orders/s)', fmt(heap.orders / heap.seconds), '', ''],
  ];
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((row) => (row[c] as string).length)));
  log();
  log(`workload: ${fmt(cfg.ops)} ops = ${fmt(m.stats.limits)} GTC limit (${((100 * m.stats.crossingLimits) / Math.max(1, m.stats.limits)).toFixed(1)}% crossing) + ${fmt(m.stats.cancels)} cancels + ${fmt(m.stats.fak)} FAK sweeps + ${fmt(m.stats.fok)} FOK; ${fmt(m.stats.fills)} fills; rejected: ours ${m.oursRejected}, peer ${m.peerRejected} of ${fmt(m.placed)} orders`);
  log('"ops/s" counts every command (place and cancel); the JSON ours/peer_orders_per_sec are the plain-loop medians. MB = 10^6 bytes.');
  rows.forEach((row, i) => {
    log('| ' + row.map((cell, c) => pad(cell, widths[c] as number)).join(' | ') + ' |');
    if (i === 0) log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  });
  log(`machine: ${machine}; node ${process.version}; load average ${loadAtStart.toFixed(2)} at start, ${loadAtEnd.toFixed(2)} at end; total ${seconds(started).toFixed(1)} s`);

  failIfAny();

  const result = {
    ours_orders_per_sec: Math.round(oursOps),
    peer_orders_per_sec: Math.round(peerOps),
    ratio: Number(ratio.toFixed(3)),
    throughput_basis: `median of ${reps} plain-loop runs, commands (place + cancel) per second`,
    ours_orders_per_cpu_sec: Math.round(oursCpuOps),
    peer_orders_per_cpu_sec: Math.round(peerCpuOps),
    ratio_cpu: Number((oursCpuOps / peerCpuOps).toFixed(3)),
    ours_orders_per_sec_timed: Math.round(m.oursTimedOpsPerSec),
    peer_orders_per_sec_timed: Math.round(m.peerTimedOpsPerSec),
    p50_us: us(L.p50Ns, 3),
    p99_us: us(L.p99Ns, 3),
    p999_us: us(L.p999Ns, 3),
    max_us: us(L.maxNs, 3),
    peer_p50_us: us(P.p50Ns, 3),
    peer_p99_us: us(P.p99Ns, 3),
    peer_p999_us: us(P.p999Ns, 3),
    peer_max_us: us(P.maxNs, 3),
    timer_overhead_ns: overhead,
    resting_orders_end: restingEnd,
    heap_mb_end: Number(heapMbEnd.toFixed(1)),
    heap_phase_resting: heap.resting,
    heap_mb_per_million_resting: Number(heap.mbPerMillion.toFixed(1)),
    ops: cfg.ops,
    seed: cfg.seed,
    markets: cfg.markets,
    accounts: cfg.accounts,
    node: process.version,
    load_avg_start: Number(loadAtStart.toFixed(2)),
    target_ratio_met: targetRatio,
    target_p99_met: targetP99,
    target_heap_met: targetHeap,
  };
  log(JSON.stringify(result));
}

main();
