// `npm run bench:http`: requests/s and latency of GET /book and GET /positions on the running service, each
// next to its like-for-like ceiling, a uWS hello-world on the same machine in the same run:
// - edge (the default deployment): the service with the header edge on the port and uWS on a Unix socket
//   behind it, against a hello-world uWS on a Unix socket behind the same edge in one process;
// - no edge (`--header-edge false`, uWS owns the port): the service against a bare hello-world uWS on a port.
// Each server runs in a child process (bench/http/benchServer.ts); autocannon drives it from this one, so the
// two share the machine's cores. Rate limits are off.
//
// Env: BENCH_HEADER_EDGE (unset: both deployments; true or false: that one only), BENCH_SECONDS (10),
// BENCH_CONNECTIONS (50), BENCH_POSITIONS (true; false skips GET /positions), BENCH_COMPRESSION (true; false
// skips the compression runs), BENCH_CPU_PROF=<dir> (a CPU profile of the service's main thread over each
// /book run, summarised after the tables).
//
// Compression: GET /book again with a browser's `Accept-Encoding: gzip, deflate, br` (its answer is under
// the threshold, so this shows what merely asking costs the fast path), and what compressing the 94 KB
// GET /catalog/markets?limit=50 page costs per request: api/http/compression.ts on that page's body, timed
// in this process by CPU time (a load run of that page measures its ClickHouse query, whose CPU varies by
// far more than the compression costs).
//
// Each run also reports the server's CPU time per request (its process's, and its main thread's, read over
// IPC before and after): requests/s moves with whatever else runs on the machine, CPU per request much less,
// so "ceiling CPU ÷ this" is the same comparison less exposed to other load.
//
// The last line is one JSON object: {bench: 'http', edge: {...} | null, noEdge: {...} | null, target,
// targetMet, loadAvgStart, loadAvgEnd, machine} where each deployment has {ceilingRps, ceilingP99Ms,
// ceilingCpuUsPerRequest, bookRps, bookP50Ms, bookP99Ms, bookVsCeiling, bookCpuUsPerRequest,
// bookMainCpuUsPerRequest, bookCpuVsCeiling, positionsRps, positionsP99Ms, bookAskingCompression{Rps,CpuUsPerRequest},
// pageBytes, page{Gzip,Br}{Bytes,CpuUs}, errors}; targetMet is
// bookVsCeiling >= target in every deployment measured. Also the flat fields of earlier runs, for the
// deployment where uWS owns the port (bareRps, bookRps, bookP99Ms, bookVsCeiling, positionsRps,
// positionsP99Ms; null when it was not measured).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { compress, type ContentCoding } from '../api/http/compression.js';
import { summariseProfile } from './orders/profileSummary.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const POSITIONS = process.env.BENCH_POSITIONS !== 'false';
const COMPRESSION = process.env.BENCH_COMPRESSION !== 'false';
const BROWSER_ENCODINGS = 'gzip, deflate, br';
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const TARGET = 0.5;
const EDGE_MODES: readonly boolean[] = process.env.BENCH_HEADER_EDGE === undefined || process.env.BENCH_HEADER_EDGE === '' ? [true, false] : [process.env.BENCH_HEADER_EDGE !== 'false'];

const loadNow = (): number[] => loadavg().map((x) => Number(x.toFixed(2)));
const loadAvgStart = loadNow();

interface Started {
  readonly child: ChildProcess;
  readonly info: { port: number; edge?: boolean; tokenId?: string; user?: string; markets?: number };
}

function startServer(mode: 'bare' | 'service', edge: boolean): Promise<Started> {
  const script = fileURLToPath(new URL('./http/benchServer.js', import.meta.url));
  const child = spawn(process.execPath, [script, mode, edge ? 'edge' : 'no-edge'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('READY '));
      if (line !== undefined) resolve({ child, info: JSON.parse(line.slice(6)) as Started['info'] });
    });
    child.on('exit', (code) => reject(new Error(`bench server (${mode}, ${edge ? 'edge' : 'no edge'}) exited with ${code}`)));
  });
}

async function stop(started: Started): Promise<void> {
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGTERM');
  await exited;
}

let nextId = 0;
function ask(started: Started, message: object): Promise<{ error?: string }> {
  const id = (nextId += 1);
  return new Promise((resolve, reject) => {
    const onMessage = (m: { id: number; error?: string }): void => {
      if (m.id !== id) return;
      started.child.off('message', onMessage);
      if (m.error !== undefined) reject(new Error(m.error));
      else resolve(m);
    };
    started.child.on('message', onMessage);
    started.child.send({ ...message, id });
  });
}

interface Load {
  readonly rps: number;
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  /** The server's CPU time per request over the run: every thread of its process, and its main thread. */
  readonly cpuUsPerRequest: number;
  readonly mainCpuUsPerRequest: number | null;
}

interface Cpu {
  readonly processUs: number;
  readonly mainUs?: number;
}

async function load(server: Started, url: string, headers: Record<string, string> = {}): Promise<Load> {
  const before = (await ask(server, { op: 'cpu' })) as Cpu;
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, pipelining: 1, headers });
  const after = (await ask(server, { op: 'cpu' })) as Cpu;
  const requests = Math.max(1, result.requests.total);
  const main = before.mainUs === undefined || after.mainUs === undefined ? null : Number(((after.mainUs - before.mainUs) / requests).toFixed(1));
  return {
    rps: Math.round(result.requests.average),
    requests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
    cpuUsPerRequest: Number(((after.processUs - before.processUs) / requests).toFixed(1)),
    mainCpuUsPerRequest: main,
  };
}

interface Deployment {
  readonly ceiling: Load;
  readonly book: Load;
  readonly positions: Load | undefined;
  readonly compression: Compression | undefined;
  readonly markets: number;
  readonly profile: string[] | undefined;
}

interface Coded {
  readonly bytes: number;
  readonly cpuUsPerRequest: number;
}

interface Compression {
  readonly bookAsking: Load;
  readonly pageBytes: number;
  readonly gzip: Coded;
  readonly br: Coded;
}

function timeCompression(body: string, coding: ContentCoding): Coded {
  const bytes = compress(body, coding).length;
  for (let i = 0; i < 20; i++) compress(body, coding);
  const runs = 200;
  const start = process.cpuUsage();
  for (let i = 0; i < runs; i++) compress(body, coding);
  const used = process.cpuUsage(start);
  return { bytes, cpuUsPerRequest: Number(((used.user + used.system) / runs).toFixed(1)) };
}

async function measureCompression(svc: Started, base: string, bookUrl: string): Promise<Compression> {
  const bookAsking = await load(svc, bookUrl, { 'accept-encoding': BROWSER_ENCODINGS });
  const page = await (await fetch(`${base}/catalog/markets?limit=50`)).text();
  return { bookAsking, pageBytes: Buffer.byteLength(page), gzip: timeCompression(page, 'gzip'), br: timeCompression(page, 'br') };
}

async function measure(edge: boolean): Promise<Deployment> {
  const bareServer = await startServer('bare', edge);
  const ceiling = await load(bareServer, `http://127.0.0.1:${bareServer.info.port}/`);
  await stop(bareServer);

  const svc = await startServer('service', edge);
  if (svc.info.edge !== edge) throw new Error(`the service started with headerEdge ${String(svc.info.edge)}, asked for ${String(edge)}`);
  const base = `http://127.0.0.1:${svc.info.port}`;
  const bookUrl = `${base}/book?token_id=${svc.info.tokenId ?? ''}`;
  let profile: string[] | undefined;
  let book: Load;
  if (PROFILE_DIR === undefined) {
    book = await load(svc, bookUrl);
  } else {
    mkdirSync(PROFILE_DIR, { recursive: true });
    const file = resolve(join(PROFILE_DIR, `book-${edge ? 'edge' : 'no-edge'}-${Date.now()}.cpuprofile`));
    await ask(svc, { op: 'profile', action: 'start' });
    book = await load(svc, bookUrl);
    await ask(svc, { op: 'profile', action: 'stop', file });
    profile = [`profile of the service's main thread over GET /book (${edge ? 'edge' : 'no edge'}): ${file}`, ...summariseProfile(file, book.requests, 'request')];
  }
  const positions = POSITIONS ? await load(svc, `${base}/positions?user=${svc.info.user ?? ''}&limit=100`) : undefined;
  const compression = COMPRESSION ? await measureCompression(svc, base, bookUrl) : undefined;
  await stop(svc);
  return { ceiling, book, positions, compression, markets: (svc.info.markets ?? 1) - 1, profile };
}

const results = new Map<boolean, Deployment>();
for (const edge of EDGE_MODES) results.set(edge, await measure(edge));
const loadAvgEnd = loadNow();

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;
const cpuCell = (l: Load): string => `${l.cpuUsPerRequest} (${l.mainCpuUsPerRequest ?? '-'})`;
const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}`;
console.log(`machine: ${machine}; ${CONNECTIONS} connections, ${DURATION} s per run; load average ${loadAvgStart.join(' ')} at start, ${loadAvgEnd.join(' ')} at end`);
console.log('| deployment | run | requests/s | of its ceiling | p50 ms | p99 ms | non-2xx | server CPU µs/request (main thread) | ceiling CPU ÷ this |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [edge, d] of results) {
  const name = edge ? 'header edge (default)' : 'no edge (uWS on the port)';
  const ceilingName = edge ? 'uWS hello-world behind the edge (ceiling)' : 'bare uWS hello-world (ceiling)';
  const row = (run: string, l: Load, ratio: boolean): void =>
    console.log(`| ${name} | ${run} | ${l.rps} | ${ratio ? pct(l.rps / d.ceiling.rps) : ''} | ${l.p50Ms} | ${l.p99Ms} | ${l.non2xx} | ${cpuCell(l)} | ${ratio ? pct(d.ceiling.cpuUsPerRequest / l.cpuUsPerRequest) : ''} |`);
  row(ceilingName, d.ceiling, false);
  row('GET /book (80 levels)', d.book, true);
  if (d.positions !== undefined) row(`GET /positions (${d.markets} markets)`, d.positions, true);
  if (d.compression !== undefined) row(`GET /book, Accept-Encoding: ${BROWSER_ENCODINGS}`, d.compression.bookAsking, true);
}
for (const c of [...results.values()].slice(0, 1).map((d) => d.compression)) {
  if (c === undefined) continue;
  console.log(`compressing GET /catalog/markets?limit=50 (${c.pageBytes} bytes) on the request thread: gzip ${c.gzip.bytes} bytes in ${c.gzip.cpuUsPerRequest} µs CPU, br ${c.br.bytes} bytes in ${c.br.cpuUsPerRequest} µs CPU`);
}
for (const d of results.values()) for (const line of d.profile ?? []) console.log(line);

const summary = (d: Deployment | undefined): object | null =>
  d === undefined
    ? null
    : {
        ceilingRps: d.ceiling.rps,
        ceilingP99Ms: d.ceiling.p99Ms,
        ceilingCpuUsPerRequest: d.ceiling.cpuUsPerRequest,
        bookRps: d.book.rps,
        bookP50Ms: d.book.p50Ms,
        bookP99Ms: d.book.p99Ms,
        bookVsCeiling: Number((d.book.rps / d.ceiling.rps).toFixed(3)),
        bookCpuUsPerRequest: d.book.cpuUsPerRequest,
        bookMainCpuUsPerRequest: d.book.mainCpuUsPerRequest,
        bookCpuVsCeiling: Number((d.ceiling.cpuUsPerRequest / d.book.cpuUsPerRequest).toFixed(3)),
        positionsRps: d.positions?.rps ?? null,
        positionsP99Ms: d.positions?.p99Ms ?? null,
        bookAskingCompressionRps: d.compression?.bookAsking.rps ?? null,
        bookAskingCompressionCpuUsPerRequest: d.compression?.bookAsking.cpuUsPerRequest ?? null,
        pageBytes: d.compression?.pageBytes ?? null,
        pageGzipBytes: d.compression?.gzip.bytes ?? null,
        pageGzipCpuUs: d.compression?.gzip.cpuUsPerRequest ?? null,
        pageBrBytes: d.compression?.br.bytes ?? null,
        pageBrCpuUs: d.compression?.br.cpuUsPerRequest ?? null,
        errors: d.ceiling.non2xx + d.book.non2xx + (d.positions?.non2xx ?? 0) + (d.compression?.bookAsking.non2xx ?? 0),
      };
const edgeRun = results.get(true);
const noEdgeRun = results.get(false);
const met = [...results.values()].map((d) => d.book.rps / d.ceiling.rps >= TARGET);
console.log(
  JSON.stringify({
    bench: 'http',
    edge: summary(edgeRun),
    noEdge: summary(noEdgeRun),
    bareRps: noEdgeRun?.ceiling.rps ?? null,
    bookRps: noEdgeRun?.book.rps ?? null,
    bookP99Ms: noEdgeRun?.book.p99Ms ?? null,
    bookVsCeiling: noEdgeRun === undefined ? null : Number((noEdgeRun.book.rps / noEdgeRun.ceiling.rps).toFixed(3)),
    positionsRps: noEdgeRun?.positions?.rps ?? null,
    positionsP99Ms: noEdgeRun?.positions?.p99Ms ?? null,
    target: TARGET,
    targetMet: met.every((m) => m),
    connections: CONNECTIONS,
    seconds: DURATION,
    loadAvgStart,
    loadAvgEnd,
    machine,
  }),
);
