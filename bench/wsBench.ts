// `npm run bench:ws`: WebSocket delivery of the market channel, against a bare uWS pub/sub program as the
// ceiling, in one run on one machine with one client (bench/ws/rawWsClient.ts, all subscribers in this
// process) and messages of one size. The servers run in a child process each (bench/ws/wsBenchServer.ts).
//
// Runs:
// 1. latency, service: SUBS_LATENCY subscribers on one token, RATE book changes per second through the
//    engine host for SECONDS; latency of each delivery = receipt time − the moment its record was durable.
// 2. latency, bare uWS: the same load; latency = receipt − publish.
// 3. throughput, service and bare: SUBS_MAX subscribers, changes as fast as delivery sustains (closed
//    loop: at most WINDOW changes ahead of the slowest subscriber); messages per second delivered.
// Targets: SUBS_MAX (5,000) subscribers held; service ≥ 50% of the bare messages/s; p99 ≤ 20 ms at 1,000
// subscribers and 100 changes/s. The last line is one JSON object.
//
// Env: BENCH_SECONDS (10), BENCH_RATE (100), BENCH_SUBS_LATENCY (1000), BENCH_SUBS_MAX (5000).

import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { RawWsClient, wallMs } from './ws/rawWsClient.js';
import { serve, type AckMessage, type DriveRequest, type ServerMessage } from './ws/wsBenchServer.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 100);
const SUBS_LATENCY = Number(process.env.BENCH_SUBS_LATENCY ?? 1000);
const SUBS_MAX = Number(process.env.BENCH_SUBS_MAX ?? 5000);
const PRICE_CHANGE = Buffer.from('{"event_type":"price_change"');
const TIMESTAMP = Buffer.from('"timestamp":"');

type Mode = 'service' | 'bare';

interface Server {
  readonly child: ChildProcess;
  readonly ready: Extract<ServerMessage, { kind: 'ready' }>;
  next(): Promise<ServerMessage>;
}

async function startServer(mode: Mode): Promise<Server> {
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

/** Receipts of price changes: (timestamp, receipt ms) pairs, and a count per subscriber. */
class Receipts {
  ts = new Float64Array(1 << 20);
  at = new Float64Array(1 << 20);
  n = 0;
  first = Infinity;
  last = 0;
  record: boolean;

  constructor(record: boolean) {
    this.record = record;
  }

  add(payload: Buffer, at: number): void {
    if (at < this.first) this.first = at;
    if (at > this.last) this.last = at;
    if (!this.record) {
      this.n++;
      return;
    }
    const i = payload.lastIndexOf(TIMESTAMP);
    const ts = Number(payload.subarray(i + TIMESTAMP.length, payload.length - 2).toString('latin1'));
    if (this.n === this.ts.length) {
      const grow = (a: Float64Array): Float64Array<ArrayBuffer> => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.ts = grow(this.ts);
      this.at = grow(this.at);
    }
    this.ts[this.n] = ts;
    this.at[this.n] = at;
    this.n++;
  }
}

interface Run {
  readonly mode: Mode;
  readonly subscribers: number;
  readonly held: number;
  readonly changes: number;
  readonly delivered: number;
  readonly msgsPerSec: number;
  readonly messageBytes: number;
  readonly latencyMs?: { p50: number; p99: number; max: number; samples: number };
}

function percentile(sorted: Float64Array, q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0;
}

async function run(mode: Mode, subscribers: number, rate: number): Promise<Run> {
  const server = await startServer(mode);
  const { port, path, subscribe } = server.ready;
  const receipts = new Receipts(rate > 0);
  const counts = new Uint32Array(subscribers);
  let driving = false;
  let messageBytes = 0;
  const clients: RawWsClient[] = [];
  let subscribed = 0;
  const allSubscribed = new Promise<void>((resolve) => {
    const connectOne = async (k: number): Promise<void> => {
      let first = true;
      const client = await RawWsClient.connect(port, path, (payload, at) => {
        if (first) {
          first = false;
          if (++subscribed === subscribers) resolve();
          return;
        }
        if (!driving || payload.compare(PRICE_CHANGE, 0, PRICE_CHANGE.length, 0, PRICE_CHANGE.length) !== 0) return;
        counts[k] = (counts[k] as number) + 1;
        messageBytes = payload.length;
        receipts.add(payload, at);
      });
      client.send(subscribe);
      clients.push(client);
    };
    void (async () => {
      for (let k = 0; k < subscribers; k += 100) await Promise.all(Array.from({ length: Math.min(100, subscribers - k) }, (_, j) => connectOne(k + j)));
    })();
  });
  await allSubscribed;
  await new Promise((r) => setTimeout(r, 500));

  driving = true;
  const acker = setInterval(() => {
    let min = Infinity;
    for (let k = 0; k < subscribers; k++) if ((counts[k] as number) < min) min = counts[k] as number;
    server.child.send({ kind: 'ack', seen: min } satisfies AckMessage);
  }, 5);
  const started = wallMs();
  server.child.send({ kind: 'drive', rate, seconds: SECONDS } satisfies DriveRequest);
  const done = await server.next();
  if (done.kind !== 'driven') throw new Error('expected driven');
  // Deliveries still in flight when the last change was made.
  await new Promise((r) => setTimeout(r, 1000));
  clearInterval(acker);
  driving = false;
  const held = clients.filter((c) => !c.closed).length;
  const delivered = rate > 0 ? receipts.n : counts.reduce((a, b) => a + b, 0);
  const span = (Math.max(receipts.last, started + 1) - started) / 1000;
  let latencyMs: Run['latencyMs'];
  if (rate > 0) {
    const durable = new Map(done.durable);
    const lat = new Float64Array(receipts.n);
    let m = 0;
    for (let i = 0; i < receipts.n; i++) {
      const d = durable.get(receipts.ts[i] as number);
      if (d !== undefined) lat[m++] = (receipts.at[i] as number) - d;
    }
    const sorted = lat.subarray(0, m).sort();
    latencyMs = { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[m - 1] ?? 0, samples: m };
  }
  for (const c of clients) c.close();
  server.child.send('stop');
  await new Promise((r) => server.child.once('exit', r));
  return { mode, subscribers, held, changes: done.changes, delivered, msgsPerSec: delivered / span, messageBytes, latencyMs };
}

function show(r: Run): void {
  const lat = r.latencyMs === undefined ? '' : `  latency p50 ${r.latencyMs.p50.toFixed(2)} ms, p99 ${r.latencyMs.p99.toFixed(2)} ms, max ${r.latencyMs.max.toFixed(2)} ms (${r.latencyMs.samples} deliveries)`;
  console.log(`${r.mode.padEnd(7)} ${String(r.subscribers).padStart(5)} subscribers (${r.held} held): ${r.changes} changes, ${r.delivered} delivered, ${Math.round(r.msgsPerSec)} msgs/s, ${r.messageBytes} B/msg${lat}`);
}

async function main(): Promise<void> {
  console.log(`bench:ws — ${SECONDS} s per run; latency at ${SUBS_LATENCY} subscribers and ${RATE} changes/s; throughput at ${SUBS_MAX} subscribers`);
  const serviceLatency = await run('service', SUBS_LATENCY, RATE);
  show(serviceLatency);
  const bareLatency = await run('bare', SUBS_LATENCY, RATE);
  show(bareLatency);
  const serviceMax = await run('service', SUBS_MAX, 0);
  show(serviceMax);
  const bareMax = await run('bare', SUBS_MAX, 0);
  show(bareMax);
  const ratio = serviceMax.msgsPerSec / bareMax.msgsPerSec;
  const p99 = serviceLatency.latencyMs?.p99 ?? NaN;
  console.log(`service/bare messages per second: ${(ratio * 100).toFixed(1)}% (target ≥ 50%); p99 ${p99.toFixed(2)} ms (target ≤ 20 ms); ${serviceMax.held}/${SUBS_MAX} held`);
  console.log(
    JSON.stringify({
      subscribersHeld: serviceMax.held,
      serviceMsgsPerSec: Math.round(serviceMax.msgsPerSec),
      bareMsgsPerSec: Math.round(bareMax.msgsPerSec),
      serviceVsBare: Number(ratio.toFixed(3)),
      latencySubscribers: SUBS_LATENCY,
      latencyRate: RATE,
      p50Ms: Number((serviceLatency.latencyMs?.p50 ?? NaN).toFixed(2)),
      p99Ms: Number(p99.toFixed(2)),
      maxMs: Number((serviceLatency.latencyMs?.max ?? NaN).toFixed(2)),
      bareP99Ms: Number((bareLatency.latencyMs?.p99 ?? NaN).toFixed(2)),
      messageBytes: serviceMax.messageBytes,
    }),
  );
}

if (process.argv[2] === 'server') {
  await serve(process.argv[3] === 'bare' ? 'bare' : 'service');
} else {
  await main();
  process.exit(0);
}
