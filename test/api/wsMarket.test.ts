// The market channel end to end: a real WebSocket client (`ws`) through the header edge on the public port,
// the real engine, journal and HTTP API. Trading goes through POST /order; every event is checked against
// GET /book (levels, strings, hash). Also: /clob/ws/market, PING/PONG, malformed and oversized messages,
// a tick-size change, a resolution and a new market on the custom-feature stream.

import t from 'tap';
import { Wallet } from 'ethers';
import type { Market } from '../../engine/market.js';
import { bookHash, type BookSnapshot } from '../../api/clob/bookView.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { Trader } from '../support/tradingClient.js';
import { eventsOf, isEvent, WsClient } from '../support/wsClient.js';

const svc = await startTestService({ wsMaxMessageBytes: 2048 });
t.teardown(() => svc.close());
const host = svc.service.engine;
const engine = host.engine;
const wsUrl = svc.baseUrl.replace('http://', 'ws://');

const usable = [...engine.markets()].filter((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5));
if (usable.length < 3) throw new Error('the demo catalog needs three active markets with tick 0.01');
const [M, M2, M3] = usable as [Market, Market, Market];
const [T0, T1] = M.tokenIds;

async function funded(collateral: number, split?: Market, amount = 0): Promise<Trader> {
  const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet);
  await trader.signIn();
  await host.submit({ type: 'Deposit', account: trader.account, amount: units(collateral) });
  if (split !== undefined) await host.submit({ type: 'Split', account: trader.account, conditionId: split.conditionId, amount: units(amount) });
  return trader;
}

function limit(side: 'BUY' | 'SELL', price: number, size: number, tokenId: string): { side: 'BUY' | 'SELL'; makerAmount: number; takerAmount: number; tokenId: string } {
  const shares = units(size);
  const cash = Math.round(price * size * 1_000_000);
  return side === 'BUY' ? { side, makerAmount: cash, takerAmount: shares, tokenId } : { side, makerAmount: shares, takerAmount: cash, tokenId };
}

async function place(trader: Trader, side: 'BUY' | 'SELL', price: number, size: number, tokenId: string): Promise<string> {
  const res = await trader.postOrder(await trader.signOrder(limit(side, price, size, tokenId)));
  if (res.status !== 200) throw new Error(`POST /order: ${res.status} ${res.text}`);
  return (res.body as { orderID: string }).orderID;
}

async function restBook(tokenId: string): Promise<BookSnapshot> {
  const res = await fetch(`${svc.baseUrl}/book?token_id=${tokenId}`);
  return (await res.json()) as BookSnapshot;
}

/** The hash GET /book's levels give at `timestamp`, the way a client checks its own book. */
function hashAt(book: BookSnapshot, timestamp: string): string {
  return bookHash({ ...book, timestamp, hash: '' });
}

t.test('subscribe, trade over HTTP, and receive book, price_change and last_trade_price in order', async (t) => {
  const maker = await funded(1000);
  const taker = await funded(1000, M, 100);
  const client = await WsClient.connect(`${wsUrl}/ws/market`);
  t.teardown(() => client.close());
  client.send({ type: 'Market', assets_ids: [T0, T1, '999999999999'] });
  const dump = await client.next(Array.isArray);
  const books = eventsOf(dump);
  t.equal(books.length, 2, 'one book per known token, the unknown one left out');
  for (const [i, tokenId] of [T0, T1].entries()) {
    const b = books[i] as unknown as BookSnapshot & { event_type: string };
    t.equal(b.event_type, 'book');
    t.equal(b.asset_id, tokenId);
    const rest = await restBook(tokenId);
    const { event_type: _e, timestamp, hash, ...levels } = b;
    const { timestamp: _t, hash: _h, ...restLevels } = rest;
    t.same(levels, restLevels, 'the same levels, strings and order as GET /book');
    t.equal(hash, hashAt(rest, timestamp), 'the hash GET /book gives for that book at that timestamp');
  }

  const bid = await place(maker, 'BUY', 0.4, 10, T0);
  const change = (await client.next(isEvent('price_change', T0))) as Record<string, unknown>;
  const entries = change.price_changes as Record<string, string>[];
  t.same(entries.map((c) => [c.asset_id, c.price, c.size, c.side]), [[T0, '0.4', '10', 'BUY']]);
  const afterBid = await restBook(T0);
  t.equal(entries[0]?.best_bid, afterBid.bids.at(-1)?.price, 'best_bid is the best (last) bid of GET /book');
  t.equal(entries[0]?.best_ask, afterBid.asks.at(-1)?.price ?? '');
  t.equal(entries[0]?.hash, hashAt(afterBid, change.timestamp as string), 'hash of the book after the change');
  const mirror = (await client.next(isEvent('price_change', T1))) as Record<string, unknown>;
  t.same((mirror.price_changes as Record<string, string>[]).map((c) => [c.asset_id, c.price, c.size, c.side]), [[T1, '0.6', '10', 'SELL']], 'the other token sees the mirror');
  t.ok(bid);

  await place(taker, 'SELL', 0.4, 5, T0);
  const trade = (await client.next(isEvent('last_trade_price', T0))) as Record<string, string>;
  t.match(trade, { market: M.conditionId, asset_id: T0, price: '0.4', size: '5', side: 'SELL', fee_rate_bps: String(M.params.takerFeeBps) });
  t.match(trade.transaction_hash, /^0x[0-9a-f]{64}$/);
  const after = (await client.next(isEvent('price_change', T0))) as Record<string, unknown>;
  t.same((after.price_changes as Record<string, string>[]).map((c) => [c.price, c.size, c.side]), [['0.4', '5', 'BUY']], 'the new aggregate size at the level');
  const rest = await restBook(T0);
  t.equal((after.price_changes as Record<string, string>[])[0]?.hash, hashAt(rest, after.timestamp as string));
  t.equal(rest.last_trade_price, '0.4');
  await client.next(isEvent('price_change', T1));
  const all = client.frames.flatMap(eventsOf);
  const about = (tokenId: string) => all.filter((e) => e.asset_id === tokenId || (e.price_changes as { asset_id: string }[] | undefined)?.some((c) => c.asset_id === tokenId));
  for (const tokenId of [T0, T1]) t.same(about(tokenId).map((e) => e.event_type), ['book', 'price_change', 'last_trade_price', 'price_change'], 'per token, in the order the engine produced them');
  t.match(about(T1)[2], { price: '0.6', side: 'BUY', size: '5' }, 'the other token: mirrored price, opposite side');
});

t.test('the /clob mount, PING and PONG, and a subscription changed on an open socket', async (t) => {
  const client = await WsClient.connect(`${wsUrl}/clob/ws/market`);
  t.teardown(() => client.close());
  client.send('PING');
  t.equal(await client.next(), 'PONG');
  client.send({ type: 'market', assets_ids: ['424242'] });
  t.same(await client.next(), [], 'an unknown token gives []');
  client.send({ operation: 'subscribe', assets_ids: [M2.tokenIds[0]] });
  const dump = eventsOf(await client.next(Array.isArray));
  t.equal(dump[0]?.asset_id, M2.tokenIds[0], 'subscribe on an open socket sends the new token\'s book');
  client.send({ operation: 'unsubscribe', assets_ids: [M2.tokenIds[0]] });
  client.send('PING');
  t.equal(await client.next(), 'PONG');
  const maker = await funded(100);
  await place(maker, 'BUY', 0.3, 5, M2.tokenIds[0]);
  client.send('PING');
  t.equal(await client.next(), 'PONG');
  t.same(client.unread, [], 'nothing arrives for an unsubscribed token');
});

t.test('malformed, unknown and oversized messages', async (t) => {
  const client = await WsClient.connect(`${wsUrl}/ws/market`);
  t.teardown(() => client.close());
  const errorOf = async (message: unknown): Promise<string> => {
    client.send(message);
    const frame = (await client.next()) as Record<string, string>;
    t.equal(frame.event_type, 'error');
    return frame.error as string;
  };
  t.match(await errorOf('{not json'), /not valid JSON/);
  t.match(await errorOf('[1,2]'), /JSON object/);
  t.match(await errorOf({ hello: 1 }), /unknown message/);
  t.match(await errorOf({ operation: 'subscribe', assets_ids: [T0] }), /before an operation/);
  t.match(await errorOf({ type: 'market', assets_ids: 'abc' }), /assets_ids/);
  t.match(await errorOf({ type: 'market', assets_ids: [1, 2] }), /assets_ids/);
  t.match(await errorOf({ type: 'market', assets_ids: [T0], initial_dump: 'yes' }), /booleans/);
  t.match(await errorOf({ type: 'user', assets_ids: [T0] }), /channel/);
  client.socket.send(Buffer.from([1, 2, 3]), { binary: true });
  t.match(((await client.next()) as Record<string, string>).error, /binary/);
  t.equal(svc.service.ws.open >= 1, true);
  client.send('PING');
  t.equal(await client.next(), 'PONG', 'the connection still works, and no subscription was made');
  t.same(client.unread, []);
  client.send(JSON.stringify({ type: 'market', assets_ids: [T0], pad: 'x'.repeat(4096) }));
  const closed = await client.whenClosed();
  t.equal(closed.code, 1009, 'a message over wsMaxMessageBytes closes with 1009');
  t.match(closed.reason, /too big.*2048 bytes/);
  const res = await fetch(`${svc.baseUrl}/ok`);
  t.equal(res.status, 200, 'the service is unharmed');
});

t.test('tick-size change, best_bid_ask, market resolution and a new market on the custom stream', async (t) => {
  const [R0, R1] = M3.tokenIds;
  const client = await WsClient.connect(`${wsUrl}/ws/market`);
  t.teardown(() => client.close());
  client.send({ type: 'market', assets_ids: [R0], custom_feature_enabled: true });
  await client.next(Array.isArray);
  const maker = await funded(100);
  await place(maker, 'BUY', 0.25, 8, R0);
  const bba = (await client.next(isEvent('best_bid_ask', R0))) as Record<string, string>;
  t.match(bba, { market: M3.conditionId, best_bid: '0.25', best_ask: '' });

  await host.submit({ type: 'UpdateMarket', conditionId: M3.conditionId, tickSize: 1000 });
  const tick = (await client.next(isEvent('tick_size_change', R0))) as Record<string, string>;
  t.match(tick, { market: M3.conditionId, old_tick_size: '0.01', new_tick_size: '0.001' });
  t.equal((await restBook(R0)).tick_size, '0.001');

  await host.submit({ type: 'ResolveMarket', conditionId: M3.conditionId, winningOutcome: 1 });
  const resolved = (await client.next(isEvent('market_resolved'))) as Record<string, unknown>;
  t.match(resolved, { market: M3.conditionId, winning_asset_id: R1 });
  t.same(resolved.assets_ids, [R0, R1]);
  const cleared = (await client.next(isEvent('price_change', R0))) as Record<string, unknown>;
  t.same((cleared.price_changes as Record<string, string>[]).map((c) => [c.price, c.size]), [['0.25', '0']], 'resolution cancels the resting order: the level goes');

  const cid = `0x${'ab'.repeat(32)}`;
  await host.submit({ type: 'ListMarket', conditionId: cid, tokenIds: ['777000001', '777000002'], tickSize: 10_000, minSize: units(5), makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  const listed = (await client.next(isEvent('new_market'))) as Record<string, unknown>;
  t.match(listed, { market: cid, condition_id: cid, order_price_min_tick_size: '0.01' });
  t.same(listed.assets_ids, ['777000001', '777000002']);
});
