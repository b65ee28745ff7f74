// `npm run bench:ws`: WebSocket delivery of the market channel, against a bare uWS pub/sub program as the
// ceiling, in one run on one machine with one client for all and messages of one size. The client
// (BENCH_CLIENT): native (default), raw WebSocket subscribers over TCP in C with epoll (bench/ws/wsclient.c,
// BENCH_CLIENT_THREADS processes; bench/ws/nativePool.ts builds and drives it), which leaves the server more
// of the cores it shares with it; or node, the same over node:net in BENCH_CLIENT_THREADS threads of this
// process (bench/ws/subscriberPool.ts). The servers run in a child process each (bench/ws/wsBenchServer.ts).
// Targets:
// - edge: the service's public port, through the header edge (BENCH_EDGE=false: uWS on the port itself);
// - direct: the service's --ws-port (uWS without the edge);
// - bare: the bare uWS program.
//
// Runs:
// 1. latency, per target of BENCH_LATENCY: SUBS_LATENCY subscribers on one token, RATE book changes per
//    second for SECONDS (through the engine host in the service) after WARMUP_SECONDS of the same stream;
//    latency of each delivery = receipt time − the moment its record was durable (the bare program: its
//    publish), on one machine-wide clock.
// 2. throughput, per target of BENCH_THROUGHPUT: SUBS_MAX subscribers, changes as fast as delivery sustains
//    (closed loop: at most WINDOW changes ahead of the slowest subscriber); messages per second delivered.
// Each run also prints the load it ran under: how busy the machine was, CPU per thread of the server and of
// the client, and their event-loop delays.
// Targets: SUBS_MAX (5,000) subscribers held; service ≥ 50% of the bare messages/s; p99 ≤ 20 ms at 1,000
// subscribers and 100 changes/s. The last line is one JSON object.
//
// Env: BENCH_SECONDS (10), BENCH_RATE (100), BENCH_SUBS_LATENCY (1000), BENCH_SUBS_MAX (5000),
// BENCH_WARMUP_SECONDS (3), BENCH_CLIENT (native), BENCH_CLIENT_THREADS (1), BENCH_LATENCY (edge,direct,bare),
// BENCH_THROUGHPUT (edge,bare), BENCH_EDGE;
// BENCH_CPU_PROF=<dir>: a CPU profile of each server's main thread over each drive, in that directory;
// BENCH_DUMP=<dir>: each latency run's figures per change (dumpPerChange()), in that directory.

import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { describeLoad, startLoadProbe, type LoadFigures } from './ws/loadProbe.js';
import { monoMs } from './ws/rawWsClient.js';
import { SubscriberPool } from './ws/subscriberPool.js';
import { buildNativeClient, NativePool } from './ws/nativePool.js';
import { serve, type AckMessage, type DriveRequest, type Mark, type ServerMessage } from './ws/wsBenchServer.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SUBS_LATENCY = Number(process.env.BENCH_SUBS_LATENCY ?? 1000);
const SUBS_MAX = Number(process.env.BENCH_SUBS_MAX ?? 5000);
const CLIENT_THREADS = Number(process.env.BENCH_CLIENT_THREADS ?? 1);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CLIENT_KIND = process.env.BENCH_CLIENT ?? 'native';
if (CLIENT_KIND !== 'native' && CLIENT_KIND !== 'node') throw new Error(`BENCH_CLIENT: native or node, not ${CLIENT_KIND}`);
const CORES = availableParallelism();
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const DUMP_DIR = process.env.BENCH_DUMP;

const TARGETS = ['edge', 'direct', 'bare'] as const;
type Target = (typeof TARGETS)[number];

function targetsOf(name: string, fallback: string): Target[] {
  const list = (process.env[name] ?? fallback).split(',').map((t) => t.trim()).filter((t) => t !== '');
  for (const t of list) if (!(TARGETS as readonly string[]).includes(t)) throw new Error(`${name}: unknown target ${t} (${TARGETS.join(', ')})`);
  return list as Target[];
}

const LABEL: Record<Target, string> = { edge: 'service, public port', direct: 'service, --ws-port', bare: 'bare uWS' };

interface Server {
  readonly child: ChildProcess;
  readonly ready: Extract<ServerMessage, { kind: 'ready' }>;
  next(): Promise<ServerMessage>;
}

async function startServer(mode: Target): Promise<Server> {
  const child = fork(fileURLToPath(import.meta.url), ['server', mode], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const queue: ServerMessage[] = [];
  let waiter: (() => void) | undefined;
  child.on('message', (m: ServerMessage) => {
    queue.push(m);
    waiter?.();
  });
  const next = async (): Promise<ServerMessage> => {
    while (queue.length === 0) {
      if (child.exitCode !== null) throw new Error(`the ${mode} server exited with ${child.exitCode}`);
      await new Promise<void>((r) => {
        waiter = r;
        setTimeout(r, 1000);
      });
    }
    return queue.shift() as ServerMessage;
  };
  const ready = await next();
  if (ready.kind !== 'ready') throw new Error('expected ready');
  return { child, ready, next };
}

interface Latency {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly samples: number;
}

interface Run {
  readonly mode: Target;
  readonly subscribers: number;
  readonly held: number;
  readonly changes: number;
  readonly delivered: number;
  readonly msgsPerSec: number;
  readonly messageBytes: number;
  /** Durable moment → receipt, every delivery. */
  readonly latencyMs?: Latency;
  /** Durable moment → its batch published (the publisher's own work; 0 in the bare program), per change. */
  readonly publishMs?: Latency;
  readonly serverLoad: LoadFigures;
  readonly clientLoad: LoadFigures;
  readonly clientLoopDelayP99Ms: number;
  readonly seconds: number;
}

function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

function summary(values: Float64Array): Latency {
  const sorted = values.sort();
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] ?? 0, samples: sorted.length };
}

/** The driver's own load, with the native client processes' CPU over the same span added as a thread 'wsclient'. */
function withNativeCpu(load: LoadFigures, start: { userMs: number; systemMs: number }, end: { userMs: number; systemMs: number }): LoadFigures {
  const userMs = end.userMs - start.userMs;
  const systemMs = end.systemMs - start.systemMs;
  return { ...load, threadsMs: { ...load.threadsMs, wsclient: userMs + systemMs }, userMs: load.userMs + userMs, systemMs: load.systemMs + systemMs };
}

/**
 * BENCH_DUMP: one row per change, [ms since the first change was durable, durable → published ms, slowest
 * delivery ms, mean delivery ms, deliveries], to see when in a run the slow deliveries came (with the first
 * change's durable moment in monoMs(), to set them beside a trace of the machine's scheduler).
 */
function dumpPerChange(file: string, receipts: { ts: Float64Array; at: Float64Array }, durable: Map<number, number>, marks: readonly Mark[]): void {
  const per = new Map<number, [max: number, sum: number, n: number]>();
  for (let i = 0; i < receipts.ts.length; i++) {
    const time = receipts.ts[i] as number;
    const d = durable.get(time);
    if (d === undefined) continue;
    const l = (receipts.at[i] as number) - d;
    const e = per.get(time) ?? [0, 0, 0];
    e[0] = Math.max(e[0], l);
    e[1] += l;
    e[2]++;
    per.set(time, e);
  }
  const t0 = marks[0]?.[1] ?? 0;
  const rows = marks.map(([time, d, p]) => {
    const [max, sum, n] = per.get(time) ?? [NaN, NaN, 0];
    return [d - t0, p - d, max, sum / n, n].map((x) => Number(x.toFixed(2)));
  });
  writeFileSync(file, JSON.stringify({ firstDurableMonoMs: t0, rows }));
}

async function run(mode: Target, subscribers: number, rate: number): Promise<Run> {
  const server = await startServer(mode);
  const { port, path, subscribe } = server.ready;
  const options = { threads: CLIENT_THREADS, port, path, subscribe, subscribers, record: rate > 0 };
  const pool = CLIENT_KIND === 'native' ? await NativePool.start(options) : await SubscriberPool.start(options);
  await new Promise((r) => setTimeout(r, 500));
  // Unmeasured changes first, so that what is measured is a service whose paths are compiled and warm, as one
  // in operation is, not its first publishes (the same for every target). At a rate, they are the start of the
  // same stream (the server drives on without a pause and counts from the end of the warm-up; the client's
  // receipts of warm-up changes match no mark and are left out); as fast as they go, a separate drive at RATE
  // first, since the flow control counts from the client's start.
  if (rate === 0 && WARMUP_SECONDS > 0) {
    server.child.send({ kind: 'drive', rate: RATE, seconds: WARMUP_SECONDS } satisfies DriveRequest);
    if ((await server.next()).kind !== 'driven') throw new Error('expected driven');
    await new Promise((r) => setTimeout(r, 500));
  }
  await pool.drive();
  const acker =
    rate > 0
      ? undefined
      : setInterval(() => {
          server.child.send({ kind: 'ack', seen: pool.seen } satisfies AckMessage);
        }, 5);
  const profile = PROFILE_DIR === undefined ? undefined : join(PROFILE_DIR, `ws-${mode}-${subscribers}-${rate}.cpuprofile`);
  const warmupSeconds = rate > 0 ? WARMUP_SECONDS : 0;
  server.child.send({ kind: 'drive', rate, seconds: SECONDS, profile, warmupSeconds } satisfies DriveRequest);
  if (warmupSeconds > 0 && (await server.next()).kind !== 'measuring') throw new Error('expected measuring');
  const clientProbe = startLoadProbe(!(pool instanceof NativePool));
  const nativeCpu0 = pool instanceof NativePool ? pool.cpuMs() : undefined;
  const started = monoMs();
  const done = await server.next();
  if (done.kind !== 'driven') throw new Error('expected driven');
  const clientLoad = pool instanceof NativePool && nativeCpu0 !== undefined ? withNativeCpu(clientProbe.stop(), nativeCpu0, pool.cpuMs()) : clientProbe.stop();
  // Deliveries still in flight when the last change was made.
  await new Promise((r) => setTimeout(r, 1000));
  clearInterval(acker);
  const receipts = await pool.finish();
  const span = (Math.max(receipts.last, started + 1) - started) / 1000;
  let latencyMs: Latency | undefined;
  let publishMs: Latency | undefined;
  let delivered = receipts.delivered;
  let msgsPerSec = receipts.delivered / span;
  if (rate > 0) {
    const durable = new Map(done.marks.map(([time, at]) => [time, at]));
    const lat = new Float64Array(receipts.ts.length);
    let m = 0;
    for (let i = 0; i < receipts.ts.length; i++) {
      const d = durable.get(receipts.ts[i] as number);
      if (d !== undefined) lat[m++] = (receipts.at[i] as number) - d;
    }
    latencyMs = summary(lat.subarray(0, m));
    delivered = m;
    msgsPerSec = m / SECONDS;
    if (DUMP_DIR !== undefined) dumpPerChange(join(DUMP_DIR, `ws-${mode}-${subscribers}-${rate}.json`), receipts, durable, done.marks);
    publishMs = summary(Float64Array.from(done.marks, ([, d, p]) => p - d));
  }
  await pool.close();
  server.child.send('stop');
  await new Promise((r) => server.child.once('exit', r));
  return {
    mode,
    subscribers,
    held: receipts.held,
    changes: done.changes,
    delivered,
    msgsPerSec,
    messageBytes: receipts.messageBytes,
    latencyMs,
    publishMs,
    serverLoad: done.load,
    clientLoad,
    clientLoopDelayP99Ms: receipts.loopDelayP99Ms,
    seconds: SECONDS,
  };
}

function show(r: Run): void {
  const lat = r.latencyMs === undefined ? '' : `  latency p50 ${r.latencyMs.p50.toFixed(2)} ms, p99 ${r.latencyMs.p99.toFixed(2)} ms, max ${r.latencyMs.max.toFixed(2)} ms (${r.latencyMs.samples} deliveries)`;
  console.log(`${LABEL[r.mode].padEnd(20)} ${String(r.subscribers).padStart(5)} subscribers (${r.held} held): ${r.changes} changes, ${r.delivered} delivered, ${Math.round(r.msgsPerSec)} msgs/s, ${r.messageBytes} B/msg${lat}`);
  if (r.publishMs !== undefined && r.mode !== 'bare') console.log(`        durable → published: p50 ${r.publishMs.p50.toFixed(2)} ms, p99 ${r.publishMs.p99.toFixed(2)} ms, max ${r.publishMs.max.toFixed(2)} ms`);
  console.log(`        machine ${Math.round(r.serverLoad.machineBusy * 100)}% busy (${CORES} cores); server: ${describeLoad(r.serverLoad, r.seconds)}`);
  const clientDelay = CLIENT_KIND === 'native' ? `epoll round p99 ${r.clientLoopDelayP99Ms.toFixed(2)} ms` : `worst thread's loop delay p99 ${r.clientLoopDelayP99Ms.toFixed(1)} ms`;
  console.log(`        client (${CLIENT_KIND}, ${CLIENT_THREADS}): ${describeLoad(r.clientLoad, r.seconds)}; ${clientDelay}`);
}

async function main(): Promise<void> {
  const latencyTargets = targetsOf('BENCH_LATENCY', 'edge,direct,bare');
  const throughputTargets = targetsOf('BENCH_THROUGHPUT', 'edge,bare');
  if (CLIENT_KIND === 'native') {
    const why = buildNativeClient();
    if (why !== undefined) throw new Error(`the native client (bench/ws/wsclient.c) cannot be built: ${why}; BENCH_CLIENT=node runs the Node client instead`);
  }
  const clientText = CLIENT_KIND === 'native' ? `native client (C, epoll) in ${CLIENT_THREADS} process(es)` : `Node client in ${CLIENT_THREADS} thread(s)`;
  console.log(`bench:ws — ${SECONDS} s per run; latency at ${SUBS_LATENCY} subscribers and ${RATE} changes/s; throughput at ${SUBS_MAX} subscribers; ${clientText}`);
  const latency = new Map<Target, Run>();
  for (const target of latencyTargets) {
    const r = await run(target, SUBS_LATENCY, RATE);
    show(r);
    latency.set(target, r);
  }
  const throughput = new Map<Target, Run>();
  for (const target of throughputTargets) {
    const r = await run(target, SUBS_MAX, 0);
    show(r);
    throughput.set(target, r);
  }
  const bareMax = throughput.get('bare');
  const serviceMax = throughput.get('edge') ?? throughput.get('direct');
  const ratio = serviceMax !== undefined && bareMax !== undefined ? serviceMax.msgsPerSec / bareMax.msgsPerSec : NaN;
  const round = (x: number | undefined): number => Number((x ?? NaN).toFixed(2));
  const p99Of = (t: Target): number => round(latency.get(t)?.latencyMs?.p99);
  const lines = [...latency.keys()].map((t) => `${LABEL[t]} p99 ${p99Of(t).toFixed(2)} ms`);
  if (serviceMax !== undefined) lines.push(`service/bare messages per second ${(ratio * 100).toFixed(1)}% (target ≥ 50%); ${serviceMax.held}/${SUBS_MAX} held`);
  console.log(`${lines.join('; ')} (latency target: p99 ≤ 20 ms)`);
  const service = latency.get('edge') ?? latency.get('direct');
  console.log(
    JSON.stringify({
      subscribersHeld: serviceMax?.held,
      serviceMsgsPerSec: serviceMax === undefined ? undefined : Math.round(serviceMax.msgsPerSec),
      bareMsgsPerSec: bareMax === undefined ? undefined : Math.round(bareMax.msgsPerSec),
      serviceVsBare: Number(ratio.toFixed(3)),
      latencySubscribers: SUBS_LATENCY,
      latencyRate: RATE,
      client: CLIENT_KIND,
      clientThreads: CLIENT_THREADS,
      p50Ms: round(service?.latencyMs?.p50),
      p99Ms: round(service?.latencyMs?.p99),
      maxMs: round(service?.latencyMs?.max),
      directP99Ms: p99Of('direct'),
      bareP99Ms: p99Of('bare'),
      machineBusy: Math.max(...[...latency.values(), ...throughput.values()].map((r) => Number(r.serverLoad.machineBusy.toFixed(2)))),
      messageBytes: (serviceMax ?? service)?.messageBytes,
    }),
  );
}

if (process.argv[2] === 'server') {
  const target = process.argv[3];
  await serve(target === 'bare' ? 'bare' : target === 'direct' ? 'direct' : 'edge');
} else {
  await main();
  process.exit(0);
}
