// Given/when/then tests of neg-risk events: listing questions into an event, converting NO positions as the
// neg-risk adapter's convertPositions does, one winner per event, redemption after conversions, and the
// refusals that change nothing. Every step is followed by checkInvariants() (Scenario), so the full-set and
// cash invariants with the burned NO tokens and what the event paid ahead are checked throughout.

import t, { type Test } from 'tap';
import { Engine, exportSnapshot, restoreSnapshot, type Command, type EngineSnapshot } from '../../engine/index.js';
import { Scenario, T0, deposit, listMarket, ofType, split, types, units, buy, sell } from './scenario.js';

const EVENT = '0xe0e0';
/** Question i of EVENT: condition id `0xq<i>`, tokens `<i>1` (YES) and `<i>2` (NO). */
const Q = [0, 1, 2, 3].map((i) => ({ conditionId: `0xq${i}`, yes: `${i + 1}1`, no: `${i + 1}2` }));

function question(i: number, over: Partial<Extract<Command, { type: 'ListMarket' }>> = {}): Command {
  const q = Q[i] as (typeof Q)[number];
  return listMarket({ conditionId: q.conditionId, tokenIds: [q.yes, q.no], negRisk: true, negRiskMarketId: EVENT, questionIndex: i, ...over });
}

function convert(account: string, indexSet: number | string, amount: number, over: Partial<Extract<Command, { type: 'ConvertPositions' }>> = {}): Command {
  return { type: 'ConvertPositions', time: T0, account, negRiskMarketId: EVENT, indexSet: String(indexSet), amount: units(amount), ...over };
}

/** An event of three questions; `a` holds 10 full sets of each. */
function threeQuestions(t: Test): Scenario {
  return new Scenario(t).given(question(0), question(1), question(2), deposit('a', 100), split('a', 10, '0xq0'), split('a', 10, '0xq1'), split('a', 10, '0xq2'));
}

t.test('a market listed with an event id and index joins the event; MarketListed says so', async (t) => {
  const s = new Scenario(t);
  const [listed] = s.when(question(1));
  t.match(listed, { type: 'MarketListed', negRiskMarketId: EVENT, questionIndex: 1, negRisk: true });
  s.given(question(0));
  t.same(s.engine.negRiskEvent(EVENT)?.questions.map((m) => m.questionIndex), [0, 1], 'questions in index order');
  const [plain] = s.when(listMarket());
  t.notOk('negRiskMarketId' in plain!, 'a market on its own has no event fields');
});

t.test('listing refusals: a taken index, a non-negRisk question, half the fields, a bad index', async (t) => {
  const s = new Scenario(t).given(question(0));
  t.match(s.when(question(0, { conditionId: '0xother', tokenIds: ['91', '92'] })), [{ code: 'QUESTION_INDEX_TAKEN', message: `question 0 of neg risk market ${EVENT} is already market 0xq0` }]);
  t.match(s.when(question(1, { negRisk: false })), [{ code: 'INVALID_MARKET_PARAMS' }]);
  t.match(s.when(question(1, { questionIndex: undefined })), [{ code: 'INVALID_MARKET_PARAMS' }]);
  t.match(s.when(question(1, { questionIndex: 256 })), [{ code: 'INVALID_MARKET_PARAMS' }]);
  t.match(s.when(question(1, { questionIndex: 1.5 })), [{ code: 'INVALID_MARKET_PARAMS' }]);
  t.equal(s.engine.market('0xq1'), undefined, 'nothing listed');
  t.match(s.when({ type: 'UpdateMarket', time: T0, conditionId: '0xq0', negRisk: false }), [{ code: 'INVALID_MARKET_PARAMS', message: /stays negRisk/ }]);
});

t.test('converting NO of k questions gives YES of the others and (k − 1) × amount', async (t) => {
  const s = threeQuestions(t);
  const before = s.free('a');
  const events = s.when(convert('a', 0b011, 4));
  t.same(types(events), ['PositionsConverted']);
  t.match(events[0], { account: 'a', negRiskMarketId: EVENT, indexSet: '3', amount: units(4), payout: units(4), noTokenIds: ['12', '22'], yesTokenIds: ['31'] });
  t.equal(s.free('a'), before + units(4), 'k − 1 = 1 unit per converted amount');
  t.equal(s.tokens('a', '12'), units(6));
  t.equal(s.tokens('a', '22'), units(6));
  t.equal(s.tokens('a', '31'), units(14));
  t.equal(s.tokens('a', '11'), units(10), 'YES of a converted question unchanged');
  t.equal(s.engine.market('0xq2')?.locked, units(14), 'the YES given out is a full set split by the event');
  t.equal(s.engine.negRiskEvent(EVENT)?.unbacked, units(8), 'paid ahead: (questions − 1) × amount');
});

t.test('converting one NO gives YES of every other question and no collateral; all NO give only collateral', async (t) => {
  const s = threeQuestions(t);
  const before = s.free('a');
  t.match(s.when(convert('a', 0b100, 1)), [{ payout: 0, noTokenIds: ['32'], yesTokenIds: ['11', '21'] }]);
  t.equal(s.free('a'), before);
  t.match(s.when(convert('a', 0b111, 2)), [{ payout: units(4), noTokenIds: ['12', '22', '32'], yesTokenIds: [] }]);
  t.equal(s.free('a'), before + units(4));
});

t.test('refusals change nothing', async (t) => {
  const s = threeQuestions(t).given(listMarket({ conditionId: '0xsolo', tokenIds: ['71', '72'] }));
  const hash = (): string => JSON.stringify(exportSnapshot(s.engine), (k, v: unknown) => (k === 'seq' || k === 'now' ? undefined : v));
  const start = hash();
  const cases: [Command, string, RegExp?][] = [
    [convert('a', 1, 1, { negRiskMarketId: '0xnothere' }), 'NEG_RISK_NOT_FOUND', /0xnothere is not the id of a neg-risk event/],
    [convert('a', 1, 1, { negRiskMarketId: '0xsolo' }), 'NEG_RISK_NOT_FOUND'],
    [convert('a', 1, 1, { negRiskMarketId: '0xq0' }), 'NEG_RISK_NOT_FOUND'],
    [convert('a', 0, 1), 'INVALID_INDEX_SET', /empty/],
    [convert('a', 0b1000, 1), 'INVALID_INDEX_SET', /question 3 is not a market of neg risk market/],
    [convert('a', '03', 1), 'INVALID_INDEX_SET'],
    [convert('a', '-1', 1), 'INVALID_INDEX_SET'],
    [convert('a', (1n << 256n).toString(), 1), 'INVALID_INDEX_SET'],
    [convert('a', 3, 0), 'INVALID_AMOUNT'],
    [convert('a', 3, 11), 'NOT_ENOUGH_BALANCE'],
    [convert('b', 3, 1), 'NOT_ENOUGH_BALANCE'],
    [convert('', 3, 1), 'INVALID_COMMAND'],
  ];
  for (const [cmd, code, message] of cases) {
    const events = s.when(cmd);
    t.match(events, [{ type: 'CommandRejected', command: 'ConvertPositions', code, ...(message ? { message } : {}) }], `${code}: ${JSON.stringify(cmd)}`);
  }
  t.equal(hash(), start, 'balances, markets and events as before');
  // NO held by an open SELL is not free.
  s.given(sell('ask', 'a', '12', 8, 0.6));
  t.match(s.when(convert('a', 1, 3)), [{ code: 'NOT_ENOUGH_BALANCE' }]);
});

t.test('an event of one question has nothing to convert', async (t) => {
  const s = new Scenario(t).given(question(0), deposit('a', 10), split('a', 5, '0xq0'));
  t.match(s.when(convert('a', 1, 1)), [{ code: 'NO_CONVERTIBLE_POSITIONS', message: `no convertible positions: neg risk market ${EVENT} has fewer than two questions` }]);
});

t.test('one winner: a second YES is refused; the event resolves by its winner; redemption pays accordingly', async (t) => {
  const s = threeQuestions(t).given(deposit('b', 100), split('b', 10, '0xq1'), convert('a', 0b011, 4));
  t.match(s.when({ type: 'ResolveMarket', time: T0, conditionId: '0xq2', winningOutcome: 0 }), [{ type: 'MarketStatusChanged' }, { type: 'MarketResolved', winningOutcome: 0 }]);
  t.match(s.when({ type: 'ResolveMarket', time: T0, conditionId: '0xq0', winningOutcome: 0 }), [{ code: 'NEG_RISK_DETERMINED', message: /already has its winner, market 0xq2/ }]);
  t.match(s.when({ type: 'ResolveNegRiskEvent', time: T0, negRiskMarketId: EVENT, winningConditionId: '0xq0' }), [{ code: 'NEG_RISK_DETERMINED' }]);
  t.match(s.when(convert('a', 3, 1)), [{ code: 'NEG_RISK_RESOLVED' }], 'no conversion once a question resolved');
  t.match(s.when(question(3)), [{ code: 'NEG_RISK_DETERMINED' }], 'no question joins a decided event');
  // Completing the event by its winner resolves the rest NO.
  const done = s.when({ type: 'ResolveNegRiskEvent', time: T0, negRiskMarketId: EVENT, winningConditionId: '0xq2' });
  t.same(ofType(done, 'MarketResolved').map((e) => [e.conditionId, e.winningOutcome]), [['0xq0', 1], ['0xq1', 1]]);
  t.match(s.when({ type: 'ResolveNegRiskEvent', time: T0, negRiskMarketId: EVENT, winningConditionId: '0xq2' }), [{ code: 'INVALID_TRANSITION' }]);
  // a holds 10 YES + 6 NO of q0 and q1, 14 YES + 10 NO of q2: q2's YES and the NO of q0 and q1 win.
  const free = s.free('a');
  const paid = ['0xq0', '0xq1', '0xq2'].map((c) => ofType(s.when({ type: 'Redeem', time: T0, account: 'a', conditionId: c }), 'PositionRedeemed')[0]?.payout);
  t.same(paid, [units(6), units(6), units(14)]);
  t.equal(s.free('a'), free + units(26));
  t.equal(ofType(s.when({ type: 'Redeem', time: T0, account: 'b', conditionId: '0xq1' }), 'PositionRedeemed')[0]?.payout, units(10));
  // What is left locked backs only the burned NO tokens, and equals what the event paid ahead.
  const locked = ['0xq0', '0xq1', '0xq2'].reduce((n, c) => n + (s.engine.market(c)?.locked ?? 0), 0);
  t.equal(locked, s.engine.negRiskEvent(EVENT)?.unbacked, 'collateral left in the event = paid ahead');
});

t.test('ResolveNegRiskEvent resolves the winner YES and every other question NO, in question order, cancelling orders', async (t) => {
  const s = threeQuestions(t).given(buy('bid', 'a', '21', 5, 0.3));
  const events = s.when({ type: 'ResolveNegRiskEvent', time: T0, negRiskMarketId: EVENT, winningConditionId: '0xq1' });
  t.same(events.filter((e) => e.type === 'MarketResolved' || e.type === 'OrderCancelled').map((e) => e.type === 'MarketResolved' ? `${e.conditionId}:${e.winningOutcome}` : `cancel:${e.type === 'OrderCancelled' ? e.orderId : ''}`), ['cancel:bid', '0xq1:0', '0xq0:1', '0xq2:1']);
  t.match(s.when({ type: 'ResolveNegRiskEvent', time: T0, negRiskMarketId: EVENT, winningConditionId: '0xsolo' }), [{ code: 'INVALID_COMMAND' }]);
  t.match(s.when({ type: 'ResolveNegRiskEvent', time: T0, negRiskMarketId: '0xnone', winningConditionId: '0xq1' }), [{ code: 'NEG_RISK_NOT_FOUND' }]);
});

t.test('a question resolved NO cannot be the winner; the others still can', async (t) => {
  const s = threeQuestions(t).given({ type: 'ResolveMarket', time: T0, conditionId: '0xq0', winningOutcome: 1 });
  t.match(s.when({ type: 'ResolveNegRiskEvent', time: T0, negRiskMarketId: EVENT, winningConditionId: '0xq0' }), [{ code: 'MARKET_CLOSED' }]);
  t.same(ofType(s.when({ type: 'ResolveNegRiskEvent', time: T0, negRiskMarketId: EVENT, winningConditionId: '0xq2' }), 'MarketResolved').map((e) => e.conditionId), ['0xq2', '0xq1']);
});

t.test('a question added after conversions: the event stays solvent whichever question wins', async (t) => {
  for (const winner of ['0xq0', '0xq1', '0xq2', '0xq3']) {
    const s = threeQuestions(t).given(convert('a', 0b111, 5), question(3), deposit('c', 50), split('c', 7, '0xq3'), convert('a', 0b001, 2));
    s.given({ type: 'ResolveNegRiskEvent', time: T0, negRiskMarketId: EVENT, winningConditionId: winner });
    for (const account of ['a', 'c']) for (const q of Q) s.when({ type: 'Redeem', time: T0, account, conditionId: q.conditionId });
    t.same(s.engine.checkInvariants(), [], `${winner} wins: invariants hold after every redemption`);
  }
});

t.test('trading, splitting and merging a question work as in any market after conversions', async (t) => {
  const s = threeQuestions(t).given(deposit('b', 100), convert('a', 0b110, 3));
  s.given(sell('ask', 'a', '11', 13, 0.3), buy('take', 'b', '11', 13, 0.3), buy('mint', 'b', '32', 5, 0.6), sell('m', 'a', '31', 5, 0.4));
  s.given({ type: 'Merge', time: T0, account: 'a', conditionId: '0xq1', amount: units(7) });
  t.same(s.engine.checkInvariants(), []);
});

t.test('snapshot and restore keep events, burned tokens and what was paid ahead', async (t) => {
  const s = threeQuestions(t).given(convert('a', 0b101, 2));
  const snapshot = JSON.parse(JSON.stringify(exportSnapshot(s.engine))) as EngineSnapshot;
  t.match(snapshot.negRiskEvents, [[EVENT, units(4)]]);
  const restored = restoreSnapshot(snapshot);
  t.equal(restored.stateHash(), s.engine.stateHash());
  t.same(restored.checkInvariants(), []);
  const next = convert('a', 0b011, 1);
  t.same(restored.apply(next), s.engine.apply(next), 'the same events after restore');
  t.equal(restored.stateHash(), s.engine.stateHash());
});

t.test('a state without events hashes and snapshots as before events existed', async (t) => {
  const engine = new Engine();
  engine.apply(listMarket({ negRisk: true }));
  const snapshot = exportSnapshot(engine);
  t.notOk('negRiskEvents' in snapshot);
  t.notOk('negRisk' in (snapshot.markets[0] ?? {}));
});

t.test('a market listed on its own joins an event as a question; refusals change nothing', async (t) => {
  const s = new Scenario(t).given(question(0), listMarket({ conditionId: '0xq1', tokenIds: ['21', '22'], negRisk: true }), deposit('a', 50), split('a', 10, '0xq1'));
  const join = (over: Partial<Extract<Command, { type: 'JoinNegRiskEvent' }>> = {}): Command => ({ type: 'JoinNegRiskEvent', time: T0, conditionId: '0xq1', negRiskMarketId: EVENT, questionIndex: 1, ...over });
  t.match(s.when(join({ questionIndex: 0 })), [{ code: 'QUESTION_INDEX_TAKEN' }]);
  t.match(s.when(join({ conditionId: '0xnone' })), [{ code: 'MARKET_NOT_FOUND' }]);
  t.match(s.when(join({ questionIndex: -1 })), [{ code: 'INVALID_COMMAND' }]);
  t.match(s.when(join({ conditionId: '0xq0' })), [{ code: 'INVALID_COMMAND', message: /already question 0/ }]);
  t.same(s.when(join()), [{ v: 1, seq: s.engine.seq, time: T0, type: 'MarketJoinedNegRiskEvent', conditionId: '0xq1', negRiskMarketId: EVENT, questionIndex: 1 }]);
  t.same(s.engine.negRiskEvent(EVENT)?.questions.map((m) => m.conditionId), ['0xq0', '0xq1']);
  s.given(split('a', 10, '0xq0'));
  t.match(s.when(convert('a', 0b10, 4)), [{ type: 'PositionsConverted', yesTokenIds: ['11'] }], 'its positions convert like any question');
  s.given(listMarket({ conditionId: '0xplain', tokenIds: ['81', '82'] }));
  t.match(s.when(join({ conditionId: '0xplain', questionIndex: 2 })), [{ code: 'INVALID_MARKET_PARAMS' }], 'a market that is not negRisk');
});

t.test('a converted request is applied at most once', async (t) => {
  const s = threeQuestions(t);
  const request = { id: 'req-1', signedAt: T0, until: T0 + 30_000 };
  t.match(s.when(convert('a', 3, 1, { request })), [{ type: 'PositionsConverted' }]);
  t.match(s.when(convert('a', 3, 1, { request })), [{ code: 'REQUEST_REPLAYED' }]);
});
