// The server side of `npm run bench:orders`, run as a child process (an IPC channel to the parent) so the
// load generator does not share its thread: the whole service as `npm start` runs it (engine host on the
// fsynced journal, projector into embedded chDB, demo catalog, header edge as configured) on a temporary
// data directory, with rate limits off, the L2 and order timestamp windows wide enough for orders signed
// before the timed window, and the operator API on (a random token, in READY) so the parent funds wallets
// over HTTP. It prints `READY {json}` with the port, the operator token and the markets to trade, then
// answers the parent's messages (nothing here changes the service's state):
//   {op: 'cpu', id}                    process.cpuUsage() and CPU per thread name, the log and projector
//                                      positions, the event loop delay, the journal appends
//   {op: 'profile', id, action, file}  starts / stops the inspector's CPU profiler (written to `file`)
//   {op: 'settle', id}                 waits until the engine is idle and the projector has caught up
// Every answer is {id, ...}. SIGTERM closes the service gracefully and removes the data directory.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pino } from 'pino';
import { parseConfig } from '../../config/index.js';
import { startService } from '../../server/service.js';
import { startCpuProfile, stopCpuProfile, threadCpuMs } from '../processProbe.js';

interface Message {
  readonly op: 'cpu' | 'profile' | 'settle';
  readonly id: number;
  readonly action?: 'start' | 'stop';
  readonly file?: string;
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
  operatorToken: randomBytes(24).toString('hex'),
};
const running = await startService(config, pino({ level: 'warn' }));
const host = running.engine;
const markets = [...host.engine.markets()]
  .filter((m) => m.status === 'active' && !m.params.negRisk && m.params.tickSize === 10_000 && m.params.minSize <= 5_000_000)
  .map((m) => ({ conditionId: m.conditionId, tokenIds: [...m.tokenIds], minSize: m.params.minSize, makerFeeBps: m.params.makerFeeBps, takerFeeBps: m.params.takerFeeBps }));
if (markets.length === 0) throw new Error('the demo catalog lists no active standard market with tick 0.01 and min size <= 5');

// Group commit as the host sees it: appends (one fsync each), records per append, time per append.
const appendStats = { appends: 0, records: 0, ms: 0, maxMs: 0 };
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
  }
};

const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
async function handle(m: Message): Promise<object> {
  switch (m.op) {
    case 'cpu': {
      const delay = { p50Ms: loopDelay.percentile(50) / 1e6, p99Ms: loopDelay.percentile(99) / 1e6, maxMs: loopDelay.max / 1e6 };
      loopDelay.reset();
      const appends = { ...appendStats };
      appendStats.maxMs = 0;
      return { threads: threadCpuMs(), appends, cpu: process.cpuUsage(), logPos: host.position, projectorPos: running.projector.position, engineSeq: host.engine.seq, loopDelay: delay, rssMb: Math.round(process.memoryUsage().rss / 2 ** 20) };
    }
    case 'profile': {
      if (m.action === 'start') {
        await startCpuProfile();
        return {};
      }
      return stopCpuProfile(m.file);
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

process.stdout.write(`READY ${JSON.stringify({ port: running.port, operatorToken: config.operatorToken, edge: running.edge !== undefined, uwsNative: running.uwsNative, markets })}\n`);
