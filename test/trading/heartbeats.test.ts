// Heartbeats over HTTP with the official client (@polymarket/clob-client-v2, unchanged): the id chain, a stale
// id's answer (400 with the current id, nothing changes), and a client that stops heartbeating losing every
// open order within the window + 1 s, measured from its last heartbeat to the cancellation on the user
// channel, and the cancellation shown by /data/order, /data/orders, GET /book and the market channel. Then the
// log replayed into a fresh engine gives the same state hash.

import { ClobClient, type ApiKeyCreds } from '@polymarket/clob-client-v2';
import { Wallet } from 'ethers';
import t from 'tap';
import { Engine } from '../../engine/index.js';
import type { Market } from '../../engine/market.js';
import { clientSigner } from '../auth/fixtures.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { Trader } from '../support/tradingClient.js';
import { eventsOf, isEvent, WsClient } from '../support/wsClient.js';

const WINDOW_SEC = 2;
const svc = await startTestService({ heartbeatTimeoutSec: WINDOW_SEC });
t.teardown(() => svc.close());
const host = svc.service.engine;
const market = [...host.engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5)) as Market;
const [YES] = market.tokenIds;

async function trader(): Promise<{ trader: Trader; client: ClobClient; raw: ClobClient }> {
  const wallet = Wallet.createRandom() as unknown as Wallet;
  const trader = new Trader(svc.baseUrl, wallet);
  const creds = (await trader.signIn()) as unknown as { apiKey: string; secret: string; passphrase: string };
  await host.submit({ type: 'Deposit', account: trader.account, amount: units(100) });
  const apiCreds: ApiKeyCreds = { key: creds.apiKey, secret: creds.secret, passphrase: creds.passphrase };
  const make = (throwOnError: boolean): ClobClient => new ClobClient({ host: `${svc.baseUrl}/clob`, chain: 137, signer: clientSigner(wallet) as never, creds: apiCreds, throwOnError });
  return { trader, client: make(true), raw: make(false) };
}

async function bid(who: Trader, price: number, size = 10): Promise<string> {
  const res = await who.postOrder(await who.signOrder({ side: 'BUY', makerAmount: Math.round(price * size * 1_000_000), takerAmount: units(size), tokenId: YES }));
  if (res.status !== 200) throw new Error(`POST /order: ${res.status} ${res.text}`);
  return (res.body as { orderID: string }).orderID;
}

interface BookLevel {
  readonly price: string;
  readonly size: string;
}

async function bids(): Promise<BookLevel[]> {
  return ((await (await fetch(`${svc.baseUrl}/book?token_id=${YES}`)).json()) as { bids: BookLevel[] }).bids;
}

t.test('the id chain: each answer names the next id; a stale id gets 400 with the current id and changes nothing', async (t) => {
  const { trader: who, client, raw } = await trader();
  const first = (await client.postHeartbeat()) as { heartbeat_id: string; status: string };
  t.match(first, { heartbeat_id: /^[0-9a-f-]{36}$/, status: 'ok' });
  const second = (await client.postHeartbeat(first.heartbeat_id)) as { heartbeat_id: string };
  t.not(second.heartbeat_id, first.heartbeat_id, 'a new id each time');
  const session = host.engine.heartbeatSession(who.account);
  t.equal(session?.id, second.heartbeat_id);

  const stale = await who.l2('POST', '/v1/heartbeats', { heartbeat_id: first.heartbeat_id });
  t.equal(stale.status, 400);
  t.same(stale.body, { error: 'Invalid Heartbeat ID', error_msg: 'Invalid Heartbeat ID', heartbeat_id: second.heartbeat_id }, 'upstream\'s answer: the id to send next');
  t.same(host.engine.heartbeatSession(who.account), session, 'same id, same deadline');
  const viaClient = (await raw.postHeartbeat('not-the-id')) as { error?: unknown; status?: number };
  t.equal(viaClient.status, 400, 'the official client sees the 400');

  const third = await who.l2('POST', '/heartbeats', { heartbeat_id: second.heartbeat_id });
  t.equal(third.status, 200, '/heartbeats is the same route');
  t.equal(host.engine.heartbeatSession(who.account)?.id, (third.body as { heartbeat_id: string }).heartbeat_id);

  for (const body of ['[]', '{"heartbeat_id": 7}', 'nope', `{"heartbeat_id": "${'x'.repeat(65)}"}`]) {
    const res = await who.request('POST', '/v1/heartbeats', { headers: who.l2Headers('POST', '/v1/heartbeats', body), body });
    t.equal(res.status, 400, `malformed body ${body.slice(0, 20)} → 400`);
  }
  t.equal(host.engine.heartbeatSession(who.account)?.id, (third.body as { heartbeat_id: string }).heartbeat_id, 'malformed bodies change nothing');
  const unsigned = await fetch(`${svc.baseUrl}/clob/v1/heartbeats`, { method: 'POST', body: '{}' });
  t.equal(unsigned.status, 401, 'L2 only');
});

t.test('a client that stops heartbeating loses every open order within the window + 1 s, everywhere a cancel shows', async (t) => {
  const { trader: who, client } = await trader();
  const { trader: other } = await trader();
  const mine = [await bid(who, 0.11), await bid(who, 0.12)];
  const theirs = await bid(other, 0.13);

  const user = await WsClient.connect(`${svc.baseUrl.replace('http://', 'ws://')}/ws/user`);
  t.teardown(() => user.close());
  user.send({ auth: who.requireCreds(), type: 'user' });
  user.send('PING');
  await user.next((f) => f === 'PONG');
  const marketWs = await WsClient.connect(`${svc.baseUrl.replace('http://', 'ws://')}/ws/market`);
  t.teardown(() => marketWs.close());
  marketWs.send({ type: 'market', assets_ids: [YES] });
  await marketWs.next(isEvent('book', YES));

  let id = ((await client.postHeartbeat()) as { heartbeat_id: string }).heartbeat_id;
  // The last heartbeat's engine time lies between its sending and its answer (which comes once its command is
  // durable, later under a loaded disk): the window is measured from the first for "not before", from the
  // second for "within".
  let lastSent = 0;
  for (let i = 0; i < 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 800));
    lastSent = Date.now();
    id = ((await client.postHeartbeat(id)) as { heartbeat_id: string }).heartbeat_id;
  }
  const lastBeat = Date.now();
  t.equal(host.engine.openOrders(who.account).length, 2, 'heartbeats kept both orders through 2.4 s (window 2 s)');

  const cancelled = new Map<string, number>();
  while (cancelled.size < 2) {
    const frame = await user.next((f) => eventsOf(f).some((e) => e.event_type === 'order' && e.type === 'CANCELLATION'), (WINDOW_SEC + 3) * 1000);
    for (const e of eventsOf(frame)) if (e.type === 'CANCELLATION') cancelled.set(e.id as string, Date.now());
  }
  const firstCancel = Math.min(...cancelled.values()) - lastSent;
  const lost = Math.max(...cancelled.values()) - lastBeat;
  t.same([...cancelled.keys()].sort(), [...mine].sort(), 'the user channel tells of both cancellations');
  t.ok(firstCancel >= WINDOW_SEC * 1000, `not before the window (${firstCancel} ms after the last heartbeat was sent)`);
  t.ok(lost <= WINDOW_SEC * 1000 + 1000, `within the window + 1 s (${lost} ms after its answer)`);

  for (const orderId of mine) {
    const order = (await who.l2('GET', `/data/order/${orderId}`)).body as { status: string; size_matched: string };
    t.equal(order.status, 'CANCELED', `/data/order/${orderId.slice(0, 10)}… is CANCELED`);
  }
  const open = (await who.l2('GET', '/data/orders')).body as { data: unknown[] };
  t.same(open.data, [], '/data/orders holds none of them');
  const levels = await bids();
  t.notOk(levels.some((l) => l.price === '0.11' || l.price === '0.12'), 'GET /book no longer shows their levels');
  t.ok(levels.some((l) => l.price === '0.13'), "another user's order rests");
  t.equal(host.engine.order(theirs)?.id, theirs);
  const removed = new Set<string>();
  while (removed.size < 2) {
    const frame = await marketWs.next(isEvent('price_change', YES), 3000);
    for (const e of eventsOf(frame)) for (const c of (e.price_changes ?? []) as Record<string, string>[]) if (c.asset_id === YES && c.size === '0') removed.add(c.price as string);
  }
  t.same([...removed].sort(), ['0.11', '0.12'], 'the market channel shows both levels emptied');

  const late = await who.l2('POST', '/v1/heartbeats', { heartbeat_id: id });
  t.match({ status: late.status, body: late.body }, { status: 400, body: { heartbeat_id: '' } }, 'the ended session\'s id is refused; "" says none is live');
});

t.test('the log replayed into a fresh engine gives the same state hash', async (t) => {
  await host.idle();
  const replayed = new Engine(host.engine.state.config);
  for await (const record of svc.service.engineService.log.read(1)) replayed.apply(record.command);
  t.equal(replayed.stateHash(), host.engine.stateHash());
});
