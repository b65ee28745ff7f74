// `npm run bench:soak`: the service as `npm start` runs it (embedded defaults, the demo catalog and the demo
// traders: a constant light load of about ten orders a second), in a child process on a fresh data directory,
// watched for BENCH_MINUTES (60) minutes. Each minute it prints the child's CPU over that minute (all its
// threads, % of one core, from /proc/<pid>/stat), its resident memory (VmRSS), the log records the engine made
// durable that minute (engine_log_position on /metrics: the load is constant when these are), the JS heap
// used and committed (nodejs_heap_size_used_bytes, nodejs_heap_size_total_bytes: the main thread's heap), the
// committed heaps of the worker threads (nodejs_thread_heap_total_bytes: the projector's, the snapshot copies',
// the edge's, the demo traders'), the memory ClickHouse tracks (clickhouse_memory_tracked_bytes: its MemoryTracking) and what its
// allocator holds resident (clickhouse_allocator_resident_bytes), the orders open in the engine (engine_open_orders)
// and the ClickHouse parts the projection tables hold (system.parts, through the service's ClickHouse endpoint),
// the main thread's light-load full collections so far (nodejs_heap_trim_collections: threads/heapTrim.ts),
// so that whatever grows shows which part grows. Each thread's CPU counts under its name at the minute's end
// (bench/processProbe.ts: ClickHouse's pools rename their threads by job), and the run ends with ClickHouse's
// threads other than its merges by name, minutes 6-10 against the last five.
//
// The figure the README holds: CPU and RSS of minutes 5 to BENCH_MINUTES against their minute-5 values (the
// first minutes are start-up: the catalog listed, the demo books filled, the JIT warming). The last line is
// one JSON object: {bench: 'soak', minutes, perMinute: [{minute, cpuPct, cpuByGroup, chOtherByName, rssMb, anonMb, fileMb, records, heapMb, heapTotalMb, chMemoryMb, chResidentMb, workerHeapsMb, workerHeapsTotalMb, openOrders, parts, heapTrims, probeMs, stealPct}],
// ...the figures of bench/soakSummary.ts (SoakSummary without its lines), machine}: minute 5 against the last five
// minutes (flat: both within 10%), every single minute after 5 against it, minutes 5-9 against the last five,
// and the same for CPU at minute 5's machine speed (probeMs: bench/speedProbe.ts).
//
// Env: BENCH_MINUTES (60), BENCH_KEEP_DATA (unset: the data directory is removed at the end), BENCH_SERVER_ARGS
// (more of the service's flags, space-separated: a setting's share of what grows, e.g. `--live-fills 0`),
// BENCH_NODE_FLAGS (the V8 flags the service runs with; default scripts/node-flags, as `npm start`).

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import { benchDataRoot } from './dataRoot.js';
import { threadCpuByTid, threadCpuMsBetween, ticksOf, type ThreadCpu } from './processProbe.js';
import { machineDescription } from './machineKind.js';
import { startSpeedProbe } from './speedProbe.js';
import { cpuTimes, stealPercent } from './machineSteal.js';
import { summarize, type SoakMinute } from './soakSummary.js';

const MINUTES = Number(process.env.BENCH_MINUTES ?? 60);
const ANALYST_PASSWORD = 'soak-analyst';

const root = resolve(fileURLToPath(import.meta.url), '..', '..', '..');

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

/**
 * CPU ticks (10 ms) of the process, each thread's CPU (bench/processProbe.ts threadCpuByTid), and its resident
 * memory (MB): in all, anonymous (heaps, ClickHouse's caches and buffers) and file-backed (code and mapped files:
 * chDB's library alone is hundreds of MB, paged in as its code runs).
 */
function sample(pid: number): { ticks: number; rssMb: number; anonMb: number; fileMb: number; threads: Map<number, ThreadCpu> } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
  return { ticks: ticksOf(readFileSync(`/proc/${pid}/stat`, 'utf8')), rssMb: kb('VmRSS'), anonMb: kb('RssAnon'), fileMb: kb('RssFile'), threads: threadCpuByTid(pid) };
}

/** The thread groups the per-minute line shows: the service's own threads, ClickHouse's, Node's and V8's. */
function groupOf(name: string): string {
  if (name === 'main (JS)') return 'main';
  if (name.startsWith('pmx-')) return 'pmx threads';
  if (name === 'MergeMutate') return 'CH merges';
  if (name === 'node') return 'node (V8, libuv)';
  return 'CH other';
}
const GROUPS = ['main', 'pmx threads', 'CH merges', 'CH other', 'node (V8, libuv)'] as const;

async function metric(port: number, name: string): Promise<number> {
  return valueOf(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text(), name);
}

/** An unlabelled metric's value in a /metrics text (NaN when absent). */
function valueOf(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? NaN : Number(line.split(' ')[1]);
}

/** A metric's series by their one label's value, e.g. nodejs_thread_heap_total_bytes{thread="pmx-edge"}. */
function seriesOf(text: string, name: string): Record<string, number> {
  const series: Record<string, number> = {};
  for (const match of text.matchAll(new RegExp(`^${name}\\{\\w+="([^"]*)"\\} (\\S+)$`, 'gm'))) series[match[1] as string] = Number(match[2]);
  return series;
}

/** One number from the service's ClickHouse endpoint (NaN when it fails). */
async function chNumber(chPort: number, query: string): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${chPort}/?user=analyst&password=${ANALYST_PASSWORD}`, { method: 'POST', body: `${query} FORMAT TabSeparated` });
  return response.ok ? Number((await response.text()).trim()) : NaN;
}
const PARTS = "SELECT count() FROM system.parts WHERE database = 'exchange' AND active";


// Under the benches' data root (bench/dataRoot.ts): the service's first minutes do not pay for data an earlier
// run deleted.
const dataDir = mkdtempSync(join(benchDataRoot().dir, 'bench-soak-'));
const [httpPort, wsPort, chPort] = [await freePort(), await freePort(), await freePort()];
const flags = (process.env.BENCH_NODE_FLAGS ?? readFileSync(join(root, 'scripts', 'node-flags'), 'utf8')).trim().split(/\s+/).filter((f) => f !== '');
const args = [
  ...flags,
  join(root, 'dist', 'server', 'main.js'),
  '--data-dir', dataDir,
  '--http-port', String(httpPort),
  '--ws-port', String(wsPort),
  '--clickhouse-http-port', String(chPort),
  '--analyst-password', ANALYST_PASSWORD,
  '--log-level', 'warn',
  ...(process.env.BENCH_SERVER_ARGS ?? '').split(/\s+/).filter((a) => a !== ''),
];
const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
const pid = child.pid;
if (pid === undefined) throw new Error('the service did not start');
let exited = false;
child.once('exit', (code) => {
  exited = true;
  if (code !== 0 && code !== null) console.error(`the service exited with code ${code}`);
});
process.once('exit', () => child.kill('SIGKILL'));

for (let i = 0; ; i++) {
  if (exited) throw new Error('the service exited before it served');
  try {
    if ((await fetch(`http://127.0.0.1:${httpPort}/health`)).ok) break;
  } catch {
    // not listening yet
  }
  if (i > 600) throw new Error('the service did not serve within 60 s');
  await new Promise((r) => setTimeout(r, 100));
}

const machine = machineDescription();
console.log(`machine: ${machine}; load average at start ${loadavg().map((l) => l.toFixed(2)).join(' / ')}`);
console.log(`soak: the service as npm start runs it (demo traders on), ${MINUTES} minutes, one line a minute`);
console.log(`| minute | CPU % of one core | of it ${GROUPS.join(' / ')} | RSS MB | of it anonymous / file-backed MB | records | JS heap used / committed MB | worker threads' JS heaps committed MB | ClickHouse tracked / resident MB | open orders | ClickHouse parts | main heap's trims so far | speed probe ms | steal % |`);
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');

/** A minute's figures: those the summary reads (SoakMinute: minute, cpuPct, rssMb, probeMs, chOtherByName) and these. */
interface Minute extends SoakMinute {
  /** CPU % of one core by thread group (GROUPS). */
  readonly cpuByGroup: Record<string, number>;
  readonly anonMb: number;
  readonly fileMb: number;
  readonly records: number;
  readonly heapMb: number;
  readonly heapTotalMb: number;
  readonly chMemoryMb: number;
  /** What ClickHouse's allocator holds resident (clickhouse_allocator_resident_bytes). */
  readonly chResidentMb: number;
  /** Committed JS heap of each worker thread with an event loop (nodejs_thread_heap_total_bytes), and their sum. */
  readonly workerHeapsMb: Record<string, number>;
  readonly workerHeapsTotalMb: number;
  readonly openOrders: number;
  readonly parts: number;
  /** Full collections threads/heapTrim.ts started on the main thread so far (nodejs_heap_trim_collections). */
  readonly heapTrims: number;
  /** The hypervisor's steal over the minute (bench/machineSteal.ts); null off Linux. */
  readonly stealPct: number | null;
}
const perMinute: Minute[] = [];
const speed = startSpeedProbe(2_500);
let last = sample(pid);
let lastMachine = cpuTimes();
let lastAt = performance.now();
let lastPos = await metric(httpPort, 'engine_log_position');
for (let minute = 1; minute <= MINUTES && !exited; minute++) {
  await new Promise((r) => setTimeout(r, 60_000 - (performance.now() - lastAt)));
  const now = sample(pid);
  const machine = cpuTimes();
  const at = performance.now();
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
  const pos = valueOf(text, 'engine_log_position');
  const byName = threadCpuMsBetween(last.threads, now.threads);
  const pct = (ms: number): number => Math.round((ms * 1000) / (at - lastAt)) / 10;
  const byGroup = new Map<string, number>();
  const chOtherByName: Record<string, number> = {};
  for (const [name, ms] of Object.entries(byName)) {
    const group = groupOf(name);
    byGroup.set(group, (byGroup.get(group) ?? 0) + ms);
    if (group === 'CH other' && ms > 0) chOtherByName[name] = pct(ms);
  }
  const workerHeapsMb = Object.fromEntries(Object.entries(seriesOf(text, 'nodejs_thread_heap_total_bytes')).map(([thread, bytes]) => [thread, Math.round(bytes / 1e6)]));
  const row: Minute = {
    minute,
    cpuPct: Math.round(((now.ticks - last.ticks) * 10 * 1000) / (at - lastAt)) / 10,
    cpuByGroup: Object.fromEntries(GROUPS.map((g) => [g, pct(byGroup.get(g) ?? 0)])),
    chOtherByName,
    rssMb: Math.round(now.rssMb),
    anonMb: Math.round(now.anonMb),
    fileMb: Math.round(now.fileMb),
    records: pos - lastPos,
    heapMb: Math.round(valueOf(text, 'nodejs_heap_size_used_bytes') / 1e6),
    heapTotalMb: Math.round(valueOf(text, 'nodejs_heap_size_total_bytes') / 1e6),
    chMemoryMb: Math.round(valueOf(text, 'clickhouse_memory_tracked_bytes') / 1e6),
    chResidentMb: Math.round(valueOf(text, 'clickhouse_allocator_resident_bytes') / 1e6),
    workerHeapsMb,
    workerHeapsTotalMb: Object.values(workerHeapsMb).reduce((a, b) => a + b, 0),
    openOrders: valueOf(text, 'engine_open_orders'),
    parts: await chNumber(chPort, PARTS),
    heapTrims: valueOf(text, 'nodejs_heap_trim_collections'),
    probeMs: Math.round(speed.take() * 100) / 100,
    stealPct: stealPercent(lastMachine, machine) ?? null,
  };
  perMinute.push(row);
  console.log(`| ${row.minute} | ${row.cpuPct} | ${GROUPS.map((g) => row.cpuByGroup[g]).join(' / ')} | ${row.rssMb} | ${row.anonMb} / ${row.fileMb} | ${row.records} | ${row.heapMb} / ${row.heapTotalMb} | ${row.workerHeapsTotalMb} | ${row.chMemoryMb} / ${row.chResidentMb} | ${row.openOrders} | ${row.parts} | ${row.heapTrims} | ${row.probeMs} | ${row.stealPct ?? ''} |`);
  last = now;
  lastMachine = machine;
  lastAt = at;
  lastPos = pos;
}

speed.stop();
child.kill('SIGTERM');
await new Promise((r) => (exited ? r(undefined) : child.once('exit', r)));
if (process.env.BENCH_KEEP_DATA === undefined) rmSync(dataDir, { recursive: true, force: true });

const summary = summarize(perMinute);
for (const line of summary.lines) console.log(line);
const { lines: _lines, ...figures } = summary;
console.log(JSON.stringify({ bench: 'soak', minutes: perMinute.length, perMinute, ...figures, machine }));
