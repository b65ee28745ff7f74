// One run of one side of `npm run bench:engine` (ours or the peer), in a fresh process of its own: the
// parent (engineBench.ts) forks this file once per run, one process at a time, with the same configuration
// for both sides, so neither side's garbage, heap size, JIT state or idle background work is present while
// the other is measured. Every process does the same steps:
//   1. generate the workload from the seed (the generator drives a private engine; identical every time),
//   2. warm up: the plain loop and the timed loop once each on throwaway engines/books,
//   3. one throughput run: the plain loop on a fresh engine/book with the untimed setup applied,
//   4. when asked, the latency run: every operation timed, on another fresh engine/book,
//   5. report over IPC: the measurements, the last run's books and resting count, check failures, and the
//      heap with the workload dropped; then exit.
//
// Usage (by the parent only): engineBenchSide.js <ours|peer> <SideConfig as JSON>; needs --expose-gc.

import { Engine, type Command, type EngineEvent } from '../engine/index.js';
import { generateWorkload, type Workload } from './workload.js';
import { PeerBooks, type PeerOp } from './peer.js';
import { summarise } from './latency.js';
import type { BenchSide, BookLevels, SideConfig, SideReport } from './engineBenchShared.js';

function log(side: BenchSide, line: string): void {
  process.stdout.write(`  [${side}] ${line}\n`);
}

function seconds(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** CPU seconds (user + system, all threads of the process) since `start`. */
function cpuSeconds(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

// ---- the two sides behind one shape, so the measuring code below is the same for both -------------------

interface Runner<S> {
  /** A new engine or set of books with the untimed setup applied. */
  fresh(): S;
  /** Applies ops[0..n) with no timing inside the loop; returns the number of refused orders. */
  loop(s: S, n: number): number;
  /** Applies ops[0..n), timing each into `lat` (ns); returns the number of refused orders. */
  timed(s: S, n: number, lat: Float64Array): number;
  /** Problems with a finished run (replay mismatch), if any. */
  check(s: S, label: string): string[];
  /** Broken invariants of a finished run's state, if any. */
  invariants(s: S): string[];
  books(s: S): BookLevels[];
  resting(s: S): number;
}

function oursRunner(wl: Workload): Runner<Engine> {
  const ops = wl.ops;
  return {
    fresh() {
      const engine = new Engine();
      for (const cmd of wl.setup) {
        for (const e of engine.apply(cmd)) {
          if (e.type === 'OrderRejected' || e.type === 'CommandRejected') throw new Error(`setup refused: ${e.message}`);
        }
      }
      return engine;
    },
    loop: (engine, n) => oursLoop(engine, ops, n),
    timed: (engine, n, lat) => oursTimed(engine, ops, n, lat),
    check(engine, label) {
      const problems: string[] = [];
      if (engine.seq !== wl.expectedSeq || engine.state.live.size() !== wl.expectedResting) {
        problems.push(`${label}: seq ${engine.seq} / resting ${engine.state.live.size()}, generator had ${wl.expectedSeq} / ${wl.expectedResting}`);
      }
      return problems;
    },
    invariants(engine) {
      const violations = engine.checkInvariants();
      return violations.length === 0 ? [] : [`invariants: ${violations.length} violations, first: ${violations.slice(0, 3).join('; ')}`];
    },
    books(engine) {
      return wl.universe.markets.map((market) => {
        const book = engine.book(market.yes);
        const pairs = (levels: readonly { price: number; size: number }[] | undefined): [number, number][] =>
          (levels ?? []).map((level) => [level.price, level.size]);
        return { bids: pairs(book?.bids), asks: pairs(book?.asks) };
      });
    },
    resting: (engine) => engine.state.live.size(),
  };
}

function peerRunner(wl: Workload, markets: number): Runner<PeerBooks> {
  const ops = wl.peerOps;
  return {
    fresh() {
      const peer = new PeerBooks(markets);
      for (const op of wl.peerSetup) if (peer.apply(op) !== 0) throw new Error('peer setup refused an order');
      return peer;
    },
    loop: (peer, n) => peerLoop(peer, ops, n),
    timed: (peer, n, lat) => peerTimed(peer, ops, n, lat),
    check: () => [],
    invariants: () => [],
    books: (peer) => peer.books.map((_, m) => peer.levels(m)),
    resting: (peer) => countPeerOrders(peer),
  };
}

function oursLoop(engine: Engine, ops: readonly Command[], n: number): number {
  let rejected = 0;
  for (let i = 0; i < n; i++) {
    const events = engine.apply(ops[i] as Command);
    for (let j = 0; j < events.length; j++) if ((events[j] as EngineEvent).type === 'OrderRejected') rejected += 1;
  }
  return rejected;
}

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

/** Resting orders in the peer's books, through its public snapshot. */
function countPeerOrders(peer: PeerBooks): number {
  let count = 0;
  for (const book of peer.books) {
    const snap = book.snapshot();
    for (const level of [...snap.bids, ...snap.asks]) count += level.orders.length;
  }
  return count;
}

// ---- the run: the same steps for both sides ---------------------------------------------------------------

/** The report without the heap reading, and the last run's engine/books (kept alive for that reading). */
interface Measured {
  readonly report: Omit<SideReport, 'heapEndBytes'>;
  readonly last: unknown;
}

/** The part of the report the runs give (the rest comes from the workload and the heap reading). */
type RunPart = Omit<SideReport, 'heapEndBytes' | 'genSeconds' | 'stats' | 'placed'>;

/** Warm-up, the throughput run and, if asked, the latency run; then the last run's end state. */
function measure<S>(side: BenchSide, runner: Runner<S>, n: number, cfg: SideConfig, gc: () => void): { report: RunPart; last: S } {
  const w = Math.min(cfg.warmup, n);
  const wStart = process.hrtime.bigint();
  runner.loop(runner.fresh(), w);
  runner.timed(runner.fresh(), w, new Float64Array(w));
  const warmupSeconds = seconds(wStart);
  log(side, `warm-up: ${w} ops on each loop, ${warmupSeconds.toFixed(1)} s`);

  let last = runner.fresh();
  gc();
  const c = process.cpuUsage();
  const t = process.hrtime.bigint();
  let rejected = runner.loop(last, n);
  const sec = seconds(t);
  const cpu = cpuSeconds(c);
  log(side, `throughput run: ${fmt(n / sec)} ops/s (${sec.toFixed(2)} s)`);
  const failures = runner.check(last, 'replay');

  let latency: SideReport['latency'];
  if (cfg.latency) {
    const lat = new Float64Array(n);
    last = runner.fresh();
    gc();
    const lt = process.hrtime.bigint();
    rejected = Math.max(rejected, runner.timed(last, n, lat));
    const opsPerSec = n / seconds(lt);
    latency = { summary: summarise(lat), opsPerSec };
    failures.push(...runner.check(last, 'latency replay'));
    log(side, `latency run: ${fmt(opsPerSec)} ops/s (per-op timing on)`);
  }
  failures.push(...runner.invariants(last));
  const report: RunPart = {
    side, warmupSeconds, opsPerSec: n / sec, cpuOpsPerSec: n / cpu, rejected, resting: runner.resting(last), books: runner.books(last), failures,
    ...(latency === undefined ? {} : { latency }),
  };
  return { report, last };
}

/**
 * Generates and checks the workload, then measures. The workload lives only in this call's frame: once it
 * has returned nothing references it (an interpreter frame keeps its temporaries alive, so the heap is read
 * by the caller).
 */
function run(side: BenchSide, cfg: SideConfig, gc: () => void): Measured {
  const genStart = process.hrtime.bigint();
  const wl = generateWorkload(cfg.workload);
  const genSeconds = seconds(genStart);
  const s = wl.stats;
  const placed = s.limits + s.fak + s.fok;
  log(side, `workload generated in ${genSeconds.toFixed(1)} s`);
  const failures: string[] = [];
  if (s.orderRejected > cfg.maxRejectedFraction * placed) {
    failures.push(`workload: ${s.orderRejected} of ${placed} orders rejected by the engine (codes ${JSON.stringify(s.rejectCodes)}); the workload is wrong`);
  }
  if (s.cancelRejected > cfg.maxRejectedFraction * Math.max(1, s.cancels)) failures.push(`workload: ${s.cancelRejected} of ${s.cancels} cancels rejected`);
  if (failures.length > 0) {
    // A wrong workload is not worth timing.
    const report = { side, genSeconds, warmupSeconds: 0, stats: s, placed, opsPerSec: 0, cpuOpsPerSec: 0, rejected: 0, resting: 0, books: [], failures };
    return { report, last: undefined };
  }
  const n = wl.ops.length;
  const m = side === 'ours' ? measure(side, oursRunner(wl), n, cfg, gc) : measure(side, peerRunner(wl, cfg.workload.markets), n, cfg, gc);
  if (m.report.rejected > cfg.maxRejectedFraction * placed) m.report.failures.push(`${side}: ${m.report.rejected} of ${placed} orders rejected`);
  return { report: { ...m.report, genSeconds, stats: s, placed }, last: m.last };
}

function main(): void {
  const [side, raw] = process.argv.slice(2);
  if ((side !== 'ours' && side !== 'peer') || raw === undefined) throw new Error('usage: engineBenchSide.js <ours|peer> <config JSON>');
  const gc = globalThis.gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error('engineBenchSide.js is run by engineBench.js (it reports over IPC)');
  const measured = run(side, JSON.parse(raw) as SideConfig, gc);
  // The heap now holds the last run's engine/books and the runtime, not the workload.
  gc();
  gc();
  const report: SideReport = { ...measured.report, heapEndBytes: process.memoryUsage().heapUsed };
  send(report, undefined, {}, () => process.disconnect());
  if (measured.last === null) throw new Error('unreachable'); // keeps the last run alive through the reading above
}

main();
