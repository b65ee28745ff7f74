// An order's trade ids in the builders' open orders and the WebSocket publisher's: every order starts on the one
// shared, frozen empty list (NO_TRADES), and its first fill gives it a list of its own that later fills extend.

import t from 'tap';
import { deserialize, serialize } from 'node:v8';
import { Engine, type Command } from '../../engine/index.js';
import type { Submission } from '../../host/engineHost.js';
import { addTrade, NO_TRADES, OrdersBuilder, type FillOrders, type OpenOrder } from '../../projections/builders/orders.js';
import { DiscardRows } from '../../projections/rows.js';

const USDC = 1_000_000;
const id = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
const account = (n: number): string => `0x${n.toString(16).padStart(40, '0')}`;

t.test('an order shares the empty trade list until its first fill', (t) => {
  const engine = new Engine();
  const orders = new OrdersBuilder();
  const sink = new DiscardRows();
  const fills: FillOrders[] = [];
  let pos = 0;
  let time = 1_800_000_000_000;
  const run = (c: Submission): void => {
    const events = engine.apply({ ...c, time: (time += 1) } as Command);
    t.notOk(events.some((e) => e.type === 'CommandRejected' || e.type === 'OrderRejected'), `${c.type} accepted`);
    orders.apply({ pos: (pos += 1), events }, sink, fills);
  };
  const conditionId = id(0xc1);
  run({ type: 'ListMarket', conditionId, tokenIds: ['101', '102'], tickSize: 10_000, minSize: USDC, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  for (const n of [1, 2, 3]) run({ type: 'Deposit', account: account(n), amount: 1_000 * USDC });
  run({ type: 'Split', account: account(3), conditionId, amount: 100 * USDC });
  const bid = (n: number, orderId: string): Submission => ({
    type: 'PlaceOrder', orderId, account: account(n), owner: 'k', tokenId: '101', side: 'BUY', makerAmount: 20 * USDC, takerAmount: 50 * USDC,
    orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: 0,
  });
  const sell = (orderId: string): Submission => ({
    type: 'PlaceOrder', orderId, account: account(3), owner: 'k', tokenId: '101', side: 'SELL', makerAmount: 5 * USDC, takerAmount: 2 * USDC,
    orderType: 'FAK', postOnly: false, expiration: 0, dedupeUntil: 0,
  });
  run(bid(1, id(1)));
  run(bid(2, id(2)));
  const first = orders.open.get(id(1));
  const second = orders.open.get(id(2));
  t.equal(first?.trades, NO_TRADES, 'a new order holds the shared list');
  t.equal(second?.trades, NO_TRADES, 'as does every other');
  run(sell(id(10)));
  t.equal(first?.trades.length, 1, 'the first fill gives the order one trade');
  t.not(first?.trades, NO_TRADES, 'in a list of its own');
  t.equal(second?.trades, NO_TRADES, 'the order that did not fill still shares the empty list');
  t.equal(NO_TRADES.length, 0, 'which stays empty');
  t.ok(Object.isFrozen(NO_TRADES), 'and cannot be changed');
  const own = first?.trades;
  run(sell(id(11)));
  t.equal(first?.trades, own, 'a later fill goes into the same list');
  t.equal(first?.trades.length, 2);
  t.end();
});

t.test('orders restored from a snapshot do not share a trade list', (t) => {
  const order = (n: number, trades: readonly string[]): OpenOrder => ({
    id: id(n), account: account(n), owner: 'k', conditionId: id(0xc1), tokenId: '101', outcome: 0, side: 'BUY', price: 400_000, size: 50 * USDC,
    matched: 0, status: 'LIVE', orderType: 'GTC', postOnly: false, expiration: 0, makerAmount: 20 * USDC, takerAmount: 50 * USDC, trades,
    builder: '', createdAt: 1, updatedAt: 1, resting: true,
  });
  // A snapshot keeps shared objects shared: both orders come back holding one unfrozen empty array.
  const copies = deserialize(serialize([order(1, NO_TRADES), order(2, NO_TRADES), order(3, ['t0'])])) as OpenOrder[];
  t.equal(copies[0]?.trades, copies[1]?.trades, 'the deserialised orders share one array');
  const builder = new OrdersBuilder();
  for (const o of copies) builder.restore(o);
  const restored = (n: number): OpenOrder => {
    const o = builder.open.get(id(n));
    if (o === undefined) throw new Error(`order ${n} not restored`);
    return o;
  };
  const [a, b, c] = [restored(1), restored(2), restored(3)];
  t.equal(a.trades, NO_TRADES, 'a restored order without trades holds the shared list');
  t.equal(b.trades, NO_TRADES, 'as does the other');
  addTrade(a, 't1');
  t.same(a.trades, ['t1'], 'a fill of one');
  t.equal(b.trades, NO_TRADES, 'leaves the other without trades');
  addTrade(c, 't2');
  t.same(c.trades, ['t0', 't2'], 'an order restored with trades goes on from them');
  t.end();
});
