// `npm run bench:orders` (issue 6): signed orders from many wallets posted over HTTP to the whole service,
// and in the same run signature recovery against ethers.
//
// The service runs in a child process (bench/orders/ordersServer.ts) exactly as `npm start` runs it: engine
// host on the fsynced journal (a reply is sent only once its batch is durable), projector into embedded chDB
// in the same process, demo catalog, header edge on the public port (BENCH_HEADER_EDGE=false: uWS on the
// port); rate limits off, L2 and order timestamp windows 3600 s. The load generator is this process. Both
// share the machine's cores: the figures are for the two together, as printed.
//
// Setup (not timed): BENCH_WALLETS wallets sign in (POST /clob/auth/api-key with L1 headers), are funded
// over HTTP (POST /operator/deposit with the operator token, then POST /clob/split into each market's
// tokens with the wallet's L2 headers), and BENCH_ORDERS (+ BENCH_WARMUP) V2 orders are signed: EIP-712
// digest from auth's OrderHasher, signed with libsecp256k1
// (the same deterministic RFC 6979 signature ethers makes; every order of the recovery sample is checked
// with ethers verifyTypedData below, so a wrong digest fails the run). Each request (head with the L2 HMAC
// headers, computed over the exact body, and body) is built as bytes in advance.
//
// Workload on BENCH_MARKETS standard markets around a mid of 0.50 (tick 0.01): 70% resting GTC orders, bids
// 0.40-0.49 and asks 0.51-0.60, 5-50 shares; 30% crossing orders priced through the spread (BUY at 0.55 or
// SELL at 0.45), 5-20 shares, half GTC and half FAK. A quarter of the orders are stated in the complementary
// token (BUY token0 at p = SELL token1 at 1 - p), so the book also matches by mint and merge. Wallets are
// picked at random; self-trades are allowed by the engine. Every wallet holds far more collateral and
// tokens than its orders need, so nothing should be refused: more than 1% refused fails the run.
//
// Timed window: BENCH_CONCURRENCY keep-alive connections, one request in flight on each (no pipelining),
// raw HTTP/1.1 over net sockets (so the client costs little CPU). The load is closed-loop, so the mean
// latency is the connections over the throughput (Little's law): the default 40 connections at 5,000
// orders/s is an 8 ms mean, leaving the tail room under the 25 ms p99 target; more connections add queueing
// (latency) and little throughput (README, Benchmarks, has the runs at 32 to 64). Latency is send -> full
// 200 response, and a 200 means the order's events are durable. Warm-up orders are sent first, untimed. The child's CPU over
// the window (process.cpuUsage, every thread of it) per order is reported, and BENCH_CPU_PROF=<dir> writes
// a CPU profile of the child's main thread over the window and prints where the time goes.
//
// Recovery (after the child has stopped, on BENCH_RECOVER_SAMPLE of the same orders, one core): native
// recoverSigner (auth/recoverSigner.ts) alone, the server's full check (OrderHasher.hash +
// verifyOrderSignature), and ethers verifyTypedData; recoverSpeedup = native recover / ethers verifyTypedData
// (the issue's target, >= 20), verifySpeedup = full check / ethers verifyTypedData.
//
// The last line is one JSON object: {bench: 'orders', orders, ordersPerSec, p50Ms, p99Ms, maxMs, rejected,
// concurrency, recoverPerSec, verifyPerSec, ethersVerifyPerSec, recoverSpeedup, verifySpeedup,
// serverCpuUsPerOrder, serverMainThreadCpuUsPerOrder, clickhouseCpuUsPerOrder (chDB's threads and libuv's pool;
// null for the cluster), followerUsPerOrder (the consumers of the durable records on the request thread; null for
// the cluster), edge, machine, stealPct (the hypervisor's steal over the window, bench/machineSteal.ts; null off
// Linux), targetsMet, ...}.
//
// BENCH_RATE=N posts the window's requests on a schedule, N per second (open loop, latency from each request's
// scheduled time), to measure latency at a given load rather than at saturation.
//
// BENCH_BATCH > 1 posts the same orders as POST /orders batches of up to that many (15 at most) orders of one
// wallet, as market makers do; latency is then per request, counted for each of its orders.
//
// Env: BENCH_ORDERS (40000), BENCH_WARMUP (3000), BENCH_WALLETS (200), BENCH_CONCURRENCY (40), BENCH_BATCH (1),
// BENCH_MARKETS (2), BENCH_SERVER_DIR (another build's dist/bench: its server under this load), BENCH_HEADER_EDGE (the service's default), BENCH_CPU_PROF, BENCH_ALLOC_PROF and
// BENCH_HEAP_SNAPSHOT (directories; unset: none), BENCH_CHILD_STDOUT (a file; unset: none),
// BENCH_RECOVER_SAMPLE (512), BENCH_RECOVER_SECONDS (1 per measurement, 3 rounds), BENCH_SEED (6),
// BENCH_ANALYST (0; N > 0: the service serves its ClickHouse HTTP interface, and N analyst loops send heavy
// queries over fills back to back through the timed window: bench/orders/analystLoad.ts).
//
// Liquidity rewards (issue 35): before every timed window the engine's clock is moved so that a minute of it
// (a rewards sample) falls 1.5 s into the window. BENCH_REWARDS=on gives every market of the service a rewards
// program (the sampler then scores the bench's books each minute; the line `rewards:` says how many samples the
// window held); BENCH_REWARDS=compare runs this bench BENCH_REWARDS_ROUNDS (2) times each way on fresh servers,
// without and with rewards alternately, the same orders each time, prints both and the medians' ratio (the
// issue's target: with within 3% of without).

import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { loadavg } from 'node:os';
import { constants } from 'node:perf_hooks';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Wallet, getBytes, verifyTypedData } from 'ethers';
import secp256k1 from 'secp256k1';
import { parseConfig } from '../config/index.js';
import { startAnalystLoad } from './orders/analystLoad.js';
import { machineDescription } from './machineKind.js';
import { cpuTimes, stealPercent } from './machineSteal.js';
import { ORDER_TYPES, OrderHasher, orderDomain, orderMessage, parseOrderPayload, recoverSigner, verifyOrderSignature, type SignedOrder } from '../auth/index.js';
import { Trader, ZERO_BYTES32, type WireOrder } from '../test/support/tradingClient.js';
import { Rng } from './prng.js';
import { opsPerSecond } from './opsRate.js';
import { minuteTable, startMinuteSampler, type MinuteRow, type ServerMinute } from './orders/minuteRows.js';
import { summariseProfile } from './orders/profileSummary.js';
import { clickhouseShareUs } from './processProbe.js';
import { benchDataRoot } from './dataRoot.js';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 40_000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3_000);
const WALLETS = Number(process.env.BENCH_WALLETS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 40);
/** Orders per request: 1 posts each with POST /order; more posts POST /orders batches of one wallet's orders (at most 15). */
const BATCH = Math.min(15, Math.max(1, Number(process.env.BENCH_BATCH ?? 1)));
const MARKETS = Number(process.env.BENCH_MARKETS ?? 2);
const RECOVER_SAMPLE = Number(process.env.BENCH_RECOVER_SAMPLE ?? 512);
const RECOVER_SECONDS = Number(process.env.BENCH_RECOVER_SECONDS ?? 1);
const PROFILE_DIR = process.env.BENCH_CPU_PROF;
/** BENCH_ALLOC_PROF=<dir>: a sampling allocation profile of the server's main thread over the window. */
const ALLOC_DIR = process.env.BENCH_ALLOC_PROF;
/** BENCH_HEAP_SNAPSHOT=<dir>: a heap snapshot of the server's main thread once the window has settled. */
const HEAP_DIR = process.env.BENCH_HEAP_SNAPSHOT;
const SEED = Number(process.env.BENCH_SEED ?? 6);
const DATA_ROOT = benchDataRoot();
const ANALYST_LOOPS = Number(process.env.BENCH_ANALYST ?? 0);
/** BENCH_RATE=N: the timed window posts N requests per second on a schedule (open loop) instead of as fast as the connections allow. */
const RATE = Number(process.env.BENCH_RATE ?? 0);
/** BENCH_TARGET=cluster: post to an API node of the scale-out roles (engine, API node, projector over Kafka). */
const CLUSTER = process.env.BENCH_TARGET === 'cluster';
/** BENCH_REWARDS: off (default), on (every market rewarded), compare (both, alternately, on fresh servers). */
const REWARDS = process.env.BENCH_REWARDS ?? 'off';

/** A new file in `dir` (created if missing) for one of the server's profiles or snapshots; none without a dir. */
function outputFile(dir: string | undefined, extension: string): string | undefined {
  if (dir === undefined) return undefined;
  mkdirSync(dir, { recursive: true });
  return resolve(dir, `orders-server-${new Date().toISOString().replace(/[:.]/g, '-')}.${extension}`);
}
/** V8 flags of the server: scripts/node-flags, as `npm start` runs the service; BENCH_NODE_FLAGS replaces them. */
const NODE_FLAGS = (process.env.BENCH_NODE_FLAGS ?? readFileSync(fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? '../scripts/node-flags' : '../../scripts/node-flags', import.meta.url)), 'utf8')).split(/\s+/).filter((f) => f !== '');
const TARGET = { ordersPerSec: 5_000, p99Ms: 25, recoverSpeedup: 20 };
const USDC = 1_000_000;
/** Each wallet's deposit (USDC) and split per market (shares): far more than its orders can use. */
const FUND_USDC = 1_000_000;
const SPLIT_SHARES = 100_000;

const loadAtStart = loadavg().map((x) => Number(x.toFixed(2)));

// ---------------------------------------------------------------------------------------------------------
// The child process

interface MarketInfo {
  readonly conditionId: string;
  readonly tokenIds: readonly [string, string];
  readonly minSize: number;
  readonly makerFeeBps: number;
  readonly takerFeeBps: number;
}

interface ReadyInfo {
  readonly port: number;
  readonly operatorToken: string;
  readonly edge: boolean;
  readonly uwsNative: boolean;
  readonly markets: readonly MarketInfo[];
  /** The ClickHouse HTTP interface's port and analyst password, with BENCH_ANALYST. */
  readonly analyst?: { readonly port: number; readonly password: string };
  /** The cluster's projector and ClickHouse server run at this nice value (clusterServer.ts). */
  readonly batchNice?: number;
}

class ServerChild {
  private nextId = 1;
  private readonly waiting = new Map<number, (answer: Record<string, unknown>) => void>();

  private constructor(
    readonly child: ChildProcess,
    readonly info: ReadyInfo,
  ) {
    child.on('message', (m: Record<string, unknown>) => {
      const done = this.waiting.get(m.id as number);
      this.waiting.delete(m.id as number);
      done?.(m);
    });
    child.on('exit', (code) => {
      for (const done of this.waiting.values()) done({ error: `the bench server exited with ${code}` });
      this.waiting.clear();
    });
  }

  static start(): Promise<ServerChild> {
    const self = fileURLToPath(import.meta.url);
    const ts = self.endsWith('.ts');
    // BENCH_TARGET=cluster: the scale-out roles as separate processes over Kafka (bench/orders/clusterServer.ts).
    const server = CLUSTER ? 'clusterServer' : 'ordersServer';
    // BENCH_SERVER_DIR=<a build's dist/bench>: that build's server under this harness (an older commit's
    // worktree, built), so two builds are compared by the same load in the same run.
    const serverDir = process.env.BENCH_SERVER_DIR;
    const script = serverDir !== undefined && serverDir !== '' ? join(resolve(serverDir), 'orders', `${server}.js`) : join(self, '..', 'orders', `${server}${ts ? '.ts' : '.js'}`);
    // Its data directory under the benches' data root (bench/dataRoot.ts), so that it does not pay for the data
    // an earlier run deleted.
    const env = { ...process.env, TMPDIR: DATA_ROOT.dir };
    const child = spawn(process.execPath, [...NODE_FLAGS, ...(ts ? ['--import', 'tsx'] : []), script], { env, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    return new Promise((resolveStart, reject) => {
      let out = '';
      // BENCH_CHILD_STDOUT=<file>: the server's stdout is also appended there (e.g. with --trace-gc in BENCH_NODE_FLAGS).
      const copy = process.env.BENCH_CHILD_STDOUT;
      child.stdout?.on('data', (chunk: Buffer) => {
        if (copy !== undefined && copy !== '') appendFileSync(copy, chunk);
        out += chunk.toString();
        const line = out.split('\n').find((l) => l.startsWith('READY '));
        if (line !== undefined && out !== '') {
          out = '';
          resolveStart(new ServerChild(child, JSON.parse(line.slice(6)) as ReadyInfo));
        }
      });
      child.on('exit', (code) => reject(new Error(`the bench server exited with ${code}`)));
    });
  }

  ask<T extends Record<string, unknown>>(message: Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolveAsk, reject) => {
      this.waiting.set(id, (answer) => (typeof answer.error === 'string' ? reject(new Error(`server: ${answer.error}`)) : resolveAsk(answer as T)));
      this.child.send({ ...message, id });
    });
  }

  async stop(): Promise<void> {
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}

/** perf_hooks' GC kinds (constants.NODE_PERFORMANCE_GC_*) by their number, as the server reports them. */
const GC_KINDS: Record<string, string> = {
  [String(constants.NODE_PERFORMANCE_GC_MINOR)]: 'scavenge',
  [String(constants.NODE_PERFORMANCE_GC_MAJOR)]: 'major',
  [String(constants.NODE_PERFORMANCE_GC_INCREMENTAL)]: 'incremental',
  [String(constants.NODE_PERFORMANCE_GC_WEAKCB)]: 'weak',
};

interface CpuAnswer extends Record<string, unknown> {
  readonly cpu: NodeJS.CpuUsage;
  readonly logPos: number;
  readonly projectorPos: number;
  readonly engineSeq: number;
  /** Event loop stalls: the delay beyond the monitor's sampling period. */
  readonly loopDelay: { p50Ms: number; p99Ms: number; maxMs: number };
  /** The main thread's garbage-collection pauses over the window. */
  readonly gc: { count: number; totalMs: number; p99Ms: number; maxMs: number; msByKind: Record<string, number> };
  readonly rssMb: number;
  /** The main thread's light-load full collections so far (threads/heapTrim.ts; absent from older builds). */
  readonly heapTrims?: number;
  readonly appends: { appends: number; records: number; ms: number; maxMs: number; p90Ms: number; p99Ms: number };
  readonly threads: Record<string, number>;
  /** Each thread's sleeps and preemptions so far, by name (bench/processProbe.ts threadSwitches; absent from older builds). */
  readonly switches?: Record<string, { sleeps: number; preemptions: number }>;
  /** Each consumer of the durable records: its time on the request thread so far, ms (absent from older builds). */
  readonly consumers?: Record<string, number>;
  /** The answer watches' running tallies, by watch (threads/answerWatch.ts; absent from builds without them). */
  readonly wakes?: Record<string, { armed: number; woken: number; fallbackSettles: number }>;
  /**
   * The header edge's running counts: requests forwarded, reads of uWS's output, holds of write requests and the
   * requests they held (absent without the edge, or from older builds; the holds from builds before them).
   */
  readonly edge?: { requests: number; upstreamReads: number; holds?: number; heldRequests?: number };
  /** Where the order path's threads run and how often they moved (server/chainAffinity.ts; absent from builds without it or with it off). */
  readonly chain?: { placement: string; moves: number };
  /** Against the cluster: the API node's replica delay (engine stamp to replica applied), ms. */
  readonly replicaDelay?: { p50Ms: number; p90Ms: number; p99Ms: number };
  /** Against the cluster: CPU so far of the Kafka broker's JIT compiler threads, ms (0 without a broker started here). */
  readonly brokerJitMs?: number;
  /** Against the cluster: the engine's Kafka appends (time, commands per batch) over the last minute. */
  readonly engineAppend?: { p50Ms: number; p99Ms: number; commandsP50: number; commandsP99: number };
}

// ---------------------------------------------------------------------------------------------------------
// Orders

interface Prepared {
  readonly order: SignedOrder;
  readonly orderId: string;
  readonly signer: string;
  readonly kind: 'rest' | 'cross-gtc' | 'cross-fak';
  readonly trader: Trader;
  /** The order as posted: {order, owner, orderType}. */
  readonly post: object;
}

/** One HTTP request, as bytes: POST /clob/order with one order, or POST /clob/orders with `count`. */
interface PreparedRequest {
  readonly bytes: Buffer;
  readonly count: number;
}

/** A deterministic private key per wallet index. */
function privateKey(i: number): Buffer {
  return Buffer.from((BigInt(i + 1) * 0x9e3779b97f4a7c15f39cc0605cedc834n).toString(16).padStart(64, '0').slice(-64), 'hex');
}

/** Without the edge, uWS 20.30 drops a request with "_" in a header name, and Trader's hyphen style keeps POLY-API_KEY. */
function renameHeaders(headers: Record<string, string>, hyphens: boolean): Record<string, string> {
  return hyphens ? Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.replace(/_/g, '-'), value])) : headers;
}

function signDigest(digest: string, key: Buffer): string {
  const { signature, recid } = secp256k1.ecdsaSign(getBytes(digest), key);
  return '0x' + Buffer.from(signature).toString('hex') + (27 + recid).toString(16);
}

interface Signed {
  readonly trader: Trader;
  readonly key: Buffer;
}

function prepareOrders(count: number, traders: readonly Signed[], markets: readonly MarketInfo[], hasher: OrderHasher, rng: Rng): Prepared[] {
  const out: Prepared[] = [];
  const nowMs = Date.now();
  const saltBase = 1 + rng.int(2 ** 30);
  for (let i = 0; i < count; i++) {
    const market = markets[rng.int(markets.length)] as MarketInfo;
    const { trader, key } = traders[rng.int(traders.length)] as Signed;
    // In token0 terms: side and price in cents.
    const crossing = rng.next() < 0.3;
    const buy0 = rng.next() < 0.5;
    const cents0 = crossing ? (buy0 ? 55 : 45) : buy0 ? 49 - rng.int(10) : 51 + rng.int(10);
    const shares = crossing ? 5 + rng.int(16) : 5 + rng.int(46);
    const kind: Prepared['kind'] = !crossing ? 'rest' : rng.next() < 0.5 ? 'cross-gtc' : 'cross-fak';
    // A quarter in the complementary token: BUY token0 at p is SELL token1 at 1 - p.
    const complement = rng.next() < 0.25;
    const side: 'BUY' | 'SELL' = complement !== buy0 ? 'BUY' : 'SELL';
    const cents = complement ? 100 - cents0 : cents0;
    const tokenId = market.tokenIds[complement ? 1 : 0];
    const qty = shares * USDC;
    const cash = shares * cents * 10_000;
    const wire: WireOrder = {
      salt: saltBase + i,
      maker: trader.address,
      signer: trader.address,
      tokenId,
      makerAmount: String(side === 'BUY' ? cash : qty),
      takerAmount: String(side === 'BUY' ? qty : cash),
      side,
      signatureType: 0,
      timestamp: String(nowMs),
      expiration: '0',
      metadata: ZERO_BYTES32,
      builder: ZERO_BYTES32,
      signature: '0x' + '00'.repeat(65),
    };
    const parsed = parseOrderPayload(wire);
    if (!parsed.ok) throw new Error(`bench order does not parse: ${parsed.detail}`);
    const orderId = hasher.hash(parsed.value, false);
    wire.signature = signDigest(orderId, key);
    const order: SignedOrder = { ...parsed.value, signature: wire.signature };
    out.push({ order, orderId, signer: trader.account, kind, trader, post: { order: wire, owner: trader.requireCreds().apiKey, orderType: kind === 'cross-fak' ? 'FAK' : 'GTC' } });
  }
  return out;
}

/**
 * The requests carrying `orders`: one each, or (batch > 1) POST /orders with up to `batch` orders of one
 * wallet, grouped in the order the orders were drawn.
 */
function prepareRequests(orders: readonly Prepared[], batch: number, port: number, hyphens: boolean): PreparedRequest[] {
  const l2Time = Math.floor(Date.now() / 1000);
  const request = (group: readonly Prepared[]): PreparedRequest => {
    const trader = (group[0] as Prepared).trader;
    const path = batch > 1 ? '/orders' : '/order';
    const body = JSON.stringify(batch > 1 ? group.map((o) => o.post) : (group[0] as Prepared).post);
    const headers = trader.l2Headers('POST', path, body, trader.requireCreds(), l2Time);
    let head = `POST /clob${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
    for (const [name, value] of Object.entries(renameHeaders(headers, hyphens))) head += `${name}: ${value}\r\n`;
    return { bytes: Buffer.from(head + '\r\n' + body), count: group.length };
  };
  if (batch <= 1) return orders.map((o) => request([o]));
  const out: PreparedRequest[] = [];
  const open = new Map<Trader, Prepared[]>();
  for (const o of orders) {
    const group = open.get(o.trader) ?? [];
    group.push(o);
    open.set(o.trader, group);
    if (group.length === batch) {
      out.push(request(group));
      open.delete(o.trader);
    }
  }
  for (const group of open.values()) out.push(request(group));
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// A small keep-alive HTTP/1.1 client: one request in flight per connection, responses framed by
// Content-Length (what uWS and the edge send for these routes).

interface Reply {
  readonly status: number;
  readonly body: string;
}

class Connection {
  private pending: Buffer = Buffer.alloc(0);
  private waiter: ((reply: Reply) => void) | undefined;
  private failer: ((error: Error) => void) | undefined;
  private replies = 0;
  /** Why the connection can take no more requests (closed or failed), once it cannot. */
  private closed: Error | undefined;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      this.pending = this.pending.length === 0 ? d : Buffer.concat([this.pending, d]);
      this.parse();
    });
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new Error(`connection closed by the server after ${this.replies} replies${this.pending.length > 0 ? `, with ${JSON.stringify(this.pending.toString('latin1', 0, 300))} unparsed` : ''}`)));
  }

  static open(port: number): Promise<Connection> {
    return new Promise((resolveOpen, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => resolveOpen(new Connection(socket)));
      socket.once('error', reject);
    });
  }

  private fail(error: Error): void {
    this.closed ??= error;
    const f = this.failer;
    this.waiter = undefined;
    this.failer = undefined;
    f?.(error);
  }

  private parse(): void {
    const end = this.pending.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.pending.toString('latin1', 0, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length === null) return this.fail(new Error(`a response without Content-Length: ${head}`));
    const total = end + 4 + Number(length[1]);
    if (this.pending.length < total) return;
    const reply = { status: Number(head.slice(9, 12)), body: this.pending.toString('utf8', end + 4, total) };
    this.pending = this.pending.subarray(total);
    this.replies += 1;
    const w = this.waiter;
    this.waiter = undefined;
    this.failer = undefined;
    w?.(reply);
  }

  send(request: Buffer): Promise<Reply> {
    return new Promise((resolveSend, reject) => {
      if (this.closed !== undefined) return reject(this.closed);
      this.waiter = resolveSend;
      this.failer = reject;
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.removeAllListeners('close');
    this.socket.destroy();
  }
}

interface WindowResult {
  readonly ms: number;
  readonly latencies: Float64Array;
  readonly rejected: number;
  readonly matched: number;
  readonly refusals: Map<string, number>;
  readonly clientCpu: NodeJS.CpuUsage;
}

/** Posts the requests; each order's latency is its request's. */
async function post(connections: readonly Connection[], requests: readonly PreparedRequest[], warmUp = false): Promise<WindowResult> {
  const firstOrder: number[] = [];
  let total = 0;
  for (const r of requests) {
    firstOrder.push(total);
    total += r.count;
  }
  const latencies = new Float64Array(total);
  const refusals = new Map<string, number>();
  let next = 0;
  let rejected = 0;
  let matched = 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    connections.map(async (conn) => {
      for (let i = next++; i < requests.length; i = next++) {
        const request = requests[i] as PreparedRequest;
        // Open loop (BENCH_RATE): each request has its time; latency counts from then, so a request that
        // waited for a free connection counts its wait (no coordinated omission).
        const due = RATE > 0 && !warmUp ? started + (i * 1000) / RATE : 0;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolveWait) => setTimeout(resolveWait, wait));
        const sentAt = due > 0 ? due : performance.now();
        const reply = await conn.send(request.bytes);
        latencies.fill(performance.now() - sentAt, firstOrder[i], (firstOrder[i] as number) + request.count);
        // One order: {"success":true,...}; a batch: an array of those, failures with success false.
        const ok = reply.status === 200 ? reply.body.split('"success":true').length - 1 : 0;
        matched += reply.body.split('"status":"matched"').length - 1;
        if (ok < request.count) {
          rejected += request.count - ok;
          const reason = `${reply.status} ${reply.body.replace(/0x[0-9a-f]{64}/g, '<id>').slice(0, 160)}`;
          refusals.set(reason, (refusals.get(reason) ?? 0) + request.count - ok);
        }
      }
    }),
  );
  const ms = performance.now() - started;
  return { ms, latencies, rejected, matched, refusals, clientCpu: process.cpuUsage(cpu0) };
}

/** The order path's threads, as the switch counts name them. */
const ORDER_PATH_THREADS = ['main (JS)', 'pmx-edge', 'pmx-signatures', 'pmx-journal'] as const;

/** Sleeps and preemptions per order of the order path's threads between two readings; undefined without them. */
function switchesOver(
  before: CpuAnswer['switches'],
  after: CpuAnswer['switches'],
  orders: number,
): Record<string, { sleeps: number; preemptions: number }> | undefined {
  if (before === undefined || after === undefined || orders <= 0) return undefined;
  const out: Record<string, { sleeps: number; preemptions: number }> = {};
  for (const name of ORDER_PATH_THREADS) {
    const a = after[name];
    if (a === undefined) continue;
    const b = before[name] ?? { sleeps: 0, preemptions: 0 };
    out[name] = { sleeps: Number(((a.sleeps - b.sleeps) / orders).toFixed(2)), preemptions: Number(((a.preemptions - b.preemptions) / orders).toFixed(2)) };
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

// ---------------------------------------------------------------------------------------------------------
// Recovery

interface Sample {
  readonly order: SignedOrder;
  readonly digest: Uint8Array;
  readonly signature: Uint8Array;
  readonly signer: string;
}

/** Operations per second of `one` over the samples (bench/opsRate.ts). */
function rate(list: readonly Sample[], one: (s: Sample) => boolean): number {
  return opsPerSecond(list, RECOVER_SECONDS, one, (s) => `an order of ${s.signer}`);
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const parsed = parseConfig([], {});
  if (parsed.kind !== 'config') throw new Error('bad default config');
  const config = parsed.config;
  const hasher = new OrderHasher(config);

  const setupStarted = performance.now();
  const server = await ServerChild.start();
  try {
    const { port, edge } = server.info;
    const markets = server.info.markets.slice(0, MARKETS);
    const headerStyle = edge ? 'underscore' : 'hyphen';
    const baseUrl = `http://127.0.0.1:${port}`;

    // Wallets sign in over HTTP (L1), a few at a time, and are funded.
    const traders: Signed[] = Array.from({ length: WALLETS }, (_, i) => {
      const key = privateKey(i);
      return { key, trader: new Trader(baseUrl, new Wallet('0x' + key.toString('hex')), { headerStyle, chainId: config.chainId }) };
    });
    for (let i = 0; i < traders.length; i += 16) await Promise.all(traders.slice(i, i + 16).map((t) => t.trader.signIn()));
    const fund = async ({ trader }: Signed): Promise<void> => {
      const deposit = await fetch(`${baseUrl}/operator/deposit`, {
        method: 'POST', headers: { authorization: `Bearer ${server.info.operatorToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ address: trader.address, amount: String(FUND_USDC) }),
      });
      if (deposit.status !== 200) throw new Error(`POST /operator/deposit: ${deposit.status} ${await deposit.text()}`);
      for (const m of markets) {
        const body = JSON.stringify({ market: m.conditionId, amount: String(SPLIT_SHARES * USDC) });
        const headers = renameHeaders(trader.l2Headers('POST', '/split', body), !edge);
        const split = await fetch(`${baseUrl}/clob/split`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
        if (split.status !== 200) throw new Error(`POST /clob/split: ${split.status} ${await split.text()}`);
      }
    };
    for (let i = 0; i < traders.length; i += 16) await Promise.all(traders.slice(i, i + 16).map(fund));

    const rng = new Rng(SEED);
    const signStarted = performance.now();
    const warm = prepareOrders(WARMUP, traders, markets, hasher, rng);
    const orders = prepareOrders(ORDERS, traders, markets, hasher, rng);
    const warmRequests = prepareRequests(warm, BATCH, port, !edge);
    const requests = prepareRequests(orders, BATCH, port, !edge);
    const signMs = performance.now() - signStarted;
    const openConnections = (): Promise<Connection[]> => Promise.all(Array.from({ length: CONCURRENCY }, () => Connection.open(port)));
    const warmConnections = await openConnections();
    const setupMs = performance.now() - setupStarted;

    const warmResult = await post(warmConnections, warmRequests, true);
    for (const c of warmConnections) c.close();
    const settleWarm = await server.ask<{ ms: number }>({ op: 'settle' });
    // Fresh connections for the window: the server closes keep-alive connections left idle (uWS after 10 s),
    // as the settling may have left them.
    const connections = await openConnections();

    const profileFile = outputFile(PROFILE_DIR, 'cpuprofile');
    if (profileFile !== undefined) await server.ask({ op: 'profile', action: 'start' });
    const allocFile = outputFile(ALLOC_DIR, 'heapprofile');
    if (allocFile !== undefined) await server.ask({ op: 'allocations', action: 'start' });
    // A minute of the engine's clock 1.5 s into the window: with rewards on, the sampler runs in it.
    if (!CLUSTER) await server.ask({ op: 'align', inMs: 1_500 });
    const rewardsBefore = CLUSTER ? undefined : await server.ask<{ rewarded: boolean; programs: number; samples: number; samplerMs: number }>({ op: 'rewards' });
    const before = await server.ask<CpuAnswer>({ op: 'cpu' });
    const load = loadavg().map((x) => Number(x.toFixed(2)));
    const machineBefore = cpuTimes();
    console.log(`timed window: ${orders.length} orders in ${requests.length} requests over ${CONCURRENCY} connections${RATE > 0 ? `, ${RATE} requests/s on a schedule (open loop)` : ''}...`);
    const analystInfo = server.info.analyst;
    const analystLoad = ANALYST_LOOPS > 0 && analystInfo !== undefined ? startAnalystLoad(analystInfo.port, analystInfo.password, ANALYST_LOOPS) : undefined;
    // A long open-loop window (two minutes or more) is also reported minute by minute (bench/orders/minuteRows.ts).
    // Builds older than the 'memory' question answer it with nothing (or an error): no resting line for them.
    const memory = (): Promise<{ resting: number; rssMb: number; heapUsedMb: number } | undefined> =>
      server
        .ask<{ resting?: number; rssMb?: number; heapUsedMb?: number }>({ op: 'memory' })
        .then((m) => (typeof m.resting === 'number' && typeof m.rssMb === 'number' && typeof m.heapUsedMb === 'number' ? { resting: m.resting, rssMb: m.rssMb, heapUsedMb: m.heapUsedMb } : undefined))
        .catch(() => undefined);
    const restingBefore = await memory();
    // The server's own minute (GC, stalls, appends); an older build answers nothing and the columns stay out.
    const minuteProbe = (): Promise<ServerMinute | undefined> =>
      server
        .ask<Partial<ServerMinute>>({ op: 'minute' })
        .then((m) =>
          typeof m.gcMs === 'number' && typeof m.gcMaxMs === 'number' && typeof m.majorGcMs === 'number' && typeof m.stallMaxMs === 'number' && typeof m.appendMaxMs === 'number'
            ? { gcMs: m.gcMs, gcMaxMs: m.gcMaxMs, majorGcMs: m.majorGcMs, stallMaxMs: m.stallMaxMs, appendMaxMs: m.appendMaxMs, ...(typeof m.serverP99UpToMs === 'number' && typeof m.serverOver100Ms === 'number' ? { serverP99UpToMs: m.serverP99UpToMs, serverOver100Ms: m.serverOver100Ms } : {}) }
            : undefined,
        )
        .catch(() => undefined);
    const minutes = RATE > 0 && !CLUSTER && requests.length / RATE >= 120 && server.child.pid !== undefined ? startMinuteSampler(server.child.pid, minuteProbe) : undefined;
    const result = await post(connections, requests);
    const steal = stealPercent(machineBefore, cpuTimes());
    const firstOrderOfRequest: number[] = [];
    for (let i = 0, n = 0; i < requests.length; n += (requests[i] as PreparedRequest).count, i++) firstOrderOfRequest.push(n);
    const minuteRows = minutes?.stop(result.latencies, firstOrderOfRequest, RATE);
    const restingAfter = await memory();
    const analyst = await analystLoad?.stop();
    const after = await server.ask<CpuAnswer>({ op: 'cpu' });
    const rewardsAfter = CLUSTER ? undefined : await server.ask<{ rewarded: boolean; programs: number; samples: number; samplerMs: number }>({ op: 'rewards' });
    const windowSamples = (rewardsAfter?.samples ?? 0) - (rewardsBefore?.samples ?? 0);
    const samplerMs = (rewardsAfter?.samplerMs ?? 0) - (rewardsBefore?.samplerMs ?? 0);
    if (profileFile !== undefined) await server.ask({ op: 'profile', action: 'stop', file: profileFile });
    if (allocFile !== undefined) console.log(`allocation profile of the server over the window: ${(await server.ask<{ file: string }>({ op: 'allocations', action: 'stop', file: allocFile })).file}`);
    const settle = await server.ask<{ ms: number; logPos: number }>({ op: 'settle' });
    const heapFile = outputFile(HEAP_DIR, 'heapsnapshot');
    if (heapFile !== undefined) console.log(`heap snapshot of the server after the window: ${(await server.ask<{ file: string }>({ op: 'heap', file: heapFile })).file}`);
    for (const c of connections) c.close();
    await server.stop();

    // Recovery, on one core, on orders of this run.
    const step = Math.max(1, Math.floor(orders.length / RECOVER_SAMPLE));
    const sample: Sample[] = [];
    for (let i = 0; i < orders.length && sample.length < RECOVER_SAMPLE; i += step) {
      const o = orders[i] as Prepared;
      sample.push({ order: o.order, digest: getBytes(o.orderId), signature: getBytes(o.order.signature), signer: o.signer });
    }
    const domain = orderDomain(config, false);
    const checksummed = new Map(sample.map((s) => [s, s.order.signer]));
    // Three rounds, the three measurements interleaved; the median of each.
    const rounds: { ethers: number; recover: number; verify: number }[] = [];
    for (let round = 0; round < 3; round++) {
      rounds.push({
        ethers: rate(sample, (s) => verifyTypedData(domain, ORDER_TYPES, orderMessage(s.order), s.order.signature) === checksummed.get(s)),
        recover: rate(sample, (s) => {
          const r = recoverSigner(s.digest, s.signature);
          return r.ok && r.value === s.signer;
        }),
        verify: rate(sample, (s) => verifyOrderSignature(s.order, hasher.hash(s.order, false)).ok),
      });
    }
    const median = (pick: (r: (typeof rounds)[number]) => number): number => rounds.map(pick).sort((a, b) => a - b)[1] as number;
    const ethersVerify = median((r) => r.ethers);
    const nativeRecover = median((r) => r.recover);
    const nativeVerify = median((r) => r.verify);

    // Figures.
    const sorted = Float64Array.from(result.latencies).sort();
    const ordersPerSec = Math.round((orders.length / result.ms) * 1000);
    const p50Ms = Number(percentile(sorted, 50).toFixed(2));
    const p99Ms = Number(percentile(sorted, 99).toFixed(2));
    const maxMs = Number((sorted[sorted.length - 1] ?? 0).toFixed(2));
    const serverCpuUs = after.cpu.user + after.cpu.system - (before.cpu.user + before.cpu.system);
    const clientCpuUs = result.clientCpu.user + result.clientCpu.system;
    const appends = after.appends.appends - before.appends.appends;
    const appended = after.appends.records - before.appends.records;
    const appendMs = after.appends.ms - before.appends.ms;
    const projectorBehind = after.logPos - after.projectorPos;
    const machine = machineDescription();
    const kinds = { rest: 0, 'cross-gtc': 0, 'cross-fak': 0 };
    for (const o of orders) kinds[o.kind] += 1;

    console.log(`machine: ${machine}; load average at start ${loadAtStart.join(' / ')}, at the window ${load.join(' / ')}${steal === undefined ? '' : `; steal over the window ${steal}% (of the time the VM's CPUs wanted, the host ran other guests: bench/machineSteal.ts)`}`);
    console.log(
      CLUSTER
        ? `service: the scale-out roles as processes (engine on Kafka, one API node with edge ${edge ? 'on' : 'off'}, one projector, chDB over ClickHouse's HTTP interface as the ClickHouse server; projector and ClickHouse at nice ${server.info.batchNice ?? 0}); load generator in this process (same 2 cores)`
        : `service: edge ${edge ? 'on (underscore POLY_* headers)' : 'off (uWS on the port, hyphen headers)'}, journal O_DSYNC write per batch, chDB projector in the same process; load generator in this process (same 2 cores)`,
    );
    console.log(`server data under ${DATA_ROOT.dir} (${DATA_ROOT.spread ? 'a top directory: each run in a block group of its own' : 'not a top directory here: a run may pay for the data an earlier one deleted'})`);
    if (after.engineAppend !== undefined) console.log(`engine Kafka appends, last minute: p50 ${after.engineAppend.p50Ms} ms, p99 ${after.engineAppend.p99Ms} ms; commands per batch p50 ${after.engineAppend.commandsP50}, p99 ${after.engineAppend.commandsP99}`);
    if (after.replicaDelay !== undefined) console.log(`API node replica delay (engine stamp -> applied on the node), last minute: p50 ${after.replicaDelay.p50Ms} ms, p90 ${after.replicaDelay.p90Ms} ms, p99 ${after.replicaDelay.p99Ms} ms`);
    console.log(`setup: ${WALLETS} wallets signed in and funded, ${WARMUP} + ${ORDERS} orders signed in ${(signMs / 1000).toFixed(1)} s (setup ${(setupMs / 1000).toFixed(1)} s) on ${markets.length} markets; mix: ${kinds.rest} resting, ${kinds['cross-gtc']} crossing GTC, ${kinds['cross-fak']} crossing FAK`);
    console.log(`warm-up (untimed): ${WARMUP} orders, ${warmResult.rejected} refused${warmResult.rejected > 0 ? ` (${[...warmResult.refusals.keys()][0] ?? ''})` : ''}, projector caught up ${settleWarm.ms.toFixed(0)} ms later`);
    console.log(`window: ${orders.length} orders in ${(result.ms / 1000).toFixed(2)} s over ${CONCURRENCY} connections = ${ordersPerSec} orders/s (target ${TARGET.ordersPerSec})${BATCH > 1 ? `, in POST /orders batches of up to ${BATCH} (${requests.length} requests)` : ', one POST /order each'}; ${result.matched} matched at placement, ${result.rejected} refused`);
    console.log(`latency (send -> durable 200): p50 ${p50Ms} ms, p90 ${percentile(sorted, 90).toFixed(2)} ms, p99 ${p99Ms} ms (target ${TARGET.p99Ms}), p99.9 ${percentile(sorted, 99.9).toFixed(2)} ms, max ${maxMs} ms`);
    if (CLUSTER) console.log(`cluster processes (the Kafka broker included when the bench started it): ${(serverCpuUs / 1000).toFixed(0)} ms CPU over the window = ${(serverCpuUs / orders.length).toFixed(0)} us/order (${(serverCpuUs / 10 / result.ms).toFixed(0)}% of one core)`);
    else console.log(`server: ${(serverCpuUs / 1000).toFixed(0)} ms CPU over the window = ${(serverCpuUs / orders.length).toFixed(0)} us/order (${(serverCpuUs / 10 / result.ms).toFixed(0)}% of one core); ${appends} journal appends of ${(appended / Math.max(1, appends)).toFixed(1)} commands on average, ${(appendMs / Math.max(1, appends)).toFixed(2)} ms each (p90 ${after.appends.p90Ms.toFixed(1)}, p99 ${after.appends.p99Ms.toFixed(1)}, max ${after.appends.maxMs.toFixed(1)} ms); event loop stalls p99 ${after.loopDelay.p99Ms.toFixed(1)} ms max ${after.loopDelay.maxMs.toFixed(1)} ms; GC pauses ${after.gc.count}, ${after.gc.totalMs.toFixed(0)} ms in all, p99 ${after.gc.p99Ms.toFixed(1)} ms max ${after.gc.maxMs.toFixed(1)} ms (ms by kind: ${Object.entries(after.gc.msByKind).map(([k, ms]) => `${GC_KINDS[k] ?? k} ${ms.toFixed(0)}`).join(', ')})${after.heapTrims === undefined ? '' : `; the heap trim started ${after.heapTrims - (before.heapTrims ?? 0)} full collections (--heap-trim-seconds)`}; rss ${after.rssMb} MB`);
    const threads = Object.entries(after.threads)
      .map(([name, ms]): [string, number] => [name, ms - (before.threads[name] ?? 0)])
      .filter(([, ms]) => ms > 0)
      .sort((a, b) => b[1] - a[1]);
    if (after.wakes !== undefined) {
      const rows = Object.entries(after.wakes).map(([name, t]) => {
        const b = before.wakes?.[name] ?? { armed: 0, woken: 0, fallbackSettles: 0 };
        return `${name}: ${t.armed - b.armed} waits armed, ${t.woken - b.woken} woken (${t.armed - t.woken} outstanding), ${t.fallbackSettles - b.fallbackSettles} answers settled by the fallback read`;
      });
      console.log(`answer watches over the window: ${rows.join('; ')}`);
    }
    if (after.edge !== undefined && before.edge !== undefined) {
      // About one read per response when uWS writes each response in one piece (api/http/httpServer.ts sendLater).
      const requests = after.edge.requests - before.edge.requests;
      const reads = after.edge.upstreamReads - before.edge.upstreamReads;
      const holds = (after.edge.holds ?? 0) - (before.edge.holds ?? 0);
      const held = (after.edge.heldRequests ?? 0) - (before.edge.heldRequests ?? 0);
      const holding = holds > 0 ? `; ${held} requests held in ${holds} holds (${(held / holds).toFixed(2)} per hold, --edge-hold-ms)` : '';
      console.log(`edge: ${requests} requests forwarded, ${reads} reads of the service's responses (${(reads / Math.max(1, requests)).toFixed(2)} per request)${holding}`);
    }
    if (after.chain !== undefined) console.log(`order path's threads (--chain-affinity): ${after.chain.placement} at the window's end, ${after.chain.moves - (before.chain?.moves ?? 0)} moves over the window`);
    // How often the order path's threads left their CPU per order: each return costs a thread the switch, and
    // caches that the threads run meanwhile have used.
    const switchesPerOrder = switchesOver(before.switches, after.switches, orders.length);
    if (switchesPerOrder !== undefined) console.log(`order path's threads, sleeps / preemptions per order: ${Object.entries(switchesPerOrder).map(([name, s]) => `${name} ${s.sleeps.toFixed(2)} / ${s.preemptions.toFixed(2)}`).join(', ')}`);
    // What each consumer of the durable records took of the request thread over the window (the read model and
    // the notifications include the batches they applied later, in runs).
    const consumerUs = Object.entries(after.consumers ?? {}).map(([name, ms]): [string, number] => [name, ((ms - (before.consumers?.[name] ?? 0)) * 1000) / orders.length]);
    const followerUs = consumerUs.length === 0 ? undefined : Number(consumerUs.reduce((sum, [, us]) => sum + us, 0).toFixed(1));
    if (followerUs !== undefined) console.log(`durable follower on the request thread: ${followerUs} us/order (${consumerUs.map(([name, us]) => `${name} ${us.toFixed(1)}`).join(', ')})`);
    if (threads.length > 0) console.log(`${CLUSTER ? 'processes' : 'server threads'} (CPU us/order): ${threads.slice(0, 10).map(([name, ms]) => `${name} ${Math.round((ms * 1000) / orders.length)}`).join(', ')}`);
    const clickhouseUs = CLUSTER ? undefined : clickhouseShareUs(before.threads, after.threads, orders.length);
    if (clickhouseUs !== undefined) console.log(`ClickHouse (chDB's own threads and libuv's pool, on which its queries run): ${clickhouseUs} us/order`);
    const brokerMs = after.threads['kafka broker (JVM)'] === undefined ? 0 : after.threads['kafka broker (JVM)'] - (before.threads['kafka broker (JVM)'] ?? 0);
    const brokerJitShare = brokerMs > 0 ? ((after.brokerJitMs ?? 0) - (before.brokerJitMs ?? 0)) / brokerMs : undefined;
    if (brokerJitShare !== undefined) console.log(`kafka broker: ${(brokerJitShare * 100).toFixed(0)}% of its CPU over the window in its JIT compiler threads (a broker in service has long compiled its hot paths; the warm-up is for that)`);
    console.log(`projector: ${projectorBehind} log records behind at the end of the window, caught up ${(settle.ms / 1000).toFixed(1)} s later`);
    if (rewardsAfter !== undefined) console.log(`rewards: ${rewardsAfter.rewarded ? `on, ${rewardsAfter.programs} markets rewarded; ${windowSamples} market samples taken in the window, the engine's thread ${samplerMs.toFixed(2)} ms on the commands that carried them (${((samplerMs * 1000) / orders.length).toFixed(3)} us per order of the window)` : 'off'}`);
    console.log(`load generator: ${(clientCpuUs / orders.length).toFixed(0)} us/order CPU in this process (${(clientCpuUs / 10 / result.ms).toFixed(0)}% of one core)`);
    if (analyst !== undefined) console.log(`analyst over the window: ${analyst.loops} loops of heavy queries on fills, ${analyst.queries} answered (${analyst.errors} errors${analyst.firstError === undefined ? '' : `, first: ${analyst.firstError}`}), ${analyst.meanMs} ms each on average (queue included), max ${analyst.maxMs} ms`);
    for (const [reason, n] of [...result.refusals].sort((a, b) => b[1] - a[1]).slice(0, 5)) console.log(`  refused ${n}x: ${reason}`);
    console.log(`recovery (one core, ${sample.length} orders of this run, median of 3 rounds): native recover ${Math.round(nativeRecover)}/s, native hash + verify ${Math.round(nativeVerify)}/s, ethers verifyTypedData ${Math.round(ethersVerify)}/s; speedup ${(nativeRecover / ethersVerify).toFixed(1)}x (target ${TARGET.recoverSpeedup}x), full check ${(nativeVerify / ethersVerify).toFixed(1)}x`);
    if (minuteRows !== undefined && minuteRows.length > 0) {
      console.log('minute by minute (open loop):');
      for (const line of minuteTable(minuteRows)) console.log(`  ${line}`);
      const firstRow = minuteRows[0] as MinuteRow;
      const lastRow = minuteRows[minuteRows.length - 1] as MinuteRow;
      console.log(`last minute's p99 / first minute's: ${lastRow.p99Ms} / ${firstRow.p99Ms} ms = ${(lastRow.p99Ms / firstRow.p99Ms).toFixed(2)}; RSS ${firstRow.rssMb} -> ${lastRow.rssMb} MB (peak ${lastRow.peakRssMb} MB)`);
    }
    if (restingBefore !== undefined && restingAfter !== undefined) {
      const more = restingAfter.resting - restingBefore.resting;
      console.log(`resting orders: ${restingBefore.resting} -> ${restingAfter.resting}; RSS ${restingBefore.rssMb} -> ${restingAfter.rssMb} MB${more > 0 ? ` (${(((restingAfter.rssMb - restingBefore.rssMb) * 2 ** 20) / more / 1024).toFixed(2)} KB per order added)` : ''}, main thread's JS heap ${restingBefore.heapUsedMb} -> ${restingAfter.heapUsedMb} MB`);
    }
    if (profileFile !== undefined) {
      console.log(`profile of the server's main thread over the window: ${profileFile}`);
      for (const line of summariseProfile(profileFile, orders.length)) console.log(line);
    }

    const refusedShare = result.rejected / orders.length;
    const summary = {
      bench: 'orders',
      target: CLUSTER ? 'cluster' : 'single',
      rewards: rewardsAfter?.rewarded === true ? 'on' : 'off',
      rewardSamples: windowSamples,
      samplerMs: Number(samplerMs.toFixed(3)),
      ratePerSec: RATE > 0 ? RATE : null,
      replicaDelay: after.replicaDelay ?? null,
      engineAppend: after.engineAppend ?? null,
      brokerJitShare: brokerJitShare === undefined ? null : Number(brokerJitShare.toFixed(3)),
      orders: orders.length,
      ordersPerSec,
      p50Ms,
      p99Ms,
      maxMs,
      rejected: result.rejected,
      matched: result.matched,
      concurrency: CONCURRENCY,
      batch: BATCH,
      requests: requests.length,
      wallets: WALLETS,
      markets: markets.length,
      windowSec: Number((result.ms / 1000).toFixed(2)),
      recoverPerSec: Math.round(nativeRecover),
      verifyPerSec: Math.round(nativeVerify),
      ethersVerifyPerSec: Math.round(ethersVerify),
      recoverSpeedup: Number((nativeRecover / ethersVerify).toFixed(1)),
      verifySpeedup: Number((nativeVerify / ethersVerify).toFixed(1)),
      serverCpuUsPerOrder: Math.round(serverCpuUs / orders.length),
      serverMainThreadCpuUsPerOrder: Math.round((((after.threads['main (JS)'] ?? 0) - (before.threads['main (JS)'] ?? 0)) * 1000) / orders.length),
      clickhouseCpuUsPerOrder: clickhouseUs ?? null,
      followerUsPerOrder: followerUs ?? null,
      switchesPerOrder: switchesPerOrder ?? null,
      clientCpuUsPerOrder: Math.round(clientCpuUs / orders.length),
      projectorCatchUpMs: Math.round(settle.ms),
      commandsPerAppend: Number((appended / Math.max(1, appends)).toFixed(1)),
      edge,
      analyst: analyst ?? null,
      profiled: profileFile !== undefined,
      loadAvg: load,
      stealPct: steal ?? null,
      minutes: minuteRows ?? null,
      resting: restingAfter === undefined ? null : { before: restingBefore?.resting ?? null, after: restingAfter.resting, rssMbBefore: restingBefore?.rssMb ?? null, rssMbAfter: restingAfter.rssMb },
      machine,
      targetsMet: { ordersPerSec: ordersPerSec >= TARGET.ordersPerSec, p99Ms: p99Ms <= TARGET.p99Ms, recoverSpeedup: nativeRecover / ethersVerify >= TARGET.recoverSpeedup },
    };
    if (refusedShare > 0.01) {
      console.error(`FAILED: ${result.rejected} of ${orders.length} orders (${(refusedShare * 100).toFixed(1)}%) were refused; more than 1% means the workload, not the server, is being measured`);
      console.log(JSON.stringify({ ...summary, failed: 'more than 1% of orders refused' }));
      process.exitCode = 1;
      return;
    }
    console.log(JSON.stringify(summary));
  } catch (error) {
    if (server.child.exitCode === null) await server.stop();
    throw error;
  }
}

/** One bench run in a child process of this script (BENCH_REWARDS=off or on): its output echoed, its summary. */
function runChild(mode: 'off' | 'on', round: number): Promise<Record<string, number | string | boolean | null>> {
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1] as string], {
    env: { ...process.env, BENCH_REWARDS: mode, BENCH_RECOVER_SAMPLE: process.env.BENCH_RECOVER_SAMPLE ?? '32', BENCH_RECOVER_SECONDS: process.env.BENCH_RECOVER_SECONDS ?? '0.2' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const line of chunk.toString().split('\n')) if (line.trim() !== '' && !line.startsWith('{')) console.log(`  [rewards ${mode}, round ${round}] ${line}`);
  });
  return new Promise((resolveRun, reject) => {
    child.on('exit', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{')) reject(new Error(`the bench run with rewards ${mode} failed (exit ${code})`));
      else resolveRun(JSON.parse(last) as Record<string, number | string | boolean | null>);
    });
  });
}

/** BENCH_REWARDS=compare: rounds of a run without rewards and one with, on fresh servers, and the medians' ratio. */
async function compareRewards(): Promise<void> {
  const rounds = Math.max(1, Number(process.env.BENCH_REWARDS_ROUNDS ?? 2));
  const runs: { off: Record<string, number | string | boolean | null>[]; on: Record<string, number | string | boolean | null>[] } = { off: [], on: [] };
  for (let r = 1; r <= rounds; r++) {
    for (const mode of ['off', 'on'] as const) runs[mode].push(await runChild(mode, r));
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 === 1 ? (s[(s.length - 1) / 2] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2;
  };
  const figure = (mode: 'off' | 'on', key: string): number => median(runs[mode].map((x) => Number(x[key])));
  console.log('');
  console.log('| rewards | orders/s (each run) | median orders/s | median p50 ms | median p99 ms | median server CPU us/order | market samples in the window | engine ms on them |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const mode of ['off', 'on'] as const) {
    console.log(`| ${mode} | ${runs[mode].map((x) => x.ordersPerSec).join(', ')} | ${figure(mode, 'ordersPerSec')} | ${figure(mode, 'p50Ms')} | ${figure(mode, 'p99Ms')} | ${figure(mode, 'serverCpuUsPerOrder')} | ${runs[mode].map((x) => x.rewardSamples).join(', ')} | ${runs[mode].map((x) => x.samplerMs).join(', ')} |`);
  }
  const throughput = figure('on', 'ordersPerSec') / figure('off', 'ordersPerSec');
  const cpu = figure('on', 'serverCpuUsPerOrder') / figure('off', 'serverCpuUsPerOrder');
  const within = throughput >= 0.97;
  console.log(`with every market rewarded: ${(throughput * 100).toFixed(1)}% of the throughput without (target: at least 97%), ${(cpu * 100).toFixed(1)}% of the server CPU per order`);
  console.log(JSON.stringify({ bench: 'orders-rewards', rounds, ordersPerSec: { off: figure('off', 'ordersPerSec'), on: figure('on', 'ordersPerSec') }, p99Ms: { off: figure('off', 'p99Ms'), on: figure('on', 'p99Ms') }, serverCpuUsPerOrder: { off: figure('off', 'serverCpuUsPerOrder'), on: figure('on', 'serverCpuUsPerOrder') }, throughputRatio: Number(throughput.toFixed(3)), cpuRatio: Number(cpu.toFixed(3)), within3Percent: within }));
  if (!within) process.exitCode = 1;
}

if (REWARDS === 'compare') await compareRewards();
else await main();
