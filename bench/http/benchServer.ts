// The server side of `npm run bench:http`, run as a child process so the load generator does not share its
// thread. Argument 1 is the mode, argument 2 `edge` or `no-edge`:
//   bare     a uWS hello-world (the ceiling): on a TCP port (no-edge), or on a Unix socket behind the header
//            edge in the same process (edge), as the service deploys uWS by default;
//   service  the whole service on a temporary data directory (headerEdge true or false), with deep books on
//            a demo market and a user holding positions in many markets.
// It prints `READY {json}` with the port and what to query, and stops on SIGTERM. Over its IPC channel it
// answers {op: 'cpu', id}: CPU time used so far (µs), by the whole process and by its main thread, and
// {op: 'profile', id, action: 'start' | 'stop', file}: the inspector's CPU profiler of its main thread,
// written to `file` on stop (BENCH_CPU_PROF in httpBench.ts).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { us_listen_socket } from 'uWebSockets.js';
import { parseConfig } from '../../config/index.js';
import type { Submission } from '../../host/engineHost.js';
import { startHeaderEdge } from '../../api/http/headerEdge.js';
import { startHeaderEdgeThread } from '../../api/http/edgeThread.js';

/** The edge on its own thread, as the service runs it by default (--edge-thread); BENCH_EDGE_THREAD=false: on the request thread, in both servers. */
const edgeThread = process.env.BENCH_EDGE_THREAD !== 'false';
import { loadUws } from '../../api/http/uwsLoader.js';
import { startService } from '../../server/service.js';
import { mainThreadCpuUs, startCpuProfile, stopCpuProfile } from '../processProbe.js';
import { Trader } from '../../test/support/tradingClient.js';
import { buildReadsData, OrderLoad, READ_MARKETS } from './readsData.js';

const mode = process.argv[2] ?? 'service';
const edge = (process.argv[3] ?? 'edge') === 'edge';
const USDC = 1_000_000;

interface Message {
  readonly op: 'cpu' | 'profile' | 'orders';
  readonly id: number;
  readonly action?: 'start' | 'stop';
  readonly file?: string;
  /** Orders per second (op 'orders'). */
  readonly rate?: number;
}

/** BENCH_READS=false: no account and activity data (and no order load); the /book rows only. */
const withReads = process.env.BENCH_READS !== 'false';
let orderLoad: OrderLoad | undefined;

async function answer(m: Message): Promise<object> {
  if (m.op === 'cpu') {
    const used = process.cpuUsage();
    return { processUs: used.user + used.system, mainUs: mainThreadCpuUs() };
  }
  if (m.op === 'orders') {
    if (orderLoad === undefined) throw new Error('no order load in this mode');
    if (m.action === 'start') {
      orderLoad.start(m.rate ?? 1_000);
      return {};
    }
    return orderLoad.stop();
  }
  if (m.action === 'start') {
    await startCpuProfile();
    return {};
  }
  return stopCpuProfile(m.file);
}

process.on('message', (m: Message) => {
  answer(m).then(
    (reply) => process.send?.({ id: m.id, ...reply }),
    (error: unknown) => process.send?.({ id: m.id, error: error instanceof Error ? error.message : String(error) }),
  );
});

async function bare(): Promise<void> {
  const { uws } = loadUws(false);
  const app = uws.App();
  app.get('/*', (res) => {
    res.end('Hello World!');
  });
  if (!edge) {
    const socket = await new Promise<us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('cannot listen')))));
    process.stdout.write(`READY ${JSON.stringify({ port: uws.us_socket_local_port(socket) })}\n`);
    return;
  }
  // As the service runs it by default (server/publicListener.ts): uWS on a Unix socket, the edge on the port.
  const dir = mkdtempSync(join(tmpdir(), 'bench-http-edge-'));
  const path = join(dir, 'uws.sock');
  const socket = await new Promise<us_listen_socket>((resolve, reject) => app.listen_unix((s: us_listen_socket | false) => (s ? resolve(s) : reject(new Error('cannot listen_unix'))), path));
  const options = { host: '127.0.0.1', port: 0, upstream: { path } };
  const running = edgeThread ? await startHeaderEdgeThread(options, (error) => { throw error; }) : await startHeaderEdge(options);
  process.once('SIGTERM', () => {
    void running.close().then(() => {
      uws.us_listen_socket_close(socket);
      rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
  process.stdout.write(`READY ${JSON.stringify({ port: running.port })}\n`);
}

async function service(): Promise<void> {
  const parsed = parseConfig([], {});
  if (parsed.kind !== 'config') throw new Error('bad default config');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-http-'));
  const config = { ...parsed.config, dataDir, httpPort: 0, rateLimit: false, logLevel: 'warn' as const, headerEdge: edge, edgeThread, demoTraders: false };
  const running = await startService(config, pino({ level: 'warn' }));
  const host = running.engine;
  const markets = [...host.engine.markets()].filter((m) => m.status === 'active');
  const first = markets[0];
  if (first === undefined) throw new Error('the demo catalog listed no active market');
  const maker = '0x' + '1'.repeat(40);
  const user = '0x' + '2'.repeat(40);
  const submit = (s: Submission): Promise<unknown> => host.submit(s);
  await submit({ type: 'Deposit', account: maker, amount: 10_000_000 * USDC });
  await submit({ type: 'Deposit', account: user, amount: 10_000_000 * USDC });
  let n = 0;
  const order = (account: string, tokenId: string, side: 'BUY' | 'SELL', cents: number, shares: number): Submission => ({
    type: 'PlaceOrder', orderId: `0xbench${(n += 1)}`, account, owner: 'bench', tokenId, side,
    makerAmount: side === 'BUY' ? (shares * cents * USDC) / 100 : shares * USDC,
    takerAmount: side === 'BUY' ? shares * USDC : (shares * cents * USDC) / 100,
    orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: 0,
  });
  // A deep book on the first market: 40 bid and 40 ask levels, 5 orders each.
  const pending: Promise<unknown>[] = [];
  for (let level = 1; level <= 40; level++) {
    for (let k = 0; k < 5; k++) {
      pending.push(submit(order(maker, first.tokenIds[0], 'BUY', level, 10 + k)));
      pending.push(submit(order(maker, first.tokenIds[1], 'BUY', 100 - 40 - level, 10 + k)));
    }
  }
  await Promise.all(pending);
  // The user trades in every active market: a resting order taken by the user, several times over.
  const fills: Promise<unknown>[] = [];
  for (const market of markets.slice(1)) {
    for (let i = 0; i < 20; i++) {
      fills.push(submit(order(maker, market.tokenIds[1], 'BUY', 45, 10)));
      fills.push(submit(order(user, market.tokenIds[0], 'BUY', 55, 10)));
    }
  }
  await Promise.all(fills);
  let reads: object | undefined;
  if (withReads) {
    const t0 = performance.now();
    const data = await buildReadsData(host, (text) => process.stderr.write(`bench data: ${text}\n`));
    await running.projector.waitFor(host.position, 600_000);
    const trader = new Trader(`http://127.0.0.1:${running.port}`, data.wallet, { headerStyle: 'hyphen', chainId: config.chainId });
    const creds = await trader.signIn();
    const listed = [...host.engine.markets()].filter((m) => data.conditionIds.includes(m.conditionId)).map((m) => m.tokenIds);
    if (listed.length !== READ_MARKETS) throw new Error(`expected ${READ_MARKETS} bench markets, the engine lists ${listed.length}`);
    orderLoad = new OrderLoad(host, listed);
    const heapMb = Math.round(process.memoryUsage().heapUsed / 1e6);
    reads = { users: data.users, conditionIds: data.conditionIds.slice(0, 20), privateKey: data.wallet.privateKey, creds, openOrderIds: data.openOrderIds, finishedOrderIds: data.finishedOrderIds, fills: data.fills, buildMs: Math.round(performance.now() - t0), heapMb };
  }
  await running.projector.waitFor(host.position, 60_000);
  process.stdout.write(`READY ${JSON.stringify({ port: running.port, edge: running.edge !== undefined, tokenId: first.tokenIds[0], user, markets: markets.length, reads })}\n`);
  process.on('SIGTERM', () => {
    void running.close().then(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}

await (mode === 'bare' ? bare() : service());
