// The WebSocket limits end to end (real `ws` clients through the header edge): connections per IP,
// subscriptions per connection, the idle timeout without PING, and a slow consumer closed with a reason
// while a fast one keeps receiving; the ws_* counters on /metrics.

import t from 'tap';
import type { Command } from '../../engine/index.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { eventsOf, isEvent, WsClient } from '../support/wsClient.js';

const svc = await startTestService({ wsMaxConnectionsPerIp: 4, wsMaxSubscriptions: 3, wsIdleTimeoutSec: 8, wsMaxBackpressureBytes: 64 * 1024 });
t.teardown(() => svc.close());
const host = svc.service.engine;
const wsUrl = `${svc.baseUrl.replace('http://', 'ws://')}/ws/market`;

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${svc.baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line === undefined ? NaN : Number(line.split(' ').at(-1));
}

// A market of our own with a deep book (tick 0.001), so that snapshots are large.
const CID = `0x${'5e'.repeat(32)}`;
const [A0, A1] = ['880000001', '880000002'];
await host.submit({ type: 'ListMarket', conditionId: CID, tokenIds: [A0, A1], tickSize: 1000, minSize: units(1), makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
const whale = `0x${'77'.repeat(20)}`;
await host.submit({ type: 'Deposit', account: whale, amount: units(1_000_000) });
let orderNo = 0;
function bid(price: number, size: number): Omit<Extract<Command, { type: 'PlaceOrder' }>, 'time'> {
  orderNo += 1;
  const shares = units(size);
  return {
    type: 'PlaceOrder', orderId: `0x${orderNo.toString(16).padStart(64, '0')}`, account: whale, owner: 'whale-key', tokenId: A0, side: 'BUY',
    makerAmount: Math.round((shares * price) / 1000), takerAmount: shares, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: Date.now() + 3_600_000,
  };
}
await Promise.all(Array.from({ length: 400 }, (_, i) => host.submit(bid(i + 1, 1 + i / 100))));

t.test('connections per IP: the one over the limit is refused with 429, and a slot frees on close', async (t) => {
  const open = await Promise.all(Array.from({ length: 4 }, () => WsClient.connect(wsUrl)));
  await t.rejects(WsClient.connect(wsUrl), /upgrade refused: 429/);
  open[0]?.close();
  await open[0]?.whenClosed();
  await new Promise((r) => setTimeout(r, 100));
  const again = await WsClient.connect(wsUrl);
  open.push(again);
  t.ok(await metric('ws_connections_refused_total') >= 1, 'counted on /metrics');
  for (const c of open) c.close();
  await Promise.all(open.map((c) => c.whenClosed()));
  await new Promise((r) => setTimeout(r, 100));
});

t.test('subscriptions per connection: a subscribe over the limit is refused and changes nothing', async (t) => {
  const client = await WsClient.connect(wsUrl);
  t.teardown(() => client.close());
  client.send({ type: 'market', assets_ids: ['1', '2', '3', '4'] });
  t.match(await client.next(), { event_type: 'error', error: /subscription limit.*at most 3/ });
  client.send({ type: 'market', assets_ids: [A0, '2'], initial_dump: false });
  client.send({ operation: 'subscribe', assets_ids: ['3', '4'] });
  t.match(await client.next(), { event_type: 'error', error: /subscription limit/ });
  client.send({ operation: 'subscribe', assets_ids: ['3'] });
  t.same(await client.next(Array.isArray), [], 'the third fits');
  t.equal(await metric('ws_subscriptions'), 3);
});

t.test('a connection without PING is closed after the idle timeout; one that pings stays', async (t) => {
  const quiet = await WsClient.connect(wsUrl);
  const chatty = await WsClient.connect(wsUrl);
  const ping = setInterval(() => chatty.send('PING'), 2000);
  t.teardown(() => {
    clearInterval(ping);
    chatty.close();
  });
  const closed = await quiet.whenClosed(20_000);
  t.equal(closed.code, 4000, 'the quiet one is closed');
  t.match(closed.reason, /idle: no message \(PING\) for 8 s/);
  t.equal(chatty.closed, undefined, 'the one sending PING is still open');
  t.ok(chatty.frames.every((f) => f === 'PONG'), 'and got PONG for each PING');
});

t.test('a slow consumer is closed with a reason while a fast one keeps receiving', async (t) => {
  const fast = await WsClient.connect(wsUrl);
  const slow = await WsClient.connect(wsUrl);
  t.teardown(() => {
    fast.close();
    slow.socket.terminate();
  });
  fast.send({ type: 'market', assets_ids: [A0] });
  const dump = eventsOf(await fast.next(Array.isArray));
  t.ok(JSON.stringify(dump).length > 10_000, `a deep book: its snapshot is large (${JSON.stringify(dump).length} bytes)`);
  // The slow client stops reading, then asks for the deep snapshot again and again.
  const raw = (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  raw.pause();
  const dropped = await metric('ws_slow_consumers_dropped_total');
  for (let i = 0; i < 2000 && (await metric('ws_slow_consumers_dropped_total')) === dropped; i += 50) {
    for (let j = 0; j < 50; j++) slow.send({ ...(i + j === 0 ? { type: 'market' } : { operation: 'subscribe' }), assets_ids: [A0, A1] });
    await new Promise((r) => setTimeout(r, 20));
  }
  t.equal(await metric('ws_slow_consumers_dropped_total'), dropped + 1, 'the slow consumer was dropped');
  await host.submit(bid(450, 3));
  const change = (await fast.next(isEvent('price_change', A0))) as Record<string, unknown>;
  t.match(change.price_changes, [{ price: '0.45', size: '3', side: 'BUY' }], 'the fast one received the change made after the drop');
  raw.resume();
  const closed = await slow.whenClosed(20_000);
  t.not(closed.code, 1000, `the slow one is closed (${closed.code} ${closed.reason})`);
  if (closed.code === 4008) t.match(closed.reason, /slow consumer/);
  t.ok((await metric('ws_messages_sent_total')) > 0);
  t.ok((await metric('ws_bytes_sent_total')) > 10_000);
});
