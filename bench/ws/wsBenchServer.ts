// The server side of bench:ws, a child process driven over IPC by bench/wsBench.ts. Two programs:
// - the service (targets edge and direct): the whole service (engine host on its journal, projector, HTTP and
//   WebSocket behind the header edge; for direct also its --ws-port, where the subscribers then connect)
//   with one market; book changes are commands submitted to the engine host, as the API does. The durable
//   moment of each record (ServiceHooks.onDurable, just before publishing) and the moment its batch was
//   published (ServiceHooks.onPublished) are reported by the record's time, which is the `timestamp` its
//   price_change carries (the clock is made strictly increasing so that each record has its own).
// - bare: a bare uWS pub/sub program, the ceiling: every subscriber on one topic, and a message of the
//   service's price_change shape published per change; its durable moment is its publish.
// Moments are monoMs() (CLOCK_MONOTONIC, the client's clock too). Each drive also reports the process's
// load over it (loadProbe.ts).
// A change is made every 1000/rate ms (rate mode) or one after the other as fast as they go (max mode).

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { us_listen_socket, WebSocket } from 'uWebSockets.js';
import { parseConfig } from '../../config/index.js';
import { loadUws } from '../../api/http/uwsLoader.js';
import { startService } from '../../server/service.js';
import { monoMs } from './rawWsClient.js';
import { startLoadProbe, type LoadFigures } from './loadProbe.js';
import { startCpuProfile, stopCpuProfile } from '../processProbe.js';

export const CONDITION_ID = `0x${'b3'.repeat(32)}`;
export const TOKENS = ['71321045679252212594626385532706912750332728571942532289631379312455583992563', '52114319501245915516055106046884209969926127482827954674443846427813813222426'] as const;

export interface DriveRequest {
  readonly kind: 'drive';
  /** Changes per second; 0 = as fast as they go. */
  readonly rate: number;
  readonly seconds: number;
  /** Profile the main thread's CPU over the drive into this file (.cpuprofile). */
  readonly profile?: string;
  /**
   * First this many seconds of the same changes, unmeasured (rate mode): then 'measuring' is sent, and the
   * drive goes on at once; its marks, changes and load are from then on.
   */
  readonly warmupSeconds?: number;
}

/** The changes every subscriber has received so far (the slowest's count), for max mode's flow control. */
export interface AckMessage {
  readonly kind: 'ack';
  readonly seen: number;
}

/** In max mode, at most this many changes are made ahead of the slowest subscriber. */
export const WINDOW = 64;

export type ServerMessage =
  | { kind: 'ready'; port: number; path: string; subscribe: string }
  | { kind: 'measuring' }
  | { kind: 'driven'; changes: number; marks: Mark[]; load: LoadFigures };

/** A change's record time (its price_change's `timestamp`), when it was durable, and when it was published. */
export type Mark = [time: number, durableMs: number, publishedMs: number];

function reply(message: ServerMessage): void {
  process.send?.(message);
}

/** One change's message in the bare program: the shape and size of the service's price_change. */
function priceChange(timestamp: number, i: number): string {
  const size = i % 2 === 0 ? '10' : '0';
  const price = (0.3 + (i % 20) / 100).toFixed(2);
  return JSON.stringify({
    event_type: 'price_change',
    market: CONDITION_ID,
    price_changes: [{ asset_id: TOKENS[0], price, size, side: 'BUY', hash: 'f'.repeat(40), best_bid: size === '0' ? '' : price, best_ask: '' }],
    timestamp: String(timestamp),
  });
}

let acked = 0;
let onAck: (() => void) | undefined;

function ack(m: AckMessage): void {
  acked = Math.max(acked, m.seen);
  onAck?.();
}

/** Runs `change(i)` per the request; resolves with how many were made. */
async function drive(request: DriveRequest, change: (i: number) => Promise<void> | void): Promise<number> {
  acked = 0;
  const end = Date.now() + request.seconds * 1000;
  let i = 0;
  if (request.rate > 0) {
    const every = 1000 / request.rate;
    const start = Date.now();
    const pending: Promise<void>[] = [];
    while (Date.now() < end) {
      pending.push(Promise.resolve(change(i++)));
      const next = start + i * every;
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
    await Promise.all(pending);
  } else {
    // Closed loop: never more than WINDOW changes ahead of what the slowest subscriber has received, so
    // the rate is what delivery sustains (and no send buffer grows without bound). Changes are not awaited
    // one by one: like many clients at once, they meet in the engine host's batches.
    const pending: Promise<void>[] = [];
    while (Date.now() < end) {
      if (i - acked >= WINDOW) {
        await new Promise<void>((r) => {
          onAck = r;
          setTimeout(r, 50);
        });
        onAck = undefined;
        continue;
      }
      pending.push(Promise.resolve(change(i++)));
      if (i % 16 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.all(pending);
  }
  return i;
}

/** drive() under the load probe, and the CPU profiler when asked, after the warm-up; `reset` forgets the marks so far. */
async function measured(request: DriveRequest, change: (i: number) => Promise<void> | void, reset: () => void): Promise<{ changes: number; load: LoadFigures }> {
  if ((request.warmupSeconds ?? 0) > 0) {
    const warmed = await drive({ ...request, seconds: request.warmupSeconds ?? 0 }, change);
    reset();
    reply({ kind: 'measuring' });
    const from = change;
    change = (i) => from(warmed + i); // the stream goes on where the warm-up left it
  }
  if (request.profile !== undefined) await startCpuProfile();
  const probe = startLoadProbe();
  const changes = await drive(request, change);
  const load = probe.stop();
  if (request.profile !== undefined) await stopCpuProfile(request.profile);
  return { changes, load };
}

async function serveService(direct: boolean): Promise<void> {
  const parsed = parseConfig([], {});
  if (parsed.kind !== 'config') throw new Error('default configuration is invalid');
  const config = {
    ...parsed.config,
    dataDir: mkdtempSync(join(tmpdir(), 'pmx-ws-bench-')),
    httpPort: 0,
    rateLimit: false,
    demoCatalog: false,
    logLevel: 'silent' as const,
    wsMaxConnectionsPerIp: 1_000_000,
    wsIdleTimeoutSec: 900,
    wsMaxBackpressureBytes: 64 * 1024 * 1024,
    headerEdge: process.env.BENCH_EDGE !== 'false',
    wsPort: direct ? 0 : undefined,
  };
  let last = 0;
  const clock = (): number => (last = Math.max(Date.now(), last + 1));
  let marks: Mark[] = [];
  const service = await startService(config, pino({ level: 'silent' }), {
    clock,
    onDurable: (records) => {
      const at = monoMs();
      for (const r of records) marks.push([r.command.time, at, NaN]);
    },
    onPublished: (records) => {
      const at = monoMs();
      for (let i = marks.length - records.length; i < marks.length; i++) (marks[i] as Mark)[2] = at;
    },
  });
  const host = service.engine;
  await host.submit({ type: 'ListMarket', conditionId: CONDITION_ID, tokenIds: [TOKENS[0], TOKENS[1]], tickSize: 10_000, minSize: 1_000_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  const account = `0x${'be'.repeat(20)}`;
  await host.submit({ type: 'Deposit', account, amount: 1e15 });
  // A resting book around the changes, as a busy market has.
  for (let p = 10; p < 30; p++) {
    await host.submit({ type: 'PlaceOrder', orderId: `0x${'0'.repeat(60)}${p.toString(16).padStart(4, '0')}`, account, owner: 'bench', tokenId: TOKENS[0], side: 'BUY', makerAmount: p * 100_000, takerAmount: 10_000_000, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: Date.now() + 86_400_000 });
  }
  let orderNo = 0;
  const idOf = (n: number): string => `0x${(0x100000 + n).toString(16).padStart(64, '0')}`;
  // Even changes place a bid at one of twenty levels, odd ones cancel it: one level changes per command.
  const change = async (i: number): Promise<void> => {
    if (i % 2 === 0) {
      orderNo += 1;
      const cents = 30 + (orderNo % 20);
      await host.submit({ type: 'PlaceOrder', orderId: idOf(orderNo), account, owner: 'bench', tokenId: TOKENS[0], side: 'BUY', makerAmount: cents * 100_000, takerAmount: 10_000_000, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: Date.now() + 86_400_000 });
    } else {
      await host.submit({ type: 'CancelOrder', orderId: idOf(orderNo), account });
    }
  };
  process.on('message', (m: DriveRequest | AckMessage | 'stop') => {
    if (m !== 'stop' && m.kind === 'ack') return ack(m);
    if (m === 'stop') {
      void service.close().then(() => process.exit(0));
      return;
    }
    marks = [];
    void measured(m, change, () => (marks = [])).then(({ changes, load }) => reply({ kind: 'driven', changes, marks, load }));
  });
  reply({ kind: 'ready', port: direct ? (service.wsPort as number) : service.port, path: '/ws/market', subscribe: JSON.stringify({ type: 'market', assets_ids: [TOKENS[0]] }) });
}

async function serveBare(): Promise<void> {
  const { uws } = loadUws(false);
  const app = uws.App();
  app.ws<Record<string, never>>('/ws', {
    maxBackpressure: 64 * 1024 * 1024,
    idleTimeout: 0,
    message: (ws: WebSocket<Record<string, never>>, message: ArrayBuffer) => {
      if (Buffer.from(message).toString() === 'PING') {
        ws.send('PONG');
        return;
      }
      ws.subscribe('t');
      ws.send('[]');
    },
  });
  const socket = await new Promise<us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('listen')))));
  let last = 0;
  let marks: Mark[] = [];
  const change = (i: number): void => {
    last = Math.max(Date.now(), last + 1);
    const message = priceChange(last, i);
    const at = monoMs();
    marks.push([last, at, at]);
    app.publish('t', message, false, false);
  };
  process.on('message', (m: DriveRequest | AckMessage | 'stop') => {
    if (m !== 'stop' && m.kind === 'ack') return ack(m);
    if (m === 'stop') {
      uws.us_listen_socket_close(socket);
      process.exit(0);
    }
    marks = [];
    void measured(m, change, () => (marks = [])).then(({ changes, load }) => reply({ kind: 'driven', changes, marks, load }));
  });
  reply({ kind: 'ready', port: uws.us_socket_local_port(socket), path: '/ws', subscribe: 'subscribe' });
}

/** edge: subscribers on the service's public port; direct: on its --ws-port; bare: the bare program. */
export async function serve(mode: 'edge' | 'direct' | 'bare'): Promise<void> {
  if (mode === 'bare') await serveBare();
  else await serveService(mode === 'direct');
}
