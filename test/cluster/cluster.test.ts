// The scale-out roles as separate processes on the real Kafka broker of the test tier and the chDB-backed
// ClickHouse endpoint standing in for the server: one engine, two API nodes, one projector. Traders use the
// official client (@polymarket/clob-client-v2, unchanged) through both API nodes; books, WebSocket events
// and trades are read back from both; then the engine, the projector and an API node are each killed with
// SIGKILL under load, at a random moment (printed), and restarted. Checked throughout: every acknowledged
// order is in the log exactly once (so no client was told "success" for a command the log does not hold),
// every fill is projected exactly once (count() = uniqExact(fill_id) = the log's fills), and a node's reply
// and its own reads agree.

import { ClobClient, OrderType, Side, createL2Headers, type ApiKeyCreds } from '@polymarket/clob-client-v2';
import { BuilderConfig } from '@polymarket/builder-signing-sdk';
import { createClient } from '@clickhouse/client';
import { Wallet } from 'ethers';
import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { openKafkaLog } from '../../log/kafka/kafkaLog.js';
import { clientSigner } from '../auth/fixtures.js';
import { kafkaBrokers, uniqueTopic } from '../support/kafkaBroker.js';
import { CLICKHOUSE_SERVICE_PASSWORD, CLICKHOUSE_SERVICE_USER, dataDir, startClickHouseHost, startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { WsClient, eventsOf } from '../support/wsClient.js';

t.setTimeout(600_000);

const brokers = await kafkaBrokers();
const topic = uniqueTopic('cluster');
const database = `cluster_${Date.now().toString(36)}`;
const OPERATOR = 'operator-token-for-cluster-tests';
const chHost = await startClickHouseHost();
t.teardown(() => chHost.process.kill('SIGTERM'));

const common = [
  '--log-backend', 'kafka', '--kafka-brokers', brokers.join(','), '--kafka-topic', topic,
  '--clickhouse-mode', 'server', '--clickhouse-url', chHost.url, '--clickhouse-user', CLICKHOUSE_SERVICE_USER, '--clickhouse-password', CLICKHOUSE_SERVICE_PASSWORD,
  '--clickhouse-database', database, '--engine-token', 'engine-token-for-cluster-tests', '--auth-secret', 'auth-secret-for-cluster-tests-0123456789',
  '--demo-traders=false', '--signature-workers', '0', '--http-port', '0', '--snapshot-interval-events', '50',
];
const running = new Set<ServiceProcess>();
t.teardown(async () => {
  await Promise.all([...running].map((p) => p.kill('SIGKILL')));
});

function spawnRole(args: string[], label: string): ServiceProcess {
  const p = startServiceProcess([...common, ...args], label);
  running.add(p);
  void p.exited.then(() => running.delete(p));
  return p;
}

const engineDir = dataDir('engine');
async function startEngine(port: number): Promise<{ proc: ServiceProcess; port: number }> {
  const proc = spawnRole(['--role', 'engine', '--data-dir', engineDir, '--engine-port', String(port)], 'engine');
  const line = await proc.waitFor((l) => l.msg === 'taking commands from API nodes', 120_000);
  return { proc, port: line.port as number };
}
let engine = await startEngine(0);
const enginePort = engine.port;

async function startApi(dir: string, label: string): Promise<{ proc: ServiceProcess; url: string }> {
  // As deployed: the header edge on its own thread, snapshots from the copies on the snapshot thread (a child
  // run from sources starts its worker threads through threads/moduleWorker.ts).
  const proc = spawnRole(['--role', 'api', '--data-dir', dir, '--engine-address', `127.0.0.1:${enginePort}`, '--operator-token', OPERATOR], label);
  const line = await proc.waitFor((l) => l.msg === 'listening', 120_000);
  await proc.waitFor((l) => l.msg === 'connected to the engine');
  return { proc, url: `http://127.0.0.1:${line.port as number}` };
}
const api1Dir = dataDir('api1');
let api1 = await startApi(api1Dir, 'api1');
const api2 = await startApi(dataDir('api2'), 'api2');
const projectorDir = dataDir('projector');
let projectorUrl = '';
const startProjector = async (): Promise<ServiceProcess> => {
  // At a lower CPU priority, as a projector sharing a host with the order path runs (docker-compose.yml).
  const proc = spawnRole(['--role', 'projector', '--data-dir', projectorDir, '--nice', '5'], 'projector');
  const line = await proc.waitFor((l) => l.msg === 'projector role: /health, /ready and /metrics', 120_000);
  projectorUrl = `http://127.0.0.1:${line.port as number}`;
  // Projecting, or restored to where it was (a restart with nothing new in the log commits nothing): a new
  // group's first assignment waits out the broker's initial rebalance delay.
  await eventually('the projector projecting', async () => {
    const text = await (await fetch(`http://127.0.0.1:${line.port as number}/metrics`)).text();
    return /^projection_position [1-9]/m.test(text) ? true : undefined;
  }, 60_000);
  return proc;
};
let projector = await startProjector();

const ch = createClient({ url: chHost.url, username: CLICKHOUSE_SERVICE_USER, password: CLICKHOUSE_SERVICE_PASSWORD });
t.teardown(() => ch.close());

async function json(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe().catch(() => undefined);
    if (got !== undefined) return got;
    if (Date.now() > until) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The log as the engine wrote it: every record's events, read from the topic. */
async function logEvents(): Promise<{ accepted: Map<string, number>; fills: number; lastPos: number }> {
  const reader = await openKafkaLog({ brokers, topic, clientId: 'cluster-test-reader', role: 'reader' });
  const accepted = new Map<string, number>();
  let fills = 0;
  let lastPos = 0;
  for await (const r of reader.read(1)) {
    lastPos = r.pos;
    for (const e of r.events) {
      if (e.type === 'OrderAccepted') accepted.set(e.orderId, (accepted.get(e.orderId) ?? 0) + 1);
      if (e.type === 'TradeExecuted') fills++;
    }
  }
  await reader.close();
  return { accepted, fills, lastPos };
}

async function fillCounts(): Promise<{ n: number; u: number }> {
  const rs = await ch.query({ query: `SELECT count() AS n, uniqExact(fill_id) AS u FROM ${database}.fills`, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  const [row] = (await rs.json()) as { n: number; u: number }[];
  return { n: Number(row?.n ?? 0), u: Number(row?.u ?? 0) };
}

interface Trader {
  readonly wallet: Wallet;
  client: ClobClient;
  creds: ApiKeyCreds;
}

async function trader(apiUrl: string, usdc: number): Promise<Trader> {
  const wallet = Wallet.createRandom() as unknown as Wallet;
  const deposit = await json(`${apiUrl}/operator/deposit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
    body: JSON.stringify({ address: wallet.address, amount: String(usdc) }),
  });
  if (deposit.status !== 200) throw new Error(`deposit: ${deposit.status} ${JSON.stringify(deposit.body)}`);
  const signer = clientSigner(wallet) as never;
  const creds = await new ClobClient({ host: `${apiUrl}/clob`, chain: 137, signer, throwOnError: true }).createOrDeriveApiKey();
  return { wallet, creds, client: new ClobClient({ host: `${apiUrl}/clob`, chain: 137, signer, creds, throwOnError: true }) };
}

function on(tr: Trader, apiUrl: string): ClobClient {
  return new ClobClient({ host: `${apiUrl}/clob`, chain: 137, signer: clientSigner(tr.wallet) as never, creds: tr.creds, throwOnError: true });
}

const markets = (await json(`${api1.url}/clob/markets`)).body as { data: { condition_id: string; tokens: { token_id: string }[]; minimum_tick_size: number }[] };
const market = markets.data[0];
if (market === undefined) throw new Error('the engine role listed no demo market');
const [YES, NO] = market.tokens.map((tk) => tk.token_id) as [string, string];

const alice = await trader(api1.url, 1_000);
const bob = await trader(api2.url, 1_000);

t.test('every role is live and ready', async (tt) => {
  for (const url of [api1.url, api2.url, projectorUrl]) {
    tt.equal((await json(`${url}/health`)).status, 200);
    tt.same((await json(`${url}/ready`)).body, { ready: true, problems: [] }, `${url} ready`);
  }
  const metrics = await (await fetch(`${api1.url}/metrics`)).text();
  tt.match(metrics, /replica_lag_records \d+/, 'an API node reports its replica lag');
  tt.match(metrics, /engine_connected 1/, 'and its engine connection');
  const tasks = `/proc/${projector.child.pid as number}/task`;
  if (existsSync(tasks)) {
    const nices = readdirSync(tasks).map((tid) => Number(readFileSync(`${tasks}/${tid}/stat`, 'utf8').split(') ')[1]?.split(' ')[16]));
    tt.same([...new Set(nices)], [5], `every thread of the projector (${nices.length}) runs at --nice 5`);
  }
});

let bid = '';
t.test('an order through one API node: its reply and its own reads agree; the other node and its WebSocket follow', async (tt) => {
  const ws = await WsClient.connect(`${api2.url.replace('http', 'ws')}/ws/market`);
  ws.send({ type: 'market', assets_ids: [YES] });
  await ws.next((f) => eventsOf(f).some((e) => e.event_type === 'book'));
  const placed = (await alice.client.createAndPostOrder({ tokenID: YES, price: 0.4, size: 10, side: Side.BUY }, undefined, OrderType.GTC)) as { success: boolean; orderID: string; status: string };
  tt.equal(placed.success, true);
  tt.equal(placed.status, 'live');
  bid = placed.orderID;
  const own = await alice.client.getOrder(bid);
  tt.equal(own.status, 'LIVE', 'read-your-writes on the same node, at once');
  const book = await eventually('the bid on the other node', async () => {
    const b = (await json(`${api2.url}/clob/book?token_id=${YES}`)).body as { bids: { price: string; size: string }[]; hash: string };
    return b.bids.some((l) => l.price === '0.4' && l.size === '10') ? b : undefined;
  });
  tt.ok(book.hash, 'api2 shows the bid placed through api1');
  const change = await ws.next((f) => eventsOf(f).some((e) => e.event_type === 'price_change'));
  tt.ok(change, 'a subscriber of api2 got the price change of an order placed through api1');
  ws.close();
});

t.test('a trade across nodes: the taker on api2 sees it at once; the projector writes each fill once', async (tt) => {
  const taken = (await bob.client.createAndPostOrder({ tokenID: NO, price: 0.6, size: 10, side: Side.BUY }, undefined, OrderType.GTC)) as { success: boolean; status: string; tradeIDs?: string[] };
  tt.equal(taken.success, true);
  tt.equal(taken.status, 'matched', 'bought NO against the YES bid (a mint)');
  const trades = await bob.client.getTrades();
  tt.equal(trades.length, 1, "the taker's trade, read at once on the node that took it");
  const aliceView = await eventually('the maker sees the fill on the other node', async () => {
    const orders = await on(alice, api2.url).getOpenOrders();
    return orders.find((o) => o.id === bid) === undefined ? orders : undefined;
  });
  tt.same(aliceView, [], "the maker's bid is no longer open on api2");
  const log = await logEvents();
  const counts = await eventually('the fills in ClickHouse', async () => {
    const c = await fillCounts();
    return c.n >= log.fills ? c : undefined;
  });
  tt.same(counts, { n: log.fills, u: log.fills }, `${log.fills} fills, each projected once`);
});

t.test('read-only and builder keys made through one API node work through the other (its replica learns them from the log)', async (tt) => {
  const { apiKey } = await alice.client.createReadonlyApiKey();
  const readOn = (url: string): Promise<{ status: number; body: unknown }> => json(`${url}/clob/data/orders`, { headers: { POLY_READONLY_API_KEY: apiKey, POLY_ADDRESS: alice.wallet.address } });
  const own = await readOn(api1.url);
  tt.equal(own.status, 200, 'on the node that created it, at once');
  const other = await eventually('the read-only key on api2', async () => {
    const r = await readOn(api2.url);
    return r.status === 200 ? r : undefined;
  });
  tt.same(other.body, own.body, "api2 answers the owner's orders alike");
  const builder = (await on(alice, api2.url).createBuilderApiKey()) as { key: string; secret: string; passphrase: string; builderCode: string };
  tt.equal(builder.builderCode, `0x${'0'.repeat(24)}${alice.wallet.address.slice(2).toLowerCase()}`);
  await eventually('the builder key on api1', async () => ((await on(alice, api1.url).getBuilderApiKeys()).length === 1 ? true : undefined));
  const path = '/auth/builder-api-key';
  const l2 = await createL2Headers(clientSigner(alice.wallet) as never, alice.creds, { method: 'DELETE', requestPath: path });
  const builderHeaders = await new BuilderConfig({ localBuilderCreds: { key: builder.key, secret: builder.secret, passphrase: builder.passphrase } }).generateBuilderHeaders('DELETE', path);
  const revoked = await fetch(`${api1.url}/clob${path}`, { method: 'DELETE', headers: { ...Object.fromEntries(Object.entries(l2).map(([k, v]) => [k, String(v)])), ...builderHeaders } });
  tt.same([revoked.status, await revoked.text()], [200, 'OK'], "api1 verified builder headers of a key made on api2, with the secret it derives itself");
  tt.same(await on(alice, api1.url).getBuilderApiKeys(), []);
  tt.equal(await on(alice, api2.url).deleteReadonlyApiKey(apiKey), true);
  const refused = await eventually('the deleted read-only key refused on api1', async () => {
    const r = await readOn(api1.url);
    return r.status === 401 ? r : undefined;
  });
  tt.same(refused.body, { error: 'Unauthorized/Invalid api key: unknown or deleted read-only API key' });
});

/** Places `n` small bids through `client`, concurrently in waves; returns the ids acknowledged. */
async function placeMany(client: ClobClient, n: number, acked: string[], failures: string[]): Promise<void> {
  for (let i = 0; i < n; i += 5) {
    await Promise.all(
      Array.from({ length: Math.min(5, n - i) }, async (_, k) => {
        const price = 0.01 + ((i + k) % 20) * 0.001;
        try {
          const r = (await client.createAndPostOrder({ tokenID: YES, price: Number(price.toFixed(3)), size: 5, side: Side.BUY }, undefined, OrderType.GTC)) as { success?: boolean; orderID?: string };
          if (r.success === true && r.orderID !== undefined) acked.push(r.orderID);
          else failures.push(JSON.stringify(r));
        } catch (error) {
          failures.push((error as Error).message);
        }
      }),
    );
  }
}

/** A random moment between `min` and `max` (orders acknowledged, or ms), so runs kill at different points. */
function randomMoment(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

t.test('the engine killed with SIGKILL under load: every acknowledged order is in the log exactly once', async (tt) => {
  const acked: string[] = [];
  const failures: string[] = [];
  const load = Promise.all([placeMany(alice.client, 60, acked, failures), placeMany(on(bob, api2.url), 60, acked, failures)]);
  const moment = randomMoment(10, 40);
  await eventually('orders acknowledged', async () => (acked.length >= moment ? true : undefined));
  await engine.proc.kill('SIGKILL');
  const killedAt = acked.length;
  engine = await startEngine(enginePort);
  await load;
  tt.ok(killedAt >= moment, `${killedAt} orders acknowledged before the kill (at a random moment: after ${moment})`);
  // An order in flight at the kill fails (the node cannot know whether it was applied); one sent while the
  // engine restarts waits for it, so the number that fail depends on the moment of the kill, and may be 0.
  tt.equal(acked.length + failures.length, 120, `every order answered: ${acked.length} acknowledged, ${failures.length} failed while the engine was down`);
  tt.same(failures.filter((f) => f.includes('"success":true')), [], 'a failure is never a success');
  await eventually('api nodes ready again', async () => ((await json(`${api1.url}/ready`)).status === 200 && (await json(`${api2.url}/ready`)).status === 200 ? true : undefined), 60_000);
  const log = await logEvents();
  const missing = acked.filter((id) => log.accepted.get(id) !== 1);
  tt.same(missing, [], `all ${acked.length} acknowledged orders are in the log exactly once`);
  const after = (await alice.client.createAndPostOrder({ tokenID: YES, price: 0.3, size: 5, side: Side.BUY }, undefined, OrderType.GTC)) as { success: boolean };
  tt.equal(after.success, true, 'orders go through again after the engine restarted');
});

t.test('the projector killed with SIGKILL under load: every fill projected exactly once after its restart', async (tt) => {
  const acked: string[] = [];
  const failures: string[] = [];
  // Bob's NO bids at 0.99 cross Alice's YES bids at 0.01 and more (mints); what rests is crossed by her next bids.
  const trades = Promise.all(
    Array.from({ length: 10 }, async () => {
      try {
        await on(bob, api2.url).createAndPostOrder({ tokenID: NO, price: 0.99, size: 5, side: Side.BUY }, undefined, OrderType.GTC);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }),
  );
  const more = placeMany(alice.client, 60, acked, failures);
  const moment = randomMoment(2, 30);
  await eventually('orders acknowledged', async () => (acked.length >= moment ? true : undefined));
  tt.comment(`the projector killed after ${acked.length} of 60 orders acknowledged (a random moment: after ${moment})`);
  await projector.kill('SIGKILL');
  await Promise.all([trades, more]);
  projector = await startProjector();
  const log = await logEvents();
  const counts = await eventually('the projector caught up', async () => {
    const c = await fillCounts();
    return c.u >= log.fills ? c : undefined;
  }, 60_000);
  tt.ok(log.fills > 1, `${log.fills} fills in the log`);
  tt.same(counts, { n: log.fills, u: log.fills }, 'count() = uniqExact(fill_id) = the fills in the log');
  const ready = await eventually('the projector ready', async () => {
    const r = await json(`${projectorUrl}/ready`);
    return r.status === 200 ? r.body : undefined;
  });
  tt.same(ready, { ready: true, problems: [] }, 'and the restarted projector reports itself ready');
});

t.test('an API node killed with SIGKILL under load comes back with the same state as the other', async (tt) => {
  const acked: string[] = [];
  const failures: string[] = [];
  const load = Promise.all([placeMany(alice.client, 40, acked, failures), placeMany(on(bob, api2.url), 40, acked, failures)]);
  const moment = randomMoment(5, 30);
  await eventually('orders acknowledged', async () => (acked.length >= moment ? true : undefined));
  tt.comment(`api1 killed after ${acked.length} orders acknowledged (a random moment: after ${moment})`);
  await api1.proc.kill('SIGKILL');
  await load;
  tt.ok(failures.length > 0, `${failures.length} orders through the killed node failed (none reported as a success)`);
  const log = await logEvents();
  tt.same(acked.filter((id) => log.accepted.get(id) !== 1), [], `all ${acked.length} acknowledged orders are in the log exactly once`);
  api1 = await startApi(api1Dir, 'api1 again');
  // The book without its read time (timestamp) and the hash over it: the same levels, prices and sizes.
  const levels = async (url: string): Promise<string> => {
    const { timestamp: _t, hash: _h, ...rest } = (await json(`${url}/clob/book?token_id=${YES}`)).body as Record<string, unknown>;
    return JSON.stringify(rest);
  };
  const same = await eventually('both nodes at the same book', async () => {
    const [a, b] = [await levels(api1.url), await levels(api2.url)];
    return a === b ? a : undefined;
  });
  tt.match(same, /"bids":\[\{/, 'the restarted node serves the same book as the other');
  const restarted = api1.proc.lines.find((l) => l.msg === 'replica of the engine recovered');
  tt.ok(Number(restarted?.snapshotPos ?? 0) > 0, `it restarted from its own snapshot (at ${String(restarted?.snapshotPos)}) and the log after it`);
  const live = api1.proc.lines.find((l) => l.msg === 'in-memory read model restored');
  tt.ok(Number(live?.snapshotPos ?? 0) > 0, `its in-memory read model too (from its snapshot at ${String(live?.snapshotPos)}, followed to ${String(live?.pos)})`);
  // What the in-memory reads give: alice's positions and open orders, the same on both nodes.
  const reads = async (url: string): Promise<string> => {
    const positions = (await json(`${url}/positions?user=${alice.wallet.address.toLowerCase()}&sizeThreshold=0`)).body;
    return JSON.stringify([positions, await on(alice, url).getOpenOrders()]);
  };
  const both = await eventually('both nodes give alice the same positions and open orders', async () => {
    const [a, b] = [await reads(api1.url), await reads(api2.url)];
    return a === b ? a : undefined;
  });
  tt.match(both, /"size"/, 'and they hold something');
  // Its read model's snapshots come from a copy on the snapshot thread, seeded once at start-up; the other
  // node's copy has followed all along (a snapshot every 50 events here), and none failed.
  tt.ok(api1.proc.lines.some((l) => l.msg === "in-memory read model's copy seeded on the snapshot thread"), "the restarted node seeded its read model's copy");
  const metrics = await (await fetch(`${api2.url}/metrics`)).text();
  tt.match(metrics, /^read_model_copy_following 1$/m, "the other node's copy follows");
  tt.match(metrics, /read_model_snapshot_hold_seconds_count 1\b/, 'its thread was held once, to seed it');
  tt.same(api2.proc.lines.filter((l) => /snapshot failed|copy failed/.test(String(l.msg))).map((l) => l.msg), [], 'no snapshot failed');
});

t.test('notifications: the same on both nodes (the restarted one rebuilt them from the log), and a drop through one shows on the other', async (tt) => {
  const notes = async (url: string): Promise<string> => JSON.stringify(await on(alice, url).getNotifications());
  const same = await eventually('both nodes give alice the same notifications', async () => {
    const [a, b] = [await notes(api1.url), await notes(api2.url)];
    return a === b ? (JSON.parse(a) as { id: number; type: number }[]) : undefined;
  });
  tt.ok(same.some((n) => n.type === 2), 'her fill is among them');
  tt.ok(api1.proc.lines.some((l) => l.msg === 'notifications restored'), 'the restarted node restored them at start-up');
  const dropped = String(same[0]?.id);
  tt.equal(await on(alice, api2.url).dropNotifications({ ids: [dropped] }), 'OK');
  const after = await eventually('the drop through api2 shows on api1', async () => {
    const list = JSON.parse(await notes(api1.url)) as { id: number }[];
    return list.some((n) => String(n.id) === dropped) ? undefined : list;
  });
  tt.equal(after.length, same.length - 1, 'only the dropped one is gone');
});

t.test('graceful shutdown of every role', async (tt) => {
  for (const p of [api1.proc, api2.proc, projector, engine.proc]) tt.equal(await p.kill('SIGTERM'), 0);
});
