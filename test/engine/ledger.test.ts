// Given/when/then tests of the ledger: deposits and withdrawals, split, merge, fees on both sides,
// resolution and redemption, cancels and the reservations they release, and trading-parameter changes.

import t from 'tap';
import { CID, CID2, NO, NO2, Scenario, T0, YES, YES2, buy, cancel, deposit, listMarket, ofType, sell, split, types, units } from './scenario.js';
import { DEFAULT_ENGINE_CONFIG } from '../../engine/index.js';

const FEES = DEFAULT_ENGINE_CONFIG.feeAccount;

t.test('deposit and withdraw move free collateral; reserved collateral cannot be withdrawn', async (t) => {
  const s = new Scenario(t).given(deposit('a', 50));
  t.equal(s.free('a'), units(50));
  s.given(listMarket(), buy('b', 'a', YES, 100, 0.4));
  t.equal(s.free('a'), units(10));
  t.equal(s.reserved('a'), units(40));
  t.match(s.when({ type: 'Withdraw', time: T0, account: 'a', amount: units(11) }), [{ type: 'CommandRejected', code: 'NOT_ENOUGH_BALANCE' }]);
  t.match(s.when({ type: 'Withdraw', time: T0, account: 'a', amount: units(10) }), [{ type: 'CollateralWithdrawn', amount: units(10) }]);
  t.equal(s.free('a'), 0);
});

t.test('split and merge full sets', async (t) => {
  const s = new Scenario(t).given(listMarket(), deposit('a', 50));
  t.match(s.when(split('a', 30)), [{ type: 'PositionSplit', amount: units(30) }]);
  t.equal(s.free('a'), units(20));
  t.equal(s.tokens('a', YES), units(30));
  t.equal(s.tokens('a', NO), units(30));
  t.equal(s.engine.market(CID)?.locked, units(30));
  t.match(s.when({ type: 'Merge', time: T0, account: 'a', conditionId: CID, amount: units(12.5) }), [{ type: 'PositionsMerged' }]);
  t.equal(s.free('a'), units(32.5));
  t.equal(s.tokens('a', YES), units(17.5));
  t.equal(s.engine.market(CID)?.locked, units(17.5));
  s.given(sell('s', 'a', YES, 10, 0.5));
  t.match(s.when({ type: 'Merge', time: T0, account: 'a', conditionId: CID, amount: units(10) }), [{ code: 'NOT_ENOUGH_BALANCE' }], 'tokens held by an open SELL cannot be merged');
});

t.test('fees: a buyer pays in the tokens it receives, a seller in collateral, each at its role rate', async (t) => {
  const s = new Scenario(t).given(listMarket({ makerFeeBps: 20, takerFeeBps: 150 }), deposit('a', 100), deposit('b', 100), split('a', 20));
  s.given(sell('maker', 'a', YES, 10, 0.6));
  const [trade] = ofType(s.when(buy('taker', 'b', YES, 10, 0.6)), 'TradeExecuted');
  // taker BUY 10 at 1.5%: 0.15 YES; maker SELL of 6 USDC at 0.2%: 0.012 USDC.
  t.match(trade, { taker: { fee: units(0.15), feeBps: 150 }, maker: { fee: units(0.012), feeBps: 20 } });
  t.equal(s.tokens('b', YES), units(9.85));
  t.equal(s.free('b'), units(94));
  t.equal(s.free('a'), units(80 + 6 - 0.012));
  t.equal(s.tokens(FEES, YES), units(0.15));
  t.equal(s.free(FEES), units(0.012));
});

t.test('a seller fee rounds down to the base unit', async (t) => {
  const s = new Scenario(t).given(listMarket({ takerFeeBps: 7 }), deposit('a', 100), deposit('b', 100), split('b', 20));
  s.given(buy('m', 'a', YES, 5.37, 0.33));
  const [trade] = ofType(s.when(sell('tk', 'b', YES, 5.37, 0.33)), 'TradeExecuted');
  // 5.37 × 0.33 = 1.7721 USDC; 0.07% of it is 0.00124047, floored to 0.00124.
  t.match(trade, { taker: { amount: 1_772_100, fee: 1_240 } });
});

t.test('resolution cancels open orders; winners redeem one unit each, losers nothing', async (t) => {
  const s = new Scenario(t).given(listMarket(), listMarket({ conditionId: CID2, tokenIds: [YES2, NO2] }), deposit('a', 100), deposit('b', 100));
  s.given(split('a', 10), buy('ab', 'a', YES, 10, 0.4), sell('as', 'a', NO, 5, 0.7), buy('other', 'b', YES2, 10, 0.5));
  s.given(buy('bn', 'b', NO, 10, 0.65)); // mints 10 sets with a's YES bid: a holds 20 YES, b 10 NO
  t.equal(s.tokens('a', YES), units(20));
  const events = s.when({ type: 'ResolveMarket', time: T0, conditionId: CID, winningOutcome: 0 });
  t.same(types(events), ['OrderCancelled', 'MarketStatusChanged', 'MarketResolved']);
  t.match(events[0], { orderId: 'as', reason: 'market_resolved' });
  t.ok(s.engine.order('other'), 'the other market is untouched');
  t.equal(s.reservedTokens('a', NO), 0);
  const payout = ofType(s.when({ type: 'Redeem', time: T0, account: 'a', conditionId: CID }), 'PositionRedeemed')[0];
  t.match(payout, { payout: units(20), burned: [units(20), units(10)] });
  const loser = ofType(s.when({ type: 'Redeem', time: T0, account: 'b', conditionId: CID }), 'PositionRedeemed')[0];
  t.match(loser, { payout: 0, burned: [0, units(10)] });
  t.equal(s.engine.market(CID)?.locked, 0, 'all locked collateral was paid out');
  t.match(s.when({ type: 'Redeem', time: T0, account: 'b', conditionId: CID }), [{ code: 'NOTHING_TO_REDEEM' }]);
  t.match(s.when(split('a', 1)), [{ code: 'MARKET_CLOSED' }]);
});

t.test('cancels release reservations: one, a list, all, by market, by token', async (t) => {
  const s = new Scenario(t).given(listMarket(), listMarket({ conditionId: CID2, tokenIds: [YES2, NO2] }), deposit('a', 1000), split('a', 100));
  s.given(
    buy('o1', 'a', YES, 10, 0.1), buy('o2', 'a', NO, 10, 0.2), sell('o3', 'a', YES, 10, 0.9),
    buy('o4', 'a', YES2, 10, 0.3), buy('o5', 'a', NO2, 10, 0.4), buy('o6', 'a', YES2, 10, 0.2),
  );
  t.equal(s.reserved('a'), units(1 + 2 + 3 + 4 + 2));
  t.match(s.when(cancel('o1', 'a')), [{ type: 'OrderCancelled', orderId: 'o1', remaining: units(10), reason: 'user' }]);
  t.equal(s.reserved('a'), units(11));
  const listed = s.when({ type: 'CancelOrders', time: T0, account: 'a', orderIds: ['o2', 'o2', 'missing'] });
  t.same(types(listed), ['OrderCancelled', 'CancelRejected'], 'duplicates in the list are ignored');
  const byToken = s.when({ type: 'CancelMarketOrders', time: T0, account: 'a', tokenId: YES2 });
  t.same(ofType(byToken, 'OrderCancelled').map((e) => e.orderId), ['o4', 'o6']);
  const byMarket = s.when({ type: 'CancelMarketOrders', time: T0, account: 'a', conditionId: CID });
  t.same(ofType(byMarket, 'OrderCancelled').map((e) => e.orderId), ['o3']);
  t.equal(s.reservedTokens('a', YES), 0);
  const all = s.when({ type: 'CancelAll', time: T0, account: 'a' });
  t.same(ofType(all, 'OrderCancelled').map((e) => e.orderId), ['o5']);
  t.equal(s.reserved('a'), 0);
  t.equal(s.free('a'), units(900));
});

t.test('changing the tick: resting orders keep their prices, new orders follow the new tick', async (t) => {
  const s = new Scenario(t).given(listMarket(), deposit('a', 100), deposit('b', 100), split('b', 50));
  s.given(buy('old', 'a', YES, 10, 0.97));
  const [updated] = ofType(s.when({ type: 'UpdateMarket', time: T0, conditionId: CID, tickSize: 1_000 }), 'MarketUpdated');
  t.match(updated, { tickSize: 1_000, previous: { tickSize: 10_000 } });
  s.given(buy('fine', 'a', YES, 10, 0.975));
  s.given({ type: 'UpdateMarket', time: T0, conditionId: CID, tickSize: 10_000 });
  t.match(s.when(buy('fine2', 'a', YES, 10, 0.965)), [{ code: 'TICK_SIZE' }]);
  const trades = ofType(s.when(sell('hit', 'b', YES, 20, 0.96)), 'TradeExecuted');
  t.same(trades.map((x) => x.price), [975_000, 970_000], 'the order on the old finer tick still trades');
});

t.test('pause and resume', async (t) => {
  const s = new Scenario(t).given(listMarket(), deposit('a', 100));
  t.match(s.when({ type: 'PauseMarket', time: T0, conditionId: CID }), [{ type: 'MarketStatusChanged', from: 'active', to: 'paused' }]);
  t.match(s.when(buy('x', 'a', YES, 10, 0.5)), [{ code: 'MARKET_NOT_READY' }]);
  t.match(s.when({ type: 'ResumeMarket', time: T0, conditionId: CID }), [{ type: 'MarketStatusChanged', from: 'paused', to: 'active' }]);
  t.match(s.when(buy('x', 'a', YES, 10, 0.5)), [{ type: 'OrderAccepted' }]);
});

t.test('finished order ids are refused until their window passes, then forgotten', async (t) => {
  const s = new Scenario(t).given(listMarket(), deposit('a', 100));
  s.given(buy('w', 'a', YES, 10, 0.5, { dedupeUntil: T0 + 60_000 }), cancel('w', 'a'));
  t.match(s.when(buy('w', 'a', YES, 10, 0.5, { time: T0 + 59_999 })), [{ code: 'DUPLICATED' }]);
  t.equal(s.engine.state.done.size(), 1);
  s.when({ type: 'AdvanceTime', time: T0 + 60_000 });
  t.equal(s.engine.state.done.size(), 0, 'forgotten: the API refuses the signed order by its timestamp from here on');
});

t.test('time never goes backwards', async (t) => {
  const s = new Scenario(t).given(deposit('a', 1));
  s.when({ type: 'AdvanceTime', time: T0 + 5000 });
  const [event] = s.when(deposit('a', 1, T0));
  t.equal(event?.time, T0 + 5000);
});
