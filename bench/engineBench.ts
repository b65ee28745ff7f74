// `npm run bench:engine`: the matching engine against the peer, `nodejs-order-book`, on one fixed-seed
// mixed workload, then a heap test with 1M resting orders. See workload.ts for the workload and heap.ts for
// the heap phase.
//
// Every measured run happens in a fresh child process of its own (engineBenchSide.ts), one process at a
// time, so that neither side's garbage, heap size, JIT state or idle background work is present while the
// other is measured (in one process, whichever ran second paid for the first one's heap). Each child gets
// the same configuration for both sides and does the same steps: generate the workload from the seed
// (untimed; identical every time), warm up (the plain and the timed loop once each on throwaway
// engines/books), then one throughput run in a plain loop (no per-op timing; a fresh engine/book with the
// untimed setup applied). BENCH_REPS children per side, the sides alternating and taking turns at going
// first, so drifting load on the machine falls on both alike; the median is reported. Each side's last
// child also does the latency run (per-operation timing with process.hrtime.bigint()) and reads its heap.
// This process then checks correctness (replay reproduces the generator and invariants hold, in every ours
// child; the peer's books equal ours level by level), runs the heap phase (ours only, in this process,
// which holds no workload), prints a table and, as its last line, one JSON object.
//
// Env: BENCH_SEED, BENCH_OPS, BENCH_MARKETS, BENCH_ACCOUNTS, BENCH_RESTING (per market), BENCH_WARMUP,
// BENCH_REPS, BENCH_HEAP_ORDERS, BENCH_HEAP_ACCOUNTS, BENCH_DEDUPE_MS. A workload whose orders are refused
// (more than 1%), a failed invariant or a replay mismatch exits with status 1 and no JSON line.

import os from 'node:os';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { WorkloadConfig } from './workload.js';
import { timerOverheadNs, us } from './latency.js';
import { heapPhase, type HeapResult } from './heap.js';
import { median, type BenchSide, type BookLevels, type SideConfig, type SideReport } from './engineBenchShared.js';

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

// ---- the runs, each in a child process ------------------------------------------------------------------

/** Forks engineBenchSide.js for one run of one side (same node flags as this process) and waits for its report. */
function runChild(side: BenchSide, cfg: SideConfig): Promise<SideReport> {
  const script = fileURLToPath(new URL('./engineBenchSide.js', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = fork(script, [side, JSON.stringify(cfg)], { execArgv: process.execArgv, stdio: 'inherit' });
    let report: SideReport | undefined;
    child.on('message', (message) => {
      report = message as SideReport;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0 && report !== undefined) resolve(report);
      else reject(new Error(`the ${side} side's process exited (${signal ?? `status ${String(code)}`}) without a report`));
    });
  });
}

/**
 * `reps` runs per side, one process at a time, alternating and taking turns at going first; each side's
 * last run also measures latency. Stops at the first run that reports a failure.
 */
async function measureSides(cfg: Omit<SideConfig, 'latency'>, reps: number): Promise<{ ours: SideReport[]; peer: SideReport[] }> {
  const reports: Record<BenchSide, SideReport[]> = { ours: [], peer: [] };
  for (let r = 0; r < reps; r++) {
    const order: BenchSide[] = r % 2 === 0 ? ['ours', 'peer'] : ['peer', 'ours'];
    for (const side of order) {
      log(`run ${r + 1}/${reps}, ${side === 'ours' ? 'ours (this engine)' : 'peer (nodejs-order-book)'}, in a fresh process:`);
      const report = await runChild(side, { ...cfg, latency: r === reps - 1 });
      reports[side].push(report);
      if (report.failures.length > 0) return reports; // a wrong workload or a broken run: nothing more to compare
    }
  }
  return reports;
}

function sameLevels(a: BookLevels, b: BookLevels): boolean {
  const same = (x: [number, number][], y: [number, number][]): boolean =>
    x.length === y.length && x.every((level, i) => level[0] === y[i]?.[0] && level[1] === y[i]?.[1]);
  return same(a.bids, b.bids) && same(a.asks, b.asks);
}

// ---- main -----------------------------------------------------------------------------------------------

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

async function main(): Promise<void> {
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error('run with node --expose-gc (npm run bench:engine does)');

  const workload: WorkloadConfig = {
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
  const sideConfig = { workload, warmup, maxRejectedFraction: MAX_REJECTED_FRACTION };

  const cpus = os.cpus();
  const machine = `${cpus[0]?.model ?? 'unknown CPU'} x${cpus.length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()} ${os.arch()}`;
  log(`engine benchmark: node ${process.version} (V8 ${process.versions.v8}), ${machine}`);
  const loadAtStart = os.loadavg()[0] ?? 0;
  log(`load average at start: ${loadAtStart.toFixed(2)} (${cpus.length} CPUs); other processes on the machine slow both engines alike, the CPU-time rates below are less sensitive to it`);
  log(`config: BENCH_SEED=${workload.seed} BENCH_OPS=${workload.ops} BENCH_MARKETS=${workload.markets} BENCH_ACCOUNTS=${workload.accounts} BENCH_RESTING=${workload.restingTarget} BENCH_WARMUP=${warmup} BENCH_REPS=${reps} BENCH_HEAP_ORDERS=${heapOrders} BENCH_HEAP_ACCOUNTS=${heapAccounts} BENCH_DEDUPE_MS=${workload.dedupeMs}`);
  log('isolation: every run in a fresh child process of its own, one process at a time (same seed, workload, warm-up and loop for both sides); the sides alternate');
  const overhead = timerOverheadNs();
  log(`timer: two process.hrtime.bigint() calls cost ~${overhead} ns (included in every latency sample, not subtracted)`);

  const started = process.hrtime.bigint();
  const runs = await measureSides(sideConfig, reps);
  for (const report of [...runs.ours, ...runs.peer]) failures.push(...report.failures);
  failIfAny(); // a wrong workload or a broken engine is not worth comparing
  const ours = runs.ours[runs.ours.length - 1] as SideReport; // the last run of each side: latency, books, heap
  const peer = runs.peer[runs.peer.length - 1] as SideReport;
  const oursLatency = ours.latency;
  const peerLatency = peer.latency;
  if (oursLatency === undefined || peerLatency === undefined) throw new Error('the last run of each side measures latency');

  const s = ours.stats;
  log(`  workload: ${s.limits} limit (${((100 * s.crossingLimits) / Math.max(1, s.limits)).toFixed(1)}% crossing), ${s.cancels} cancels, ${s.fak} FAK sweeps, ${s.fok} FOK, ${s.fills} fills; generator saw ${s.orderRejected} orders rejected, ${s.cancelRejected} cancels rejected`);
  const statsSeen = new Set([...runs.ours, ...runs.peer].map((report) => JSON.stringify(report.stats)));
  check(statsSeen.size === 1, 'the side processes generated different workloads');
  const oursBooks = ours.books;
  const peerBooks = peer.books;
  const levelMismatches = oursBooks.filter((book, m) => peerBooks[m] === undefined || !sameLevels(book, peerBooks[m] as BookLevels)).length;
  check(levelMismatches === 0 && oursBooks.length === workload.markets, `peer: ${levelMismatches} of ${workload.markets} books differ from ours at the end (the peer was not fed the same orders)`);
  check(peer.resting === ours.resting, `peer holds ${peer.resting} resting orders, ours ${ours.resting}`);

  log(`heap phase (this process): ${heapOrders} resting orders, ${heapAccounts} accounts ...`);
  const heap: HeapResult = heapPhase(workload.seed + 1, heapOrders, workload.markets, heapAccounts, gc);
  check(heap.rejected === 0 && heap.trades === 0 && heap.resting === heapOrders, `heap phase: ${heap.rejected} rejected, ${heap.trades} trades, ${heap.resting} of ${heapOrders} resting`);
  check(heap.invariantViolations.length === 0, `heap phase invariants: ${heap.invariantViolations.slice(0, 3).join('; ')}`);

  const oursRuns = runs.ours.map((run) => run.opsPerSec);
  const peerRuns = runs.peer.map((run) => run.opsPerSec);
  const oursOps = median(oursRuns);
  const peerOps = median(peerRuns);
  const ratio = oursOps / peerOps;
  const oursCpuOps = median(runs.ours.map((run) => run.cpuOpsPerSec));
  const peerCpuOps = median(runs.peer.map((run) => run.cpuOpsPerSec));
  const oursRejected = Math.max(...runs.ours.map((run) => run.rejected));
  const peerRejected = Math.max(...runs.peer.map((run) => run.rejected));
  const loadAtEnd = os.loadavg()[0] ?? 0;
  const L = oursLatency.summary;
  const P = peerLatency.summary;
  const heapMbEnd = ours.heapEndBytes / 1e6;
  const targetRatio = ratio >= TARGET_RATIO;
  const targetP99 = L.p99Ns / 1000 <= TARGET_P99_US;
  const targetHeap = heap.mbPerMillion <= TARGET_HEAP_MB_PER_MILLION;

  const rows: [string, string, string, string][] = [
    ['metric', 'ours', 'peer (nodejs-order-book)', 'target'],
    ['ops/s, plain loop (median of ' + reps + ')', fmt(oursOps), fmt(peerOps), `ratio ${ratio.toFixed(2)}x (>= ${TARGET_RATIO}x) ${targetRatio ? 'MET' : 'MISSED'}`],
    ['ops/s, plain loop (all runs)', oursRuns.map(fmt).join(' / '), peerRuns.map(fmt).join(' / '), ''],
    ['ops per CPU-second, plain loop (median)', fmt(oursCpuOps), fmt(peerCpuOps), `ratio ${(oursCpuOps / peerCpuOps).toFixed(2)}x`],
    ['ops/s, with per-op timing', fmt(oursLatency.opsPerSec), fmt(peerLatency.opsPerSec), ''],
    ['latency p50 (us)', String(us(L.p50Ns)), String(us(P.p50Ns)), ''],
    ['latency p90 (us)', String(us(L.p90Ns)), String(us(P.p90Ns)), ''],
    ['latency p99 (us)', String(us(L.p99Ns)), String(us(P.p99Ns)), `<= ${TARGET_P99_US} ${targetP99 ? 'MET' : 'MISSED'}`],
    ['latency p99.9 (us)', String(us(L.p999Ns)), String(us(P.p999Ns)), ''],
    ['latency max (us)', String(us(L.maxNs)), String(us(P.maxNs)), ''],
    ['latency mean (us)', String(us(L.meanNs)), String(us(P.meanNs)), ''],
    ['resting orders at end', fmt(ours.resting), fmt(peer.resting), ''],
    ['heap at end of mixed run (MB)', heapMbEnd.toFixed(1), (peer.heapEndBytes / 1e6).toFixed(1), ''],
    [`heap phase: ${fmt(heap.resting)} resting, MB/1M`, heap.mbPerMillion.toFixed(1), '', `<= ${TARGET_HEAP_MB_PER_MILLION} ${targetHeap ? 'MET' : 'MISSED'}`],
    ['heap phase: bytes per resting order', heap.bytesPerOrder.toFixed(0), '', ''],
    ['heap phase: place rate (orders/s)', fmt(heap.orders / heap.seconds), '', ''],
  ];
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((row) => (row[c] as string).length)));
  log();
  log(`workload: ${fmt(workload.ops)} ops = ${fmt(s.limits)} GTC limit (${((100 * s.crossingLimits) / Math.max(1, s.limits)).toFixed(1)}% crossing) + ${fmt(s.cancels)} cancels + ${fmt(s.fak)} FAK sweeps + ${fmt(s.fok)} FOK; ${fmt(s.fills)} fills; rejected: ours ${oursRejected}, peer ${peerRejected} of ${fmt(ours.placed)} orders`);
  log('every run in a fresh process of its own, one at a time, the sides alternating (same seed, workload, warm-up and loop). "ops/s" counts every command (place and cancel); the JSON ours/peer_orders_per_sec are the plain-loop medians. MB = 10^6 bytes.');
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
    throughput_basis: `median of ${reps} plain-loop runs, commands (place + cancel) per second; every run in a fresh process of its own, the sides alternating`,
    isolation: 'process-per-run',
    ours_orders_per_cpu_sec: Math.round(oursCpuOps),
    peer_orders_per_cpu_sec: Math.round(peerCpuOps),
    ratio_cpu: Number((oursCpuOps / peerCpuOps).toFixed(3)),
    ours_orders_per_sec_timed: Math.round(oursLatency.opsPerSec),
    peer_orders_per_sec_timed: Math.round(peerLatency.opsPerSec),
    p50_us: us(L.p50Ns, 3),
    p99_us: us(L.p99Ns, 3),
    p999_us: us(L.p999Ns, 3),
    max_us: us(L.maxNs, 3),
    peer_p50_us: us(P.p50Ns, 3),
    peer_p99_us: us(P.p99Ns, 3),
    peer_p999_us: us(P.p999Ns, 3),
    peer_max_us: us(P.maxNs, 3),
    timer_overhead_ns: overhead,
    resting_orders_end: ours.resting,
    heap_mb_end: Number(heapMbEnd.toFixed(1)),
    heap_phase_resting: heap.resting,
    heap_mb_per_million_resting: Number(heap.mbPerMillion.toFixed(1)),
    ops: workload.ops,
    seed: workload.seed,
    markets: workload.markets,
    accounts: workload.accounts,
    node: process.version,
    load_avg_start: Number(loadAtStart.toFixed(2)),
    target_ratio_met: targetRatio,
    target_p99_met: targetP99,
    target_heap_met: targetHeap,
  };
  log(JSON.stringify(result));
}

main().catch((err: unknown) => {
  process.stderr.write(`BENCHMARK FAILED: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
