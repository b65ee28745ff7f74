// Read model: GET /data/trades (account trades in the CLOB shape, both sides, maker_orders, filters, cursors)
// and GET /builder/trades, against the hand-built session of readModelFixture.ts.

import t from 'tap';
import { accountTrades, builderTrades, builderTradesPage, cursorFor, END_CURSOR, FIRST_CURSOR, parseCursor, transactionHashOf, type AccountTrade } from '../../projections/readModel/index.js';
import { ALICE, BOB, BUILDER_B, BUILDER_C, C1, C3, C5, CAROL, DAVE, T0S, readModelFixture } from './readModelFixture.js';

t.test('account trades', async (t) => {
  const { ctx, fillIds } = await readModelFixture();
  const [f1, f2, f3, f4, f5, f6, f7] = fillIds as [string, string, string, string, string, string, string];
  const ids = (trades: AccountTrade[]): string[] => trades.map((x) => x.id);

  t.test('the caller as taker: the CLOB shape with its maker order', async (t) => {
    const page = await accountTrades(ctx, { caller: ALICE });
    t.same(ids(page.data), [f4, f3, f2, f1], 'newest first');
    t.same({ next_cursor: page.next_cursor, limit: page.limit, count: page.count }, { next_cursor: END_CURSOR, limit: 100, count: 4 });
    t.same(page.data[1], {
      id: f3, taker_order_id: '0xo6', market: C1, asset_id: 'Y1', side: 'SELL', size: '5', fee_rate_bps: '0', price: '0.7', status: 'CONFIRMED',
      match_time: String(T0S + 5 * 60 + 2), last_update: String(T0S + 5 * 60 + 2), outcome: 'Alpha', bucket_index: 0, owner: `key-${ALICE}`,
      maker_address: ALICE, transaction_hash: transactionHashOf(f3), trader_side: 'TAKER', type: 'TAKER',
      maker_orders: [{ order_id: '0xo5', maker_address: CAROL, owner: `key-${CAROL}`, matched_amount: '5', fee_rate_bps: '0', price: '0.7', asset_id: 'Y1', outcome: 'Alpha', side: 'BUY' }],
    });
  });

  t.test('the caller as maker: the same trade, trader_side MAKER', async (t) => {
    const carol = await accountTrades(ctx, { caller: CAROL });
    t.same(ids(carol.data), [f7, f5, f3]);
    t.same(carol.data.map((x) => x.trader_side), ['MAKER', 'MAKER', 'MAKER']);
    const alice = await accountTrades(ctx, { caller: ALICE });
    t.same({ ...carol.data[2], trader_side: 'TAKER' }, alice.data[1], 'identical apart from trader_side');
    const mint = carol.data[0];
    t.match(mint, { side: 'BUY', asset_id: 'Y5', price: '0.7', outcome: 'Up', fee_rate_bps: '100', maker_address: DAVE });
    t.match(mint?.maker_orders, [{ side: 'BUY', asset_id: 'N5', price: '0.3', outcome: 'Down', maker_address: CAROL, matched_amount: '4', fee_rate_bps: '0' }], 'a mint: the maker bought the other outcome');
  });

  t.test('bucket_index counts the fills of one taker command', async (t) => {
    const dave = await accountTrades(ctx, { caller: DAVE });
    t.same(dave.data.map((x) => [x.id, x.bucket_index, x.match_time, x.price]), [
      [f7, 0, String(T0S + 12 * 60 + 2), '0.7'], [f6, 1, String(T0S + 11 * 60 + 3), '0.55'], [f5, 0, String(T0S + 11 * 60 + 3), '0.5'],
    ]);
    t.same(dave.data.map((x) => x.taker_order_id), ['0xo17', '0xo15', '0xo15']);
  });

  t.test('filters: id, taker, maker, market, before, after (strict)', async (t) => {
    t.same(ids((await accountTrades(ctx, { caller: ALICE, taker: ALICE, maker: BOB })).data), [f4, f2, f1]);
    t.same(ids((await accountTrades(ctx, { caller: BOB, taker: ALICE })).data), [f4, f2, f1]);
    t.same(ids((await accountTrades(ctx, { caller: BOB, maker: CAROL })).data), []);
    t.same(ids((await accountTrades(ctx, { caller: ALICE, market: C1 })).data), [f3, f2, f1]);
    t.same(ids((await accountTrades(ctx, { caller: ALICE, id: f2 })).data), [f2]);
    t.same(ids((await accountTrades(ctx, { caller: DAVE, id: f2 })).data), [], 'only the caller\'s own trades');
    const m2 = T0S + 2 * 60 + 2; // fill2's second
    t.same(ids((await accountTrades(ctx, { caller: ALICE, before: String(m2) })).data), [f1]);
    t.same(ids((await accountTrades(ctx, { caller: ALICE, before: String(m2 + 1) })).data), [f2, f1]);
    t.same(ids((await accountTrades(ctx, { caller: ALICE, after: String(m2) })).data), [f4, f3]);
    t.same(ids((await accountTrades(ctx, { caller: ALICE, after: String(m2 - 1), before: m2 + 1 })).data), [f2]);
  });

  t.test('cursors: MA== first, base64 offsets, LTE= last', async (t) => {
    const first = await accountTrades(ctx, { caller: ALICE, limit: 3, nextCursor: FIRST_CURSOR });
    t.same(ids(first.data), [f4, f3, f2]);
    t.same([first.next_cursor, first.count, first.limit], ['Mw==', 3, 3]);
    const second = await accountTrades(ctx, { caller: ALICE, limit: 3, nextCursor: first.next_cursor });
    t.same(ids(second.data), [f1]);
    t.equal(second.next_cursor, END_CURSOR);
    const exact = await accountTrades(ctx, { caller: ALICE, limit: 2, nextCursor: 'Mg==' });
    t.same([ids(exact.data), exact.next_cursor], [[f2, f1], END_CURSOR], 'a page that ends exactly at the end says LTE=');
    const done = await accountTrades(ctx, { caller: ALICE, nextCursor: END_CURSOR });
    t.same([done.data, done.next_cursor, done.count], [[], END_CURSOR, 0]);
    t.equal(cursorFor(100), 'MTAw');
    t.equal(parseCursor('c', 'MTAw'), 100);
    t.equal(parseCursor('c', undefined), 0);
  });

  t.test('bad input is refused with a typed error', async (t) => {
    const bad: [object, RegExp][] = [
      [{ caller: '' }, /^caller:/], [{ nextCursor: 'not a cursor' }, /^next_cursor:/], [{ nextCursor: Buffer.from('-5').toString('base64') }, /^next_cursor:/],
      [{ nextCursor: Buffer.from('1e3').toString('base64') }, /^next_cursor:/], [{ before: 'yesterday' }, /^before:/], [{ after: '-1' }, /^after:/], [{ limit: 0 }, /^limit:/],
    ];
    for (const [params, message] of bad) await t.rejects(accountTrades(ctx, { caller: ALICE, ...params }), { name: 'ReadModelInputError', message }, JSON.stringify(params));
  });

  t.test('builder trades: fills whose taker or maker order carried a builder code; bare array', async (t) => {
    const all = await builderTrades(ctx);
    t.same(ids(all), [f4, f3, f2]);
    t.same(all.map((x) => x.trader_side), ['MAKER', 'MAKER', 'TAKER'], 'the side of the attributed order');
    t.same(ids(await builderTrades(ctx, { builderCode: BUILDER_B })), [f3, f2]);
    t.same(ids(await builderTrades(ctx, { builderCode: BUILDER_C })), [f4], 'dave\'s C order never filled');
    t.same(ids(await builderTrades(ctx, { makerAddress: CAROL })), [f3]);
    t.same(ids(await builderTrades(ctx, { makerAddress: BOB })), [f4, f2]);
    t.same(ids(await builderTrades(ctx, { market: C3 })), [f4]);
    t.same(ids(await builderTrades(ctx, { assetId: 'Y1' })), [f3, f2]);
    t.same(ids(await builderTrades(ctx, { assetId: 'Y5', market: C5 })), []);
    t.same(ids(await builderTrades(ctx, { id: f2 })), [f2]);
    t.same(ids(await builderTrades(ctx, { before: String(T0S + 5 * 60 + 2) })), [f2]);
    t.same(ids(await builderTrades(ctx, { after: String(T0S + 5 * 60 + 2) })), [f4]);
    t.same(ids(await builderTrades(ctx, { limit: 2 })), [f4, f3]);
    t.same(ids(await builderTrades(ctx, { limit: 2, nextCursor: cursorFor(2) })), [f2]);
    t.same(await builderTrades(ctx, { nextCursor: END_CURSOR }), []);
    t.match(all[1], { id: f3, side: 'SELL', maker_address: ALICE, maker_orders: [{ maker_address: CAROL, side: 'BUY' }] });
    await t.rejects(builderTrades(ctx, { before: '1.5' }), { name: 'ReadModelInputError', message: /^before:/ });
  });

  t.test('builder trades, the official client\'s form: a page of BuilderTrade from the attributed side', async (t) => {
    const page = await builderTradesPage(ctx, { builderCode: BUILDER_B });
    t.same([page.data.map((x) => [x.id, x.tradeType]), page.next_cursor, page.limit, page.count], [[[f3, 'MAKER'], [f2, 'TAKER']], END_CURSOR, 100, 2]);
    const seconds = T0S + 5 * 60 + 2;
    const iso = new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
    t.same(page.data[0], {
      id: f3, tradeType: 'MAKER', takerOrderHash: '0xo6', builder: BUILDER_B, market: C1, assetId: 'Y1', side: 'BUY', size: '5', sizeUsdc: '3.5',
      price: '0.7', status: 'CONFIRMED', outcome: 'Alpha', outcomeIndex: 0, owner: `key-${CAROL}`, maker: CAROL, transactionHash: transactionHashOf(f3),
      matchTime: String(seconds), bucketIndex: 0, fee: '0', feeUsdc: '0', builderFee: '0', builderCode: BUILDER_B, err_msg: null, createdAt: iso, updatedAt: iso,
    }, 'carol\'s resting BUY carried the code: her side of the fill');
    t.match(page.data[1], { takerOrderHash: /^0xo\d+$/, side: 'BUY', size: '10', sizeUsdc: '6', price: '0.6', maker: ALICE, owner: `key-${ALICE}` });
    const c = await builderTradesPage(ctx, { builderCode: BUILDER_C });
    t.match(c.data, [{ id: f4, tradeType: 'MAKER', side: 'SELL', maker: BOB, size: '4', sizeUsdc: '1', price: '0.25' }]);
    const first = await builderTradesPage(ctx, { limit: 2 });
    t.same([first.data.map((x) => x.id), first.next_cursor, first.count], [[f4, f3], cursorFor(2), 2], 'no code: every attributed trade, paged');
    const second = await builderTradesPage(ctx, { limit: 2, nextCursor: first.next_cursor });
    t.same([second.data.map((x) => x.id), second.next_cursor], [[f2], END_CURSOR]);
    t.same(await builderTradesPage(ctx, { builderCode: BUILDER_B, nextCursor: END_CURSOR }), { data: [], next_cursor: END_CURSOR, limit: 100, count: 0 });
    await t.rejects(builderTradesPage(ctx, { after: 'x' }), { name: 'ReadModelInputError', message: /^after:/ });
  });
});
