// Read model: GET /data/order/{id} and GET /data/orders (the caller's orders in the CLOB shape), and the
// maker_address / asset_id filters of GET /data/trades, against the session of readModelFixture.ts extended
// by a partial fill of a resting order, a GTD order, a cancel and a taker that rests after a fill:
//   m13:01 alice SELL 2 Y1 @0.60 takes 2 of dave's BUY 5 @0.60 (o7)     fill8; o7 stays LIVE, 2 matched
//   m13:02 alice BUY 10 Y2 @0.30 GTD rests (o19)
//   m13:03 alice BUY 4 Y1 @0.55 rests (o20); m13:04 alice cancels it
//   m13:05 alice BUY 10 Y1 @0.70 takes bob's SELL 5 @0.70 (o8)           fill9; o21 rests with 5 matched
// The projector writes in batches of 3 records, so finished orders have older LIVE versions in the table.

import t from 'tap';
import type { Command } from '../../engine/index.js';
import { buy, sell } from '../engine/scenario.js';
import { Projector } from '../../projections/projector.js';
import {
  accountOrder, accountOrders, accountTrades, END_CURSOR, FIRST_CURSOR, metadataFrom, readContext, type AccountOrder, type ReadContext,
} from '../../projections/readModel/index.js';
import { FEE_ACCOUNT, freshDatabase, loggedSession } from '../support/projectionFixtures.js';
import { ALICE, BOB, C1, C2, CAROL, DAVE, METADATA, T0S, at, readModelCommands } from './readModelFixture.js';

const EXPIRES = T0S + 86_400;

function extraCommands(): Command[] {
  return [
    sell('0xo18', ALICE, 'Y1', 2, 0.6, { time: at(13, 1) }),
    buy('0xo19', ALICE, 'Y2', 10, 0.3, { time: at(13, 2), orderType: 'GTD', expiration: EXPIRES }),
    buy('0xo20', ALICE, 'Y1', 4, 0.55, { time: at(13, 3) }),
    { type: 'CancelOrder', time: at(13, 4), orderId: '0xo20', account: ALICE },
    buy('0xo21', ALICE, 'Y1', 10, 0.7, { time: at(13, 5) }),
  ];
}

async function fixture(): Promise<{ ctx: ReadContext; fillIds: string[] }> {
  const session = await loggedSession([...readModelCommands(), ...extraCommands()]);
  const events = session.records.flatMap((r) => r.events);
  const refused = events.filter((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected' || e.type === 'CancelRejected');
  if (refused.length > 0) throw new Error(`the session was refused: ${JSON.stringify(refused)}`);
  const fillIds = events.flatMap((e) => (e.type === 'TradeExecuted' ? [e.tradeId] : []));
  const { ch, db } = await freshDatabase();
  const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 3 });
  await projector.start();
  await projector.catchUp();
  await session.journal.close();
  return { ctx: readContext(ch, db, { metadata: metadataFrom((id) => METADATA[id]), now: () => at(14), feeAccount: FEE_ACCOUNT }), fillIds };
}

t.test('account orders', async (t) => {
  const { ctx, fillIds } = await fixture();
  t.equal(fillIds.length, 9);
  const [f1, f2, , , , , , f8, f9] = fillIds as string[];
  const ids = (orders: AccountOrder[]): string[] => orders.map((o) => o.id);

  t.test('the open orders of the caller, newest first, in the CLOB shape', async (t) => {
    const page = await accountOrders(ctx, { caller: ALICE });
    t.same(ids(page.data), ['0xo21', '0xo19']);
    t.same({ next_cursor: page.next_cursor, limit: page.limit, count: page.count }, { next_cursor: END_CURSOR, limit: 100, count: 2 });
    t.same(page.data[0], {
      id: '0xo21', status: 'LIVE', owner: `key-${ALICE}`, maker_address: ALICE, market: C1, asset_id: 'Y1', side: 'BUY',
      original_size: '10', size_matched: '5', price: '0.7', outcome: 'Alpha', expiration: '0', order_type: 'GTC',
      associate_trades: [f9], created_at: T0S + 13 * 60 + 5,
    });
    t.match(page.data[1], { id: '0xo19', market: C2, asset_id: 'Y2', outcome: 'Home', order_type: 'GTD', expiration: String(EXPIRES), size_matched: '0', price: '0.3', associate_trades: [] });
  });

  t.test('finished orders are not open; partly filled ones are', async (t) => {
    t.same(ids((await accountOrders(ctx, { caller: BOB })).data), ['0xo9'], "bob's o8 filled after an earlier LIVE version was stored");
    const dave = await accountOrders(ctx, { caller: DAVE });
    t.same(dave.data.map((o) => [o.id, o.size_matched, o.associate_trades]), [['0xo7', '2', [f8]]]);
    t.same(ids((await accountOrders(ctx, { caller: CAROL })).data), ['0xo10']);
    t.same((await accountOrders(ctx, { caller: '0xnobody' })).data, []);
  });

  t.test('filters: id, market, asset_id', async (t) => {
    t.same(ids((await accountOrders(ctx, { caller: ALICE, market: C2 })).data), ['0xo19']);
    t.same(ids((await accountOrders(ctx, { caller: ALICE, assetId: 'Y1' })).data), ['0xo21']);
    t.same(ids((await accountOrders(ctx, { caller: ALICE, id: '0xo19' })).data), ['0xo19']);
    t.same(ids((await accountOrders(ctx, { caller: ALICE, id: '0xo20' })).data), [], 'cancelled');
    t.same(ids((await accountOrders(ctx, { caller: ALICE, id: '0xo9' })).data), [], "bob's");
    t.same(ids((await accountOrders(ctx, { caller: ALICE, market: C1, assetId: 'Y2' })).data), []);
  });

  t.test('cursors: MA== first, base64 offsets, LTE= last', async (t) => {
    const first = await accountOrders(ctx, { caller: ALICE, limit: 1, nextCursor: FIRST_CURSOR });
    t.same([ids(first.data), first.next_cursor, first.count, first.limit], [['0xo21'], 'MQ==', 1, 1]);
    const second = await accountOrders(ctx, { caller: ALICE, limit: 1, nextCursor: first.next_cursor });
    t.same([ids(second.data), second.next_cursor], [['0xo19'], END_CURSOR]);
    const done = await accountOrders(ctx, { caller: ALICE, nextCursor: END_CURSOR });
    t.same([done.data, done.next_cursor, done.count], [[], END_CURSOR, 0]);
  });

  t.test('one order by id, in any status, only the caller\'s', async (t) => {
    t.match(await accountOrder(ctx, { caller: ALICE, id: '0xo20' }), { id: '0xo20', status: 'CANCELED', size_matched: '0', original_size: '4', price: '0.55' });
    t.match(await accountOrder(ctx, { caller: ALICE, id: '0xo18' }), { id: '0xo18', status: 'MATCHED', side: 'SELL', size_matched: '2', associate_trades: [f8] });
    t.match(await accountOrder(ctx, { caller: ALICE, id: '0xo2' }), { id: '0xo2', status: 'MATCHED', associate_trades: [f1], created_at: T0S + 2 });
    t.match(await accountOrder(ctx, { caller: BOB, id: '0xo8' }), { status: 'MATCHED', size_matched: '5' });
    t.equal(await accountOrder(ctx, { caller: BOB, id: '0xo21' }), undefined, "another account's order");
    t.equal(await accountOrder(ctx, { caller: ALICE, id: '0xnone' }), undefined);
  });

  t.test('bad input is refused with a typed error', async (t) => {
    const bad: [object, RegExp][] = [[{ caller: '' }, /^caller:/], [{ nextCursor: 'nope' }, /^next_cursor:/], [{ limit: 0 }, /^limit:/], [{ limit: 1001 }, /^limit:/]];
    for (const [params, message] of bad) await t.rejects(accountOrders(ctx, { caller: ALICE, ...params }), { name: 'ReadModelInputError', message }, JSON.stringify(params));
    await t.rejects(accountOrder(ctx, { caller: ALICE, id: '' }), { name: 'ReadModelInputError', message: /^id:/ });
  });

  t.test('account trades: maker_address and asset_id match either order', async (t) => {
    const trades = async (params: object): Promise<string[]> => (await accountTrades(ctx, { caller: ALICE, ...params })).data.map((x) => x.id);
    const all = await trades({});
    t.equal(all.length, 6);
    t.same(await trades({ makerAddress: ALICE }), all, 'the caller is on every trade of its own');
    t.same(await trades({ makerAddress: DAVE }), [f8]);
    t.same(await trades({ makerAddress: BOB, assetId: 'Y1' }), [f9, f2, f1]);
    t.same(await trades({ assetId: 'Y2' }), []);
    t.same((await accountTrades(ctx, { caller: DAVE, assetId: 'Y1' })).data.map((x) => x.id), [f8]);
  });
});
