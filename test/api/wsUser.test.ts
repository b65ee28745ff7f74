// The user channel end to end: real `ws` clients through the header edge, two traders crossing over the
// HTTP API. Each key receives its own order events (PLACEMENT, UPDATE per fill, CANCELLATION) and trade
// events, agreeing with GET /data/order/{id} and GET /data/trades; never the other key's. Wrong or missing
// credentials close the socket with a reason; a market filter keeps other markets out.

import t from 'tap';
import { Wallet } from 'ethers';
import type { Market } from '../../engine/market.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { Trader } from '../support/tradingClient.js';
import { eventsOf, WsClient } from '../support/wsClient.js';

const svc = await startTestService();
t.teardown(() => svc.close());
const host = svc.service.engine;
const engine = host.engine;
const wsUrl = `${svc.baseUrl.replace('http://', 'ws://')}/ws/user`;

const usable = [...engine.markets()].filter((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5));
const [M, M2] = usable as [Market, Market];
const [T0] = M.tokenIds;

async function funded(collateral: number, split?: Market, amount = 0): Promise<Trader> {
  const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet);
  await trader.signIn();
  await host.submit({ type: 'Deposit', account: trader.account, amount: units(collateral) });
  if (split !== undefined) await host.submit({ type: 'Split', account: trader.account, conditionId: split.conditionId, amount: units(amount) });
  return trader;
}

async function place(trader: Trader, side: 'BUY' | 'SELL', price: number, size: number, tokenId: string): Promise<string> {
  const shares = units(size);
  const cash = Math.round(price * size * 1_000_000);
  const terms = side === 'BUY' ? { side, makerAmount: cash, takerAmount: shares, tokenId } : { side, makerAmount: shares, takerAmount: cash, tokenId };
  const res = await trader.postOrder(await trader.signOrder(terms));
  if (res.status !== 200) throw new Error(`POST /order: ${res.status} ${res.text}`);
  return (res.body as { orderID: string }).orderID;
}

async function subscribed(trader: Trader, markets: string[] = []): Promise<WsClient> {
  const client = await WsClient.connect(wsUrl);
  client.send({ auth: trader.requireCreds(), type: 'user', markets });
  // The subscribe has no answer; a PONG after it says it was processed.
  client.send('PING');
  await client.next((f) => f === 'PONG');
  return client;
}

const isOrder = (type: string, id: string) => (f: unknown) => eventsOf(f).some((e) => e.event_type === 'order' && e.type === type && e.id === id);
const isTrade = (id: string) => (f: unknown) => eventsOf(f).some((e) => e.event_type === 'trade' && e.id === id);

t.test('order and trade events of each key, agreeing with the REST reads, and nobody else\'s', async (t) => {
  const buyer = await funded(1000);
  const seller = await funded(100, M, 50);
  const buyerWs = await subscribed(buyer);
  const sellerWs = await subscribed(seller);
  const filtered = await subscribed(buyer, [M2.conditionId]);
  t.teardown(() => [buyerWs, sellerWs, filtered].forEach((c) => c.close()));

  const bid = await place(buyer, 'BUY', 0.4, 10, T0);
  const placement = (await buyerWs.next(isOrder('PLACEMENT', bid))) as Record<string, unknown>;
  const rest = (await buyer.l2('GET', `/data/order/${bid}`)).body as Record<string, unknown>;
  for (const key of ['id', 'status', 'owner', 'maker_address', 'market', 'asset_id', 'side', 'original_size', 'size_matched', 'price', 'outcome', 'expiration', 'order_type'] as const) {
    t.equal(placement[key], rest[key], `PLACEMENT ${key} as GET /data/order`);
  }
  t.equal(placement.created_at, String(rest.created_at), 'created_at: the same seconds, as a string');
  t.equal(placement.status, 'LIVE');
  t.match(placement.timestamp, /^\d{13}$/);

  await place(seller, 'SELL', 0.4, 5, T0);
  const trades = ((await buyer.l2('GET', '/data/trades')).body as { data: Record<string, unknown>[] }).data;
  t.equal(trades.length, 1);
  const restTrade = trades[0] as Record<string, unknown>;
  const makerTrade = (await buyerWs.next(isTrade(restTrade.id as string))) as Record<string, unknown>;
  for (const key of ['id', 'taker_order_id', 'market', 'asset_id', 'side', 'size', 'price', 'status', 'match_time', 'outcome', 'bucket_index', 'owner', 'maker_address', 'transaction_hash', 'trader_side'] as const) {
    t.same(makerTrade[key], restTrade[key], `trade ${key} as GET /data/trades`);
  }
  t.same(makerTrade.maker_orders, restTrade.maker_orders, 'maker_orders as GET /data/trades');
  t.match(makerTrade, { event_type: 'trade', type: 'TRADE', trader_side: 'MAKER', trade_owner: buyer.requireCreds().apiKey });
  const update = (await buyerWs.next(isOrder('UPDATE', bid))) as Record<string, unknown>;
  const afterFill = (await buyer.l2('GET', `/data/order/${bid}`)).body as Record<string, unknown>;
  t.match(update, { status: afterFill.status, size_matched: afterFill.size_matched });
  t.equal(update.size_matched, '5');
  t.same(update.associate_trades, afterFill.associate_trades);
  const takerTrade = (await sellerWs.next(isTrade(restTrade.id as string))) as Record<string, unknown>;
  t.match(takerTrade, { trader_side: 'TAKER', trade_owner: seller.requireCreds().apiKey });

  t.equal((await buyer.l2('DELETE', '/order', { orderID: bid })).status, 200);
  const cancelled = (await buyerWs.next(isOrder('CANCELLATION', bid))) as Record<string, unknown>;
  const finalRest = (await buyer.l2('GET', `/data/order/${bid}`)).body as Record<string, unknown>;
  t.equal(cancelled.status, finalRest.status);
  t.equal(cancelled.status, 'CANCELED');
  t.equal(cancelled.size_matched, '5', 'size_matched is kept after a cancel');

  const own = (client: WsClient, trader: Trader): void => {
    const key = trader.requireCreds().apiKey;
    for (const e of client.frames.flatMap(eventsOf)) {
      if (e.event_type === 'order') t.equal(e.owner, key, 'an order event of the key\'s own order');
      else if (e.event_type === 'trade') t.equal(e.trade_owner, key, 'a trade event of the key\'s own trade');
    }
  };
  sellerWs.send('PING');
  await sellerWs.next((f) => f === 'PONG');
  own(buyerWs, buyer);
  own(sellerWs, seller);
  t.notOk(sellerWs.frames.flatMap(eventsOf).some((e) => e.id === bid), 'the seller never sees the buyer\'s order');
  filtered.send('PING');
  await filtered.next((f) => f === 'PONG');
  t.same(filtered.frames.filter((f) => f !== 'PONG'), [], 'a connection filtered to another market receives nothing of this one');
});

t.test('an order placed and filled before its owner connects: later events carry its whole history', async (t) => {
  const buyer = await funded(1000);
  const seller = await funded(100, M, 50);
  const bid = await place(buyer, 'BUY', 0.3, 20, T0);
  await place(seller, 'SELL', 0.3, 5, T0);
  // The key's first connection: the service starts following its open orders from here on.
  const buyerWs = await subscribed(buyer);
  t.teardown(() => buyerWs.close());
  await place(seller, 'SELL', 0.3, 5, T0);
  const update = (await buyerWs.next(isOrder('UPDATE', bid))) as Record<string, unknown>;
  const rest = (await buyer.l2('GET', `/data/order/${bid}`)).body as Record<string, unknown>;
  t.equal(update.size_matched, '10');
  t.equal((rest.associate_trades as unknown[]).length, 2, 'two fills so far');
  t.same(update.associate_trades, rest.associate_trades, 'associate_trades: the fill before the connection too, as GET /data/order');
  t.equal(update.created_at, String(rest.created_at), 'created_at as GET /data/order');
});

t.test('wrong or missing credentials close the socket with a reason', async (t) => {
  const trader = await funded(10);
  const creds = trader.requireCreds();
  const cases: [string, unknown][] = [
    ['wrong secret', { type: 'user', auth: { ...creds, secret: Buffer.from('nope').toString('base64') } }],
    ['wrong passphrase', { type: 'user', auth: { ...creds, passphrase: 'x'.repeat(64) } }],
    ['unknown key', { type: 'user', auth: { ...creds, apiKey: '00000000-0000-4000-8000-000000000000' } }],
    ['no auth', { type: 'user', markets: [] }],
    ['not JSON first', 'hello'],
    ['a market subscribe first', { type: 'market', assets_ids: [T0] }],
  ];
  for (const [what, message] of cases) {
    const client = await WsClient.connect(wsUrl);
    client.send(message);
    const closed = await client.whenClosed();
    t.equal(closed.code, 1008, `${what}: 1008`);
    t.match(closed.reason, /^unauthorized/, `${what}: the reason says why`);
  }
  const ok = await subscribed(trader);
  t.teardown(() => ok.close());
  ok.send({ operation: 'subscribe', markets: ['not-a-condition-id'] });
  t.match(await ok.next(), { event_type: 'error', error: /markets/ });
  ok.send({ operation: 'subscribe', markets: [M.conditionId.toUpperCase().replace('0X', '0x')] });
  ok.send('PING');
  t.equal(await ok.next(), 'PONG', 'an authenticated connection stays open after a refused message');
});

t.test('deleting the API key closes its user-channel connections, and it cannot subscribe again', async (t) => {
  const trader = await funded(10);
  const creds = trader.requireCreds();
  const client = await subscribed(trader);
  t.equal((await trader.l2('DELETE', '/auth/api-key')).status, 200);
  const closed = await client.whenClosed();
  t.equal(closed.code, 1008);
  t.match(closed.reason, /api key was deleted/);
  const again = await WsClient.connect(wsUrl);
  again.send({ type: 'user', auth: creds });
  t.match((await again.whenClosed()).reason, /^unauthorized/);
});
