// `npm run bench:scavenge`: what the state that holds resting orders does to the young generation's
// collections (scavenges), whose pauses stop the request thread and set the tail at a steady rate. The real
// engine builds a book of BENCH_WARM_OPS (200,000) operations on BENCH_MARKETS (2) markets from BENCH_ACCOUNTS
// (200) accounts, as bench:orders has them (70% GTC bids of 50 shares at 1 to 40 cents, which rest; 30% sells
// of 5 shares at 1 cent, GTC or FAK, which fill the best bid), then BENCH_OPS (150,000) more are timed: ~234,000
// orders rest at the end. Each part runs in a child process of its own (a fresh heap; `--single-threaded-gc`, so
// each pause is the main thread's alone):
//
// - engine: the engine alone;
// - projector: the engine and the projector's open orders (projections/builders/orders.ts, rows dropped);
// - readModel: the engine and the in-memory read model (projections/live/liveState.ts, default bounds), given
//   each record's events as the engine host hands them over (the same objects, no decode);
// - publisher: the engine and the WebSocket publisher (api/ws/streamPublisher.ts) following every order (the key
//   that places them watched, as while it has a user connection; nothing subscribed, so no message is built;
//   with nobody watching it follows none);
// - mainThread: the engine, the read model and the publisher: what the service's request thread holds of the
//   resting orders, but for the notifications' smaller record of each (bench:resting-memory).
//
// Per part: the scavenges in the timed window, their mean and longest pause, the bytes each copied within the
// young generation and promoted to the old (V8's --trace-gc-nvp), the copy rate (KB per ms of pause), and the
// pause and the apply time per operation. The copy rate is the figure to watch: the parts copy about the same
// bytes per scavenge, and what slows a scavenge beside the read model is its old-to-new pointers (the
// old objects the operations write young objects into: maps, per-account windows), scanned from the
// remembered set at every scavenge. The last line is one JSON object: {bench: 'scavenge', warmOps, ops,
// parts: {<part>: {resting, heapMb, scavenges, pauseMsMean, pauseMsMax, copiedKbMean, kbPerMs, pauseUsPerOp,
// applyUsPerOp}}}.

import { spawnSync } from 'node:child_process';
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ENGINE_CONFIG, Engine, type Command, type EngineEvent } from '../engine/index.js';
import type { Submission } from '../host/engineHost.js';
import { StreamPublisher } from '../api/ws/streamPublisher.js';
import { OrdersBuilder, type FillOrders } from '../projections/builders/orders.js';
import { LiveState } from '../projections/live/liveState.js';
import { DiscardRows } from '../projections/rows.js';
import { hexId } from './collectedHeap.js';
import { Rng } from './prng.js';

const PARTS = ['engine', 'projector', 'readModel', 'publisher', 'mainThread'] as const;
type Part = (typeof PARTS)[number];

const WARM_OPS = Number(process.env.BENCH_WARM_OPS ?? 200_000);
const OPS = Number(process.env.BENCH_OPS ?? 150_000);
/** As bench:orders: its 200 wallets on its 2 markets. */
const MARKETS = Number(process.env.BENCH_MARKETS ?? 2);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 200);
const USDC = 1_000_000;
const MEASURE = 'scavenge-bench: window starts';

interface PartResult {
  resting: number;
  heapMb: number;
  scavenges: number;
  pauseMsMean: number;
  pauseMsMax: number;
  copiedKbMean: number;
  kbPerMs: number;
  pauseUsPerOp: number;
  applyUsPerOp: number;
}

/** Child: runs the workload with `part` holding the records, prints the marker, then one JSON line. */
function child(part: Part): void {
  const engine = new Engine();
  const live = part === 'readModel' || part === 'mainThread' ? new LiveState({ feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount }) : undefined;
  const orders = part === 'projector' ? new OrdersBuilder() : undefined;
  const publisher =
    part === 'publisher' || part === 'mainThread'
      ? new StreamPublisher({ engine, fanout: { publish: () => {}, subscribers: () => 0 }, catalog: () => undefined, clock: () => time })
      : undefined;
  publisher?.watchKey('bench');
  const sink = new DiscardRows();
  const fills: FillOrders[] = [];
  let time = 1_800_000_000_000;
  let pos = 0;
  const run = (c: Submission): void => {
    const command = { ...c, time: (time += 1) } as Command;
    const events: EngineEvent[] = engine.apply(command);
    pos += 1;
    if (live !== undefined) live.apply({ pos, events });
    if (orders !== undefined) orders.apply({ pos, events }, sink, fills);
    if (publisher !== undefined) publisher.publish([{ pos, command, events }]);
  };
  const tokens: string[] = [];
  const markets: string[] = [];
  for (let i = 0; i < MARKETS; i++) {
    const conditionId = hexId('c1', i, 64);
    const tokenIds: [string, string] = [String(7_000_000 + 2 * i), String(7_000_001 + 2 * i)];
    markets.push(conditionId);
    tokens.push(tokenIds[0]);
    run({ type: 'ListMarket', conditionId, tokenIds, tickSize: 10_000, minSize: USDC, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  }
  const accounts = Array.from({ length: ACCOUNTS }, (_, i) => hexId('ac', i, 40));
  for (const account of accounts) {
    run({ type: 'Deposit', account, amount: 100_000 * USDC });
    for (const conditionId of markets) run({ type: 'Split', account, conditionId, amount: Math.floor(20_000 / MARKETS) * USDC });
  }
  const rng = new Rng(12_345);
  let n = 0;
  const op = (): void => {
    n += 1;
    const account = accounts[rng.int(ACCOUNTS)] as string;
    const tokenId = tokens[rng.int(MARKETS)] as string;
    const orderId = hexId('0d', n, 64);
    if (rng.next() < 0.7) {
      const cents = 1 + rng.int(40);
      run({ type: 'PlaceOrder', orderId, account, owner: 'bench', tokenId, side: 'BUY', makerAmount: (50 * cents * USDC) / 100, takerAmount: 50 * USDC, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: 0 });
    } else {
      const orderType = rng.next() < 0.5 ? 'GTC' : 'FAK';
      run({ type: 'PlaceOrder', orderId, account, owner: 'bench', tokenId, side: 'SELL', makerAmount: 5 * USDC, takerAmount: (5 * USDC) / 100, orderType, postOnly: false, expiration: 0, dedupeUntil: 0 });
    }
  };
  for (let i = 0; i < WARM_OPS; i++) op();
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  gc();
  const pauses: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) pauses.push(e.duration);
  });
  observer.observe({ entryTypes: ['gc'] });
  console.log(MEASURE);
  const cpu = process.cpuUsage();
  for (let i = 0; i < OPS; i++) op();
  const used = process.cpuUsage(cpu);
  setTimeout(() => {
    observer.disconnect();
    const pauseMs = pauses.reduce((a, b) => a + b, 0);
    console.log(JSON.stringify({
      resting: engine.state.live.size(),
      heapMb: Math.round(process.memoryUsage().heapUsed / 1e6),
      pauseMsMax: Math.max(0, ...pauses),
      pauseUsPerOp: (pauseMs * 1000) / OPS,
      applyUsPerOp: (used.user + used.system - pauseMs * 1000) / OPS,
    }));
  }, 100);
}

/** The nvp line's number for `key` (0 when absent). */
function nvp(line: string, key: string): number {
  const m = new RegExp(`(?:^| )${key.replace('.', '\\.')}=([0-9.]+)`).exec(line);
  return m === null ? 0 : Number(m[1]);
}

/** Parent: one child per part, its scavenges read from --trace-gc-nvp after the marker. */
function measure(part: Part): PartResult {
  const self = fileURLToPath(import.meta.url);
  const out = spawnSync(process.execPath, ['--expose-gc', '--single-threaded-gc', '--trace-gc-nvp', self, 'child', part], {
    encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env: process.env,
  });
  if (out.status !== 0) throw new Error(`${part}: exit ${out.status}\n${out.stderr}`);
  const lines = out.stdout.split('\n');
  const start = lines.indexOf(MEASURE);
  if (start < 0) throw new Error(`${part}: no window marker`);
  let scavenges = 0;
  let pause = 0;
  let copied = 0;
  let summary: Omit<PartResult, 'scavenges' | 'pauseMsMean' | 'copiedKbMean' | 'kbPerMs'> | undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('{')) summary = JSON.parse(line) as typeof summary;
    else if (line.includes(' gc=s ')) {
      scavenges += 1;
      pause += nvp(line, 'pause');
      copied += nvp(line, 'new_space_survived') + nvp(line, 'promoted');
    }
  }
  if (summary === undefined || scavenges === 0) throw new Error(`${part}: no summary or no scavenge in the window`);
  return {
    ...summary,
    scavenges,
    pauseMsMean: pause / scavenges,
    copiedKbMean: copied / 1024 / scavenges,
    kbPerMs: copied / 1024 / pause,
  };
}

if (process.argv[2] === 'child') {
  child(process.argv[3] as Part);
} else {
  const wanted = (process.env.BENCH_PARTS ?? PARTS.join(',')).split(',') as Part[];
  for (const p of wanted) if (!PARTS.includes(p)) throw new Error(`BENCH_PARTS: unknown part ${p} (${PARTS.join(', ')})`);
  console.log(`scavenges while ${OPS} operations run on a book built by ${WARM_OPS} (one process per part, --single-threaded-gc)`);
  console.log('| part | resting orders | JS heap MB | scavenges | pause mean / longest ms | copied per scavenge KB | KB copied per ms of pause | pause / apply µs per operation |');
  console.log('|---|---|---|---|---|---|---|---|');
  const parts: Partial<Record<Part, PartResult>> = {};
  const f = (n: number, digits = 1): string => n.toFixed(digits);
  for (const p of wanted) {
    const r = measure(p);
    parts[p] = r;
    console.log(`| ${p} | ${r.resting} | ${r.heapMb} | ${r.scavenges} | ${f(r.pauseMsMean, 2)} / ${f(r.pauseMsMax)} | ${f(r.copiedKbMean, 0)} | ${f(r.kbPerMs, 0)} | ${f(r.pauseUsPerOp, 2)} / ${f(r.applyUsPerOp, 2)} |`);
  }
  console.log(JSON.stringify({ bench: 'scavenge', warmOps: WARM_OPS, ops: OPS, parts }));
}
