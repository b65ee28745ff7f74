// Given/when/then tests of the order types: GTC, GTD (expiry as time advances), FOK, FAK, post-only, and
// marketable orders stated as a budget. Each runs with the fast book and with the reference book.

import t from 'tap';
import { BOOKS, NO, Scenario, T0, YES, buy, deposit, listMarket, ofType, order, sell, split, types, units } from './scenario.js';

const SEC = 1000;

for (const [name, books] of BOOKS) {
  t.test(`${name}: GTC rests until cancelled`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100));
    t.same(types(s.when(buy('g', 'a', YES, 10, 0.3))), ['OrderAccepted']);
    s.when({ type: 'AdvanceTime', time: T0 + 365 * 86_400 * SEC });
    t.ok(s.engine.order('g'), 'still open a year later');
  });

  t.test(`${name}: GTD leaves the book at its expiration minus the security margin, deterministically`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100), deposit('b', 100));
    const expiration = T0 / SEC + 600; // ten minutes from now; leaves at nine
    s.given(
      buy('g1', 'a', YES, 10, 0.3, { orderType: 'GTD', expiration }),
      buy('g2', 'b', YES, 10, 0.3, { orderType: 'GTD', expiration }),
      buy('g3', 'a', YES, 10, 0.2, { orderType: 'GTD', expiration: expiration + 60 }),
    );
    t.equal(s.reserved('a'), units(5));
    t.same(s.when({ type: 'AdvanceTime', time: T0 + 539 * SEC }), [], 'nothing is due yet');
    const expired = ofType(s.when({ type: 'AdvanceTime', time: T0 + 540 * SEC }), 'OrderExpired');
    t.same(expired.map((e) => e.orderId), ['g1', 'g2'], 'due orders expire in priority order');
    t.equal(s.reserved('a'), units(2), 'the reservation of the expired order is released');
    t.equal(s.free('a'), units(98));
    // Any command moves time: the next order's arrival expires g3 before it is handled.
    const events = s.when(buy('late', 'b', YES, 10, 0.1, { time: T0 + 601 * SEC }));
    t.same(types(events), ['OrderExpired', 'OrderAccepted']);
  });

  t.test(`${name}: GTD expiration checks`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100));
    const tooSoon = ofType(s.when(buy('x', 'a', YES, 10, 0.3, { orderType: 'GTD', expiration: T0 / SEC + 60 })), 'OrderRejected');
    t.match(tooSoon, [{ code: 'INVALID_EXPIRATION', message: 'invalid expiration' }]);
    t.match(ofType(s.when(buy('y', 'a', YES, 10, 0.3, { orderType: 'GTD', expiration: 0 })), 'OrderRejected'), [{ code: 'INVALID_EXPIRATION' }]);
    t.match(ofType(s.when(buy('z', 'a', YES, 10, 0.3, { expiration: T0 / SEC + 3600 })), 'OrderRejected'), [{ code: 'INVALID_EXPIRATION' }], 'GTC carries no expiration');
  });

  t.test(`${name}: FOK fills completely or not at all`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100), deposit('b', 100), split('a', 30));
    s.given(sell('s1', 'a', YES, 10, 0.5), sell('s2', 'a', YES, 10, 0.55));
    const before = s.engine.stateHash();
    const killed = s.when(buy('f1', 'b', YES, 25, 0.55, { orderType: 'FOK' }));
    t.match(killed, [{ type: 'OrderRejected', code: 'FOK_NOT_FILLED', message: "order couldn't be fully filled. FOK orders are fully filled or killed." }]);
    t.not(s.engine.stateHash(), before, 'the rejection is an event, so the sequence moved');
    t.equal(s.free('b'), units(100), 'nothing was reserved or traded');
    const filled = s.when(buy('f2', 'b', YES, 20, 0.55, { orderType: 'FOK' }));
    t.same(types(filled), ['OrderAccepted', 'TradeExecuted', 'TradeExecuted']);
    t.equal(s.free('b'), units(100 - 5 - 5.5));
    t.notOk(s.engine.order('f2'), 'a FOK never rests');
  });

  t.test(`${name}: FAK fills what it can and cancels the rest`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100), deposit('b', 100), split('a', 30));
    t.match(s.when(buy('k0', 'b', YES, 5, 0.5, { orderType: 'FAK' })), [{ type: 'OrderRejected', code: 'FAK_NO_MATCH' }]);
    s.given(sell('s1', 'a', YES, 10, 0.5));
    const events = s.when(buy('k1', 'b', YES, 25, 0.6, { orderType: 'FAK' }));
    t.same(types(events), ['OrderAccepted', 'TradeExecuted', 'OrderCancelled']);
    t.match(ofType(events, 'OrderCancelled')[0], { orderId: 'k1', remaining: units(15), reason: 'unfilled' });
    t.equal(s.free('b'), units(95));
    t.equal(s.reserved('b'), 0);
  });

  t.test(`${name}: post-only`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100), deposit('b', 100), split('a', 30));
    s.given(sell('s1', 'a', YES, 10, 0.5));
    t.same(types(s.when(buy('p1', 'b', YES, 10, 0.49, { postOnly: true }))), ['OrderAccepted'], 'a post-only order that does not cross rests');
    t.match(s.when(buy('p2', 'b', YES, 10, 0.5, { postOnly: true })), [{ type: 'OrderRejected', code: 'POST_ONLY_CROSSES', message: 'invalid post-only order: order crosses book' }]);
    // A NO bid at 0.51 is a YES ask at 0.49: it crosses the resting YES bid at 0.49.
    t.match(s.when(buy('p3', 'b', NO, 10, 0.51, { postOnly: true })), [{ type: 'OrderRejected', code: 'POST_ONLY_CROSSES' }]);
    t.match(s.when(buy('p4', 'b', YES, 10, 0.4, { postOnly: true, orderType: 'FOK' })), [{ type: 'OrderRejected', code: 'POST_ONLY_TYPE' }]);
    t.match(s.when(buy('p5', 'b', YES, 10, 0.4, { postOnly: true, orderType: 'GTD', expiration: T0 / SEC + 3600 })), [{ type: 'OrderAccepted' }]);
  });

  t.test(`${name}: a marketable BUY states a budget; it fills whole lots up to its worst price and keeps the improvement`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 200), deposit('b', 100), split('a', 110));
    s.given(sell('s1', 'a', YES, 10, 0.3), sell('s2', 'a', YES, 100, 0.33));
    // The SDK's market buy of $10 at worst price 0.33: makerAmount 10, takerAmount 10 / 0.33 = 30.3030.
    const events = s.when(order('BUY', 'm1', 'b', YES, units(10), 30_303_000, { orderType: 'FOK' }));
    const accepted = ofType(events, 'OrderAccepted')[0];
    t.match(accepted, { price: 330_000, size: units(30.3) });
    const trades = ofType(events, 'TradeExecuted');
    t.same(trades.map((x) => [x.size, x.price]), [[units(10), 300_000], [units(20.3), 330_000]]);
    t.equal(s.free('b'), units(100 - 3 - 6.699), 'paid 9.699, less than the 10 budget');
    t.equal(s.tokens('b', YES), units(30.3));
  });

  t.test(`${name}: a marketable SELL fills down to its worst price`, async (t) => {
    const s = new Scenario(t, books).given(listMarket(), deposit('a', 100), deposit('b', 100), split('b', 20));
    s.given(buy('b1', 'a', YES, 5, 0.6), buy('b2', 'a', YES, 5, 0.5), buy('b3', 'a', YES, 5, 0.4));
    // Sell 12 shares for at least 5.4 USDC in all: worst price 0.45.
    const events = s.when(order('SELL', 'ms', 'b', YES, units(12), units(5.4), { orderType: 'FAK' }));
    t.same(ofType(events, 'TradeExecuted').map((x) => [x.size, x.price]), [[units(5), 600_000], [units(5), 500_000]]);
    t.match(ofType(events, 'OrderCancelled')[0], { remaining: units(2), reason: 'unfilled' });
    t.equal(s.tokens('b', YES), units(10));
  });
}
