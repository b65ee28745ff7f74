// Liquidity rewards through the running service: the operator sets a program, two makers quote, minutes pass on
// the engine's clock (AdvanceTime, as the host's timer submits them), and the endpoints answer from the same
// rule the sampler uses; at midnight UTC the day is paid once: the makers' /balance-allowance grows, the user
// channel tells them, the payout is a `ledger_events` row of kind 'reward' beside the scores and earnings
// tables and a REWARD row of the wallet's /activity, /rewards/user reads the closed day from ClickHouse, and a restart pays nothing again.

import t from 'tap';
import { Wallet } from 'ethers';
import { pino } from 'pino';
import { DAY_MS, dayText } from '../../engine/index.js';
import { startService, type RunningService } from '../../server/service.js';
import { units } from '../engine/scenario.js';
import { freshDatabase } from '../support/projectionFixtures.js';
import { testConfig } from '../support/serviceFixture.js';
import { Trader } from '../support/tradingClient.js';
import { eventsOf, WsClient } from '../support/wsClient.js';

const TOKEN = 'operator-token-for-the-rewards-tests';
const CID = `0x${'3c'.repeat(32)}`;
const [YES, NO] = ['350001', '350002'];
// The engine's clock: two UTC days ahead of the wall clock, ten minutes before midnight.
const DAY1 = (Math.floor(Date.now() / DAY_MS) + 2) * DAY_MS;
let engineNow = DAY1 - 10 * 60_000 - 5_000;

const { ch, db } = await freshDatabase();
const config = testConfig({ clickhouseDatabase: db, operatorToken: TOKEN });
const start = (port = 0): Promise<RunningService> => startService({ ...config, httpPort: port }, pino({ level: 'silent' }), { clickhouse: ch, engineClock: () => engineNow });
let svc = await start();
t.teardown(() => svc.close());
const base = `http://127.0.0.1:${svc.port}`;

const operator = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
  const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};
const getJson = async (path: string): Promise<unknown> => (await fetch(`${base}/clob${path}`)).json();
const tick = async (to: number): Promise<void> => {
  engineNow = to;
  await svc.engine.submit({ type: 'AdvanceTime' });
};
const order = (id: number, account: string, side: 'BUY' | 'SELL', price: number, shares: number) => {
  const qty = units(shares);
  const cash = Math.round(qty * price);
  return {
    type: 'PlaceOrder' as const, orderId: `0x${id.toString(16).padStart(64, '0')}`, account, owner: 'k', tokenId: YES, side, makerAmount: side === 'BUY' ? cash : qty, takerAmount: side === 'BUY' ? qty : cash,
    orderType: 'GTC' as const, postOnly: false, expiration: 0, dedupeUntil: DAY1 + DAY_MS,
  };
};

const alice = new Trader(base, Wallet.createRandom() as unknown as Wallet);
const bob = new Trader(base, Wallet.createRandom() as unknown as Wallet);
const outsider = new Trader(base, Wallet.createRandom() as unknown as Wallet);

t.test('a day of rewards through the API', async (t) => {
  t.equal((await operator('POST', '/operator/markets', { conditionId: CID, tokenIds: [YES, NO] })).status, 200);
  for (const x of [alice, bob, outsider]) {
    await x.signIn();
    await operator('POST', '/operator/deposit', { address: x.address, amount: '1000' });
  }
  for (const x of [alice, bob]) await svc.engine.submit({ type: 'Split', account: x.account, conditionId: CID, amount: units(200) });

  // The operator's program: refusals first, then $14,400 a day (ten dollars a minute), 3 cents, 10 shares.
  t.match(await operator('POST', `/operator/markets/${CID}/rewards`, { dailyRate: '100', maxSpread: '0.001', minSize: '10' }), { status: 400 });
  t.match(await operator('POST', `/operator/markets/${CID}/rewards`, { dailyRate: 100, maxSpread: '3', minSize: '10' }), { status: 400 });
  t.match(await operator('DELETE', `/operator/markets/${CID}/rewards`), { status: 404, body: { error: `market ${CID} has no liquidity rewards program` } });
  t.match(await operator('GET', `/operator/markets/${CID}/rewards`), { status: 200, body: { conditionId: CID, rewards: null } });
  const set = await operator('POST', `/operator/markets/${CID}/rewards`, { dailyRate: '14400', maxSpread: '3', minSize: '10' });
  t.match(set, { status: 200, body: { conditionId: CID, rewards: { dailyRate: '14400', maxSpread: '3', minSize: '10', midpoint: '' } } });

  // Alice quotes both sides a cent away (Q = 40 a side), Bob bids two cents away (Q_one 30, Q_min 10).
  const aliceBid = order(1, alice.account, 'BUY', 0.49, 90);
  for (const cmd of [aliceBid, order(2, alice.account, 'SELL', 0.51, 90), order(3, bob.account, 'BUY', 0.48, 270), order(4, bob.account, 'BUY', 0.3, 100)]) await svc.engine.submit(cmd);

  // Beside the programs the demo catalog hands off.
  const current = (await getJson('/rewards/markets/current')) as { data: Record<string, unknown>[]; next_cursor: string; count: number };
  t.match(current, { limit: 500, count: 6, next_cursor: 'LTE=' });
  t.match(current.data.find((d) => d.condition_id === CID), { condition_id: CID, rewards_max_spread: 3, rewards_min_size: 10, native_daily_rate: 14400, rewards_config: [{ id: 0, rate_per_day: 14400, start_date: dayText(Math.floor((DAY1 - 1) / DAY_MS)) }] });
  t.match(await getJson(`/rewards/markets/${CID}`), { count: 1, data: [{ condition_id: CID, market_competitiveness: 50, tokens: [{ token_id: YES, price: 0.5 }, { token_id: NO, price: 0.5 }] }] });
  t.match(await getJson(`/rewards/markets/0x${'00'.repeat(32)}`), { count: 0, data: [] }, 'a market without a program: an empty page');
  t.match(await (await fetch(`${base}/clob/rewards/markets/0x12`)).json(), { error: 'Invalid market' });

  t.same((await alice.l2('GET', '/order-scoring', undefined, `?order_id=${aliceBid.orderId}`)).body, { scoring: true });
  t.same((await alice.l2('POST', '/orders-scoring', [aliceBid.orderId, order(4, bob.account, 'BUY', 0.3, 100).orderId])).body, { [aliceBid.orderId]: true, [order(4, '', 'BUY', 0, 0).orderId]: false });
  t.same((await bob.l2('GET', '/order-scoring', undefined, `?order_id=${order(4, '', 'BUY', 0, 0).orderId}`)).body, { scoring: false }, 'beyond the spread');
  t.same((await outsider.l2('GET', '/order-scoring', undefined, `?order_id=${aliceBid.orderId}`)).body, { scoring: false }, "another's order");
  t.equal((await alice.l2('GET', '/order-scoring', undefined, '?order_id=0x12')).status, 400);
  t.same((await alice.l2('GET', '/rewards/user/percentages')).body, { [CID]: 80 });
  t.same((await bob.l2('GET', '/rewards/user/percentages')).body, { [CID]: 20 });

  // Ten minutes of samples ($100: Alice 80%, Bob 20%), then the day so far.
  await tick(DAY1 - 60_000 + 1);
  const today = dayText(Math.floor((DAY1 - 1) / DAY_MS));
  t.match((await alice.l2('GET', '/rewards/user', undefined, `?date=${today}`)).body, { count: 1, next_cursor: 'LTE=', data: [{ date: `${today}T00:00:00Z`, condition_id: CID, maker_address: alice.account, earnings: 80, asset_rate: 1 }] });
  t.match((await bob.l2('GET', '/rewards/user/total', undefined, `?date=${today}`)).body, [{ maker_address: bob.account, earnings: 20 }]);
  t.same((await outsider.l2('GET', '/rewards/user/total', undefined, `?date=${today}`)).body, []);
  t.match((await alice.l2('GET', '/rewards/user', undefined, '?date=2023-02-30')).body, { error: 'Invalid date (format: YYYY-MM-DD)' });
  t.match((await alice.l2('GET', '/rewards/user/markets', undefined, `?date=${today}&order_by=earnings&position=&no_competition=false`)).body, {
    limit: 100, count: 6, total_count: 6, data: [{ condition_id: CID, earning_percentage: 80, maker_address: alice.account, earnings: [{ earnings: 80 }], spread: 0.02 }],
  }, 'by earnings, highest first');
  t.match((await alice.l2('GET', '/rewards/user/markets', undefined, '?only_open_orders=true&page_size=1')).body, { limit: 1, count: 1, total_count: 1, next_cursor: 'LTE=', data: [{ condition_id: CID }] });
  t.match((await alice.l2('GET', '/rewards/user/markets', undefined, '?q=nothing-like-this')).body, { count: 0, total_count: 0 });
  t.match((await alice.l2('GET', '/rewards/user/markets', undefined, '?order_by=height')).body, { error: /^order_by: must be one of/ });
  t.match((await outsider.l2('GET', '/rewards/user', undefined, `?date=${today}&maker_address=${bob.address}`)).body, { data: [{ maker_address: bob.account, earnings: 20 }] }, "a maker's earnings are public");
  t.match((await alice.l2('GET', '/rewards/user', undefined, `?date=${today}&maker_address=0x12`)).body, { error: 'Invalid maker_address' });
  t.match(await operator('GET', `/operator/markets/${CID}/rewards`), { body: { rewards: { midpoint: '0.5', today: { samples: 10, pool: '100' } } } });

  // Midnight: the day is paid, once.
  const ws = await WsClient.connect(`${base.replace('http://', 'ws://')}/ws/user`);
  t.teardown(() => ws.close());
  ws.send({ auth: alice.requireCreds(), type: 'user', markets: [] });
  ws.send('PING');
  await ws.next((f) => f === 'PONG');
  const before = Number(((await alice.l2('GET', '/balance-allowance', undefined, '?asset_type=COLLATERAL')).body as { balance: string }).balance);
  await tick(DAY1);
  const after = Number(((await alice.l2('GET', '/balance-allowance', undefined, '?asset_type=COLLATERAL')).body as { balance: string }).balance);
  t.equal(after - before, units(80), "Alice's $80 in her free collateral");
  const note = (await ws.next((f) => eventsOf(f).some((e) => e.event_type === 'reward'))) as unknown;
  t.match(eventsOf(note).find((e) => e.event_type === 'reward'), { type: 'REWARD', market: CID, date: today, amount: '80', maker_address: alice.account, transaction_hash: /^0x[0-9a-f]{64}$/ });

  t.match((await bob.l2('GET', '/rewards/user', undefined, `?date=${today}`)).body, { data: [{ condition_id: CID, earnings: 20 }] }, 'the closed day, from ClickHouse');
  // The payout in the wallet's timeline: one REWARD row (memory and ClickHouse answer alike, dataApiReads.test.ts).
  const timeline = (await (await fetch(`${base}/activity?user=${alice.address}&type=REWARD`)).json()) as Record<string, unknown>[];
  t.match(timeline, [{ type: 'REWARD', conditionId: CID, size: 80, usdcSize: 80, price: 0, asset: '', side: '', outcomeIndex: 999, transactionHash: /^0x[0-9a-f]{64}$/ }]);
  t.equal(timeline.length, 1);
  t.equal(timeline[0]?.timestamp, Math.floor(DAY1 / 1000), 'paid at midnight, engine time');
  const rows = async (sql: string): Promise<unknown[]> => (await (await ch.query({ query: sql, format: 'JSONEachRow' })).json()) as unknown[];
  t.match(await rows(`SELECT account, kind, condition_id, toString(amount) AS amount FROM ${db}.ledger_events WHERE kind = 'reward' ORDER BY amount DESC`), [
    { account: alice.account, kind: 'reward', condition_id: CID, amount: '80000000' }, { account: bob.account, amount: '20000000' },
  ]);
  t.match(await rows(`SELECT account, toString(amount) AS amount, paid, toString(day) AS day FROM ${db}.reward_earnings ORDER BY account = '${alice.account}' DESC`), [
    { account: alice.account, amount: '80000000', paid: true, day: today }, { account: bob.account, amount: '20000000', paid: true },
  ]);
  t.match(await rows(`SELECT sum(samples) AS samples, count() AS rows FROM ${db}.reward_samples WHERE account = '${alice.account}' AND at < fromUnixTimestamp64Milli(toInt64(${DAY1}))`), [{ samples: 10 }]);

  // A restart (snapshot + log) pays nothing again.
  const port = svc.port;
  await svc.close();
  svc = await start(port);
  engineNow = DAY1 + 120_000;
  await svc.engine.submit({ type: 'AdvanceTime' });
  const again = Number(((await alice.l2('GET', '/balance-allowance', undefined, '?asset_type=COLLATERAL')).body as { balance: string }).balance);
  t.equal(again, after, 'no second payout after the restart');
  const ended = await operator('DELETE', `/operator/markets/${CID}/rewards`);
  t.match(ended, { status: 200, body: { rewards: null } });
  t.notOk(((await getJson('/rewards/markets/current')) as { data: { condition_id: string }[] }).data.some((d) => d.condition_id === CID), 'no longer listed');
});
