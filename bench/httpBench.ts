// `npm run bench:http`: requests/s and latency of GET /book, GET /positions and the account and activity reads
// (/data/orders, /data/order/{id}, /trades, /data/trades, /holders, /activity, /value) on the running service, each
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
// /book run, each account and activity read run and the mixed run, summarised after the tables).
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
// pageBytes, page{Gzip,Br}{Bytes,CpuUs}, reads: {<row>: {rps, p99Ms, vsCeiling, target, p99Target, met}},
// mixed: {rps, p99Ms, vsCeiling, soloRps, vsSolo, orders: {sent, failed, p50Ms, p99Ms, maxMs, gcPauses, gcMaxMs, gcTotalMs}, met}, errors}, where the
// mixed phase's soloRps is the rate its cycle of requests would have at each row's solo rate and met is
// vsSolo ≥ 0.5 with the orders' p99 ≤ 25 ms; targetMet is
// bookVsCeiling >= target in every deployment measured. Also the flat fields of earlier runs, for the
// deployment where uWS owns the port (bareRps, bookRps, bookP99Ms, bookVsCeiling, positionsRps,
// positionsP99Ms; null when it was not measured).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { compress, type ContentCoding } from '../api/http/compression.js';
import { Wallet } from 'ethers';
import { summariseProfile } from './orders/profileSummary.js';
import { machineDescription } from './machineKind.js';
import { Trader, type Credentials } from '../test/support/tradingClient.js';
import { POSITION_SORTS } from '../projections/readModel/index.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const POSITIONS = process.env.BENCH_POSITIONS !== 'false';
const COMPRESSION = process.env.BENCH_COMPRESSION !== 'false';
const BROWSER_ENCODINGS = 'gzip, deflate, br';
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
const TARGET = 0.5;
/** Orders per second submitted during the mixed phase. */
const ORDER_RATE = Number(process.env.BENCH_ORDER_RATE ?? 1_000);
const EDGE_MODES: readonly boolean[] = process.env.BENCH_HEADER_EDGE === undefined || process.env.BENCH_HEADER_EDGE === '' ? [true, false] : [process.env.BENCH_HEADER_EDGE !== 'false'];

const loadNow = (): number[] => loadavg().map((x) => Number(x.toFixed(2)));
const loadAvgStart = loadNow();

/** What the bench server built for the account and activity rows (bench/http/readsData.ts). */
interface ReadsInfo {
  readonly users: { account: string; positions: number }[];
  readonly conditionIds: string[];
  readonly privateKey: string;
  readonly creds: Credentials;
  readonly openOrderIds: string[];
  readonly finishedOrderIds: string[];
  readonly fills: number;
  readonly buildMs: number;
  readonly heapMb: number;
}

interface Started {
  readonly child: ChildProcess;
  readonly info: { port: number; edge?: boolean; tokenId?: string; user?: string; markets?: number; reads?: ReadsInfo };
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

/** One request of a cycling run: path (and query) with its headers. */
interface Req {
  readonly path: string;
  readonly headers?: Record<string, string>;
}

async function load(server: Started, url: string, cycle?: readonly Req[], headers: Record<string, string> = {}): Promise<Load> {
  const before = (await ask(server, { op: 'cpu' })) as Cpu;
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, pipelining: 1, headers, ...(cycle === undefined ? {} : { requests: cycle.map((r) => ({ method: 'GET' as const, path: r.path, headers: r.headers ?? {} })) }) });
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

/** The account and activity rows: name, share of the ceiling asked for, p99 asked for (ms), requests. */
interface ReadRow {
  readonly name: string;
  readonly key: string;
  readonly target: number;
  readonly p99Target: number;
  readonly requests: () => Req[];
}

/** The /activity row's variants: the default page of 100, filters, the other sorts and directions. */
const ACTIVITY_QUERIES = ['', '&type=TRADE', '&side=BUY&limit=50', '&sortBy=CASH', '&sortBy=TOKENS&sortDirection=ASC', '&sortDirection=ASC', '&limit=20&offset=40'];

function readRows(info: ReadsInfo, edge: boolean): ReadRow[] {
  const trader = new Trader('', new Wallet(info.privateKey), { headerStyle: 'hyphen' });
  trader.creds = info.creds;
  // Signed when the run starts (L2 timestamps are fresh for 30 s); the query is not signed, as the SDKs do.
  const l2 = (path: string, query = ''): Req => ({ path: `/clob${path}${query}`, headers: trader.l2Headers('GET', path) });
  void edge;
  const filters = ['', '&sizeThreshold=0', '&redeemable=true', '&mergeable=true', `&market=${info.conditionIds.slice(0, 3).join(',')}`, '&title=a', '&limit=10&offset=5'];
  const sorts = POSITION_SORTS.flatMap((sortBy) => [`&sortBy=${sortBy}`, `&sortBy=${sortBy}&sortDirection=ASC`]);
  const heavy = new Wallet(info.privateKey).address.toLowerCase();
  const users = [heavy, ...info.users.map((u) => u.account)];
  const positions = (): Req[] => users.flatMap((u, i) => [filters[i % filters.length], sorts[i % sorts.length]].map((q) => ({ path: `/positions?user=${u}${q ?? ''}` })));
  return [
    { name: 'GET /positions?user= (every sort and filter; 1-200 positions)', key: 'positions', target: 0.25, p99Target: 20, requests: positions },
    { name: 'GET /data/orders (100 open orders)', key: 'openOrders', target: 0.25, p99Target: 20, requests: () => [l2('/data/orders')] },
    { name: 'GET /data/order/{id}', key: 'order', target: 0.25, p99Target: 20, requests: () => [...info.openOrderIds.slice(0, 20), ...info.finishedOrderIds].map((id) => l2(`/data/order/${id}`)) },
    { name: 'GET /trades?user= (100)', key: 'userTrades', target: 0.1, p99Target: 30, requests: () => users.map((u) => ({ path: `/trades?user=${u}&limit=100&takerOnly=false` })) },
    { name: 'GET /data/trades (page of 100)', key: 'accountTrades', target: 0.1, p99Target: 30, requests: () => [l2('/data/trades')] },
    { name: 'GET /holders?market=', key: 'holders', target: 0.1, p99Target: 30, requests: () => info.conditionIds.map((m) => ({ path: `/holders?market=${m}` })) },
    { name: 'GET /activity?user= (100; every sort, type and side)', key: 'activity', target: 0.1, p99Target: 30, requests: () => users.map((u, i) => ({ path: `/activity?user=${u}${ACTIVITY_QUERIES[i % ACTIVITY_QUERIES.length] ?? ''}` })) },
    { name: 'GET /value?user=', key: 'value', target: 0.1, p99Target: 30, requests: () => users.map((u) => ({ path: `/value?user=${u}` })) },
  ];
}

interface ReadRun {
  readonly row: ReadRow;
  readonly solo: Load;
}

interface Mixed {
  readonly load: Load;
  /** The cycle's rate had each request gone at its row's solo rate: N ÷ Σ (requests of row i ÷ its solo requests/s). */
  readonly soloRps: number;
  /** The orders' latencies, and the service's GC pauses over the phase (its main thread's, which they wait for). */
  readonly orders: { sent: number; failed: number; p50Ms: number; p99Ms: number; maxMs: number; gcPauses: number; gcMaxMs: number; gcTotalMs: number };
}

interface Deployment {
  readonly ceiling: Load;
  readonly book: Load;
  readonly positions: Load | undefined;
  readonly compression: Compression | undefined;
  readonly reads: ReadRun[];
  readonly mixed: Mixed | undefined;
  readonly data: ReadsInfo | undefined;
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
  const bookAsking = await load(svc, bookUrl, undefined, { 'accept-encoding': BROWSER_ENCODINGS });
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
  
  const reads: ReadRun[] = [];
  let mixed: Mixed | undefined;
  const data = svc.info.reads;
  if (data !== undefined) {
    const rows = readRows(data, edge);
    for (const row of rows) {
      if (PROFILE_DIR === undefined) {
        reads.push({ row, solo: await load(svc, base, row.requests()) });
        continue;
      }
      const file = resolve(join(PROFILE_DIR, `${row.name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}-${edge ? 'edge' : 'no-edge'}-${Date.now()}.cpuprofile`));
      await ask(svc, { op: 'profile', action: 'start' });
      const solo = await load(svc, base, row.requests());
      await ask(svc, { op: 'profile', action: 'stop', file });
      reads.push({ row, solo });
      profile = [...(profile ?? []), `profile of the service's main thread over ${row.name} (${edge ? 'edge' : 'no edge'}): ${file}`, ...summariseProfile(file, solo.requests, 'request')];
    }
    // Every read in one cycling run while orders go in at ORDER_RATE per second.
    await ask(svc, { op: 'orders', action: 'start', rate: ORDER_RATE });
    const all = rows.flatMap((r) => r.requests().slice(0, 20));
    const mixedFile = PROFILE_DIR === undefined ? undefined : resolve(join(PROFILE_DIR, `mixed-${edge ? 'edge' : 'no-edge'}-${Date.now()}.cpuprofile`));
    if (mixedFile !== undefined) await ask(svc, { op: 'profile', action: 'start' });
    const mixedLoad = await load(svc, base, all);
    if (mixedFile !== undefined) {
      await ask(svc, { op: 'profile', action: 'stop', file: mixedFile });
      profile = [...(profile ?? []), `profile of the service's main thread over the mixed run (${edge ? 'edge' : 'no edge'}): ${mixedFile}`, ...summariseProfile(mixedFile, mixedLoad.requests, 'request')];
    }
    const orders = (await ask(svc, { op: 'orders', action: 'stop' })) as unknown as Mixed['orders'];
    const soloSeconds = reads.reduce((sum, r) => sum + r.row.requests().slice(0, 20).length / r.solo.rps, 0);
    mixed = { load: mixedLoad, orders, soloRps: Math.round(all.length / soloSeconds) };
  }
  await stop(svc);
  return { ceiling, book, positions, compression, reads, mixed, data, markets: (svc.info.markets ?? 1) - 1, profile };
}

const results = new Map<boolean, Deployment>();
for (const edge of EDGE_MODES) results.set(edge, await measure(edge));
const loadAvgEnd = loadNow();

const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;
const cpuCell = (l: Load): string => `${l.cpuUsPerRequest} (${l.mainCpuUsPerRequest ?? '-'})`;
const machine = machineDescription();
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
  for (const r of d.reads) row(`${r.row.name} [target ${pct(r.row.target)}, p99 ≤ ${r.row.p99Target} ms]`, r.solo, true);
  if (d.mixed !== undefined) row(`mixed: every read above, cycling, while ${ORDER_RATE} orders/s go in`, d.mixed.load, true);
}
for (const c of [...results.values()].slice(0, 1).map((d) => d.compression)) {
  if (c === undefined) continue;
  console.log(`compressing GET /catalog/markets?limit=50 (${c.pageBytes} bytes) on the request thread: gzip ${c.gzip.bytes} bytes in ${c.gzip.cpuUsPerRequest} µs CPU, br ${c.br.bytes} bytes in ${c.br.cpuUsPerRequest} µs CPU`);
}
for (const [edge, d] of results) {
  if (d.data !== undefined) console.log(`data (${edge ? 'edge' : 'no edge'}): ${d.data.fills} fills by the engine, ${d.data.users.length} of its taker accounts sampled, built and projected in ${(d.data.buildMs / 1000).toFixed(1)} s; service heap ${d.data.heapMb} MB after`);
  if (d.mixed !== undefined) {
    console.log(`mixed phase reads (${edge ? 'edge' : 'no edge'}): ${d.mixed.load.rps} requests/s = ${pct(d.mixed.load.rps / d.mixed.soloRps)} of the same cycle at the rows' solo rates (${d.mixed.soloRps}/s) [target ≥ 50%]`);
    console.log(`mixed phase orders (${edge ? 'edge' : 'no edge'}; submitted in the service process, submit to durable reply): ${d.mixed.orders.sent} sent, ${d.mixed.orders.failed} failed, p50 ${d.mixed.orders.p50Ms} ms, p99 ${d.mixed.orders.p99Ms} ms, max ${d.mixed.orders.maxMs} ms [target p99 ≤ 25 ms]; the service's GC pauses over the phase: ${d.mixed.orders.gcPauses}, ${d.mixed.orders.gcTotalMs} ms in all, the longest ${d.mixed.orders.gcMaxMs} ms`);
  }
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
        reads: Object.fromEntries(
          d.reads.map((r) => [r.row.key, { rps: r.solo.rps, p99Ms: r.solo.p99Ms, vsCeiling: Number((r.solo.rps / d.ceiling.rps).toFixed(3)), target: r.row.target, p99Target: r.row.p99Target, met: r.solo.rps / d.ceiling.rps >= r.row.target && r.solo.p99Ms <= r.row.p99Target }]),
        ),
        mixed: d.mixed === undefined ? null : {
          rps: d.mixed.load.rps, p99Ms: d.mixed.load.p99Ms, vsCeiling: Number((d.mixed.load.rps / d.ceiling.rps).toFixed(3)), soloRps: d.mixed.soloRps,
          vsSolo: Number((d.mixed.load.rps / d.mixed.soloRps).toFixed(3)), orders: d.mixed.orders,
          met: d.mixed.load.rps / d.mixed.soloRps >= 0.5 && d.mixed.orders.p99Ms <= 25,
        },
        errors: d.ceiling.non2xx + d.book.non2xx + (d.positions?.non2xx ?? 0) + (d.compression?.bookAsking.non2xx ?? 0) + d.reads.reduce((n, r) => n + r.solo.non2xx, 0) + (d.mixed?.load.non2xx ?? 0),
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
