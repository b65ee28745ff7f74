// Given/when/then tests of matching: the three kinds of match, price-time priority, the resting order's
// price, partial fills and the mirrored book. Each runs with the fast book and with the reference book.

import t from 'tap';
import { BOOKS, CID, NO, Scenario, YES, buy, deposit, listMarket, ofType, sell, split, types, units } from './scenario.js';

for (const [name, books] of BOOKS) {
  t.test(`${name}: normal match prints at the resting price and the taker keeps the improvement`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('alice', 100), deposit('bob', 100), split('bob', 20));
    s.given(sell('s1', 'bob', YES, 10, 0.4));
    const events = s.when(buy('b1', 'alice', YES, 10, 0.45));
    t.same(types(events), ['OrderAccepted', 'TradeExecuted']);
    const [trade] = ofType(events, 'TradeExecuted');
    t.match(trade, {
      kind: 'normal', size: units(10), price: 400_000,
      taker: { orderId: 'b1', side: 'BUY', price: 400_000, amount: units(4), remaining: 0 },
      maker: { orderId: 's1', side: 'SELL', price: 400_000, amount: units(4), remaining: 0 },
    });
    t.equal(s.free('alice'), units(96), 'alice paid 4, not 4.5');
    t.equal(s.reserved('alice'), 0);
    t.equal(s.tokens('alice', YES), units(10));
    t.equal(s.free('bob'), units(80 + 4));
    t.equal(s.tokens('bob', YES), units(10));
    t.equal(s.engine.book(YES)?.bids.length, 0);
    t.equal(s.engine.book(YES)?.asks.length, 0);
  });

  t.test(`${name}: mint: a buyer of each outcome create a full set`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('alice', 100), deposit('bob', 100));
    s.given(buy('no1', 'bob', NO, 10, 0.65));
    const events = s.when(buy('yes1', 'alice', YES, 10, 0.4));
    const [trade] = ofType(events, 'TradeExecuted');
    // bob's NO bid at 0.65 rests as a YES ask at 0.35; alice's YES bid at 0.40 crosses it and pays 0.35.
    t.match(trade, { kind: 'mint', price: 350_000, taker: { price: 350_000, amount: units(3.5) }, maker: { price: 650_000, amount: units(6.5) } });
    t.equal(s.free('alice'), units(96.5));
    t.equal(s.free('bob'), units(93.5));
    t.equal(s.tokens('alice', YES), units(10));
    t.equal(s.tokens('bob', NO), units(10));
    t.equal(s.engine.market(CID)?.locked, units(10), 'ten full sets back ten units of collateral');
  });

  t.test(`${name}: merge: a seller of each outcome burn a full set`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('alice', 100), deposit('bob', 100), split('alice', 10), split('bob', 10));
    s.given(sell('ys', 'alice', YES, 10, 0.3));
    const events = s.when(sell('ns', 'bob', NO, 10, 0.6));
    const [trade] = ofType(events, 'TradeExecuted');
    // alice's YES ask at 0.30 and bob's NO ask at 0.60 (a YES bid at 0.40) cross; the print is alice's 0.30.
    t.match(trade, { kind: 'merge', price: 300_000, taker: { side: 'SELL', price: 700_000, amount: units(7) }, maker: { side: 'SELL', price: 300_000, amount: units(3) } });
    t.equal(s.free('alice'), units(90 + 3));
    t.equal(s.free('bob'), units(90 + 7));
    t.equal(s.tokens('alice', YES), 0);
    t.equal(s.tokens('bob', NO), 0);
    t.equal(s.engine.market(CID)?.locked, units(10));
  });

  t.test(`${name}: a normal match on the second outcome`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('alice', 100), deposit('bob', 100), split('bob', 10));
    s.given(sell('ns', 'bob', NO, 10, 0.7));
    const [trade] = ofType(s.when(buy('nb', 'alice', NO, 10, 0.75)), 'TradeExecuted');
    t.match(trade, { kind: 'normal', price: 300_000, taker: { tokenId: NO, price: 700_000, amount: units(7) }, maker: { tokenId: NO, price: 700_000 } });
    t.equal(s.tokens('alice', NO), units(10));
    t.equal(s.free('alice'), units(93));
  });

  t.test(`${name}: price-time priority`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100), deposit('b', 100), deposit('c', 100), deposit('taker', 100));
    s.given(split('a', 20), split('b', 20), split('c', 20));
    s.given(sell('a1', 'a', YES, 10, 0.5), sell('b1', 'b', YES, 10, 0.49), sell('c1', 'c', YES, 10, 0.49));
    const trades = ofType(s.when(buy('t', 'taker', YES, 25, 0.5)), 'TradeExecuted');
    t.same(trades.map((x) => [x.maker.orderId, x.size, x.price]), [
      ['b1', units(10), 490_000],
      ['c1', units(10), 490_000],
      ['a1', units(5), 500_000],
    ], 'best price first, then the earlier order at that price');
    t.same(s.engine.book(YES)?.asks, [{ price: 500_000, size: units(5), orders: 1 }]);
  });

  t.test(`${name}: a partly filled taker rests its remainder; a partly filled maker keeps its place`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100), deposit('b', 100), split('a', 50));
    s.given(sell('s', 'a', YES, 30, 0.6));
    s.when(buy('b1', 'b', YES, 10, 0.6));
    t.same(s.engine.book(YES)?.asks, [{ price: 600_000, size: units(20), orders: 1 }]);
    s.when(buy('b2', 'b', YES, 30, 0.6));
    t.same(s.engine.book(YES)?.asks, []);
    t.same(s.engine.book(YES)?.bids, [{ price: 600_000, size: units(10), orders: 1 }]);
    t.equal(s.reserved('b'), units(6), 'the resting 10 at 0.60 hold 6 USDC');
    t.equal(s.engine.order('b2')?.remaining, units(10));
  });

  t.test(`${name}: the book of either token shows the same liquidity, mirrored`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100), split('a', 50));
    s.given(buy('yb', 'a', YES, 10, 0.4), sell('ys', 'a', YES, 12, 0.45), buy('nb', 'a', NO, 7, 0.5), sell('ns', 'a', NO, 9, 0.65));
    const yes = s.engine.book(YES);
    const no = s.engine.book(NO);
    // YES bids: 0.40 (yes buy) and 0.35 (NO sell at 0.65); YES asks: 0.45 (yes sell) and 0.50 (NO buy at 0.50).
    t.same(yes?.bids, [{ price: 400_000, size: units(10), orders: 1 }, { price: 350_000, size: units(9), orders: 1 }]);
    t.same(yes?.asks, [{ price: 450_000, size: units(12), orders: 1 }, { price: 500_000, size: units(7), orders: 1 }]);
    t.same(no?.bids, [{ price: 550_000, size: units(12), orders: 1 }, { price: 500_000, size: units(7), orders: 1 }]);
    t.same(no?.asks, [{ price: 600_000, size: units(10), orders: 1 }, { price: 650_000, size: units(9), orders: 1 }]);
  });

  t.test(`${name}: a sweep across kinds: one taker meets a seller and a complementary buyer`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100), deposit('b', 100), deposit('t', 100), split('a', 10));
    s.given(sell('ys', 'a', YES, 5, 0.42), buy('nb', 'b', NO, 5, 0.57));
    const trades = ofType(s.when(buy('tb', 't', YES, 10, 0.45)), 'TradeExecuted');
    t.same(trades.map((x) => [x.kind, x.maker.orderId, x.price]), [['normal', 'ys', 420_000], ['mint', 'nb', 430_000]]);
    t.equal(s.free('t'), units(100 - 2.1 - 2.15));
    t.equal(s.engine.market(CID)?.locked, units(15));
  });

  t.test(`${name}: self-trades are allowed and keep every invariant`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100), split('a', 10));
    s.given(sell('s', 'a', YES, 10, 0.5));
    const trades = ofType(s.when(buy('b', 'a', YES, 10, 0.5)), 'TradeExecuted');
    t.equal(trades.length, 1);
    t.equal(s.free('a'), units(90));
    t.equal(s.tokens('a', YES), units(10));
  });
}

t.test('the builder code of a signed order rides on OrderAccepted; without one the field is absent', async (t) => {
  const s = new Scenario(t).given(listMarket(), deposit('a', 100));
  const withBuilder = s.when({ ...buy('b1', 'a', YES, 10, 0.4), builder: '0x' + 'ab'.repeat(32) });
  t.match(withBuilder[0], { type: 'OrderAccepted', builder: '0x' + 'ab'.repeat(32) });
  const without = s.when(buy('b2', 'a', YES, 10, 0.4));
  t.notOk(JSON.stringify(without[0]).includes('builder'), 'no builder key in the encoded event');
});
