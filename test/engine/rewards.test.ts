// The rewards program in the engine: a hand-worked day (three makers, known books, one epoch) paid to the base
// unit, the sampler's clock (on the minute, expiries stepped through, quiet minutes counted), the day's payout
// once per market and day through snapshots, replays and a long outage, and the operator's commands.

import t, { type Test } from 'tap';
import { Engine, exportSnapshot, restoreSnapshot, type BookFactory, type Command, type EngineEvent } from '../../engine/index.js';
import { BOOKS, CID, Scenario, YES, buy, deposit, listMarket, ofType, sell, split, units } from './scenario.js';

// Addresses in the order the engine sorts them: A < B < C < D.
const A = '0xa000000000000000000000000000000000000001';
const B = '0xb000000000000000000000000000000000000002';
const C = '0xc000000000000000000000000000000000000003';
const D = '0xd000000000000000000000000000000000000004';
const MIN = 60_000;
/** 2023-11-15T00:00:00Z, UTC day 19,676. */
const DAY0 = 19_676 * 86_400_000;
const DAY1 = DAY0 + 86_400_000;

function rewards(time: number, over: Partial<Extract<Command, { type: 'SetMarketRewards' }>> = {}): Command {
  return { type: 'SetMarketRewards', time, conditionId: CID, dailyRate: units(10), maxSpread: 30_000, minSize: units(10), ...over };
}

function tick(time: number): Command {
  return { type: 'AdvanceTime', time };
}

/** A, B and D with their orders of the morning, the program set at 23:59:30 the day before. */
function morning(t: Test, book?: BookFactory): Scenario {
  const at = DAY0 - 40_000;
  return new Scenario(t, book).given(
    listMarket({ time: at }),
    ...[A, B, C, D].map((x) => deposit(x, 1000, at)),
    split(A, 100, CID, at), split(C, 100, CID, at), split(D, 100, CID, at),
    // A quotes both sides a cent from 0.50, 90 shares each: Q_one = Q_two = (2/3)²·90 = 40 shares.
    buy('0xa1', A, YES, 90, 0.49, { time: at }),
    sell('0xa2', A, YES, 90, 0.51, { time: at }),
    // B bids only, 270 shares two cents off: Q_one = (1/3)²·270 = 30, Q_two = 0, Q_min = 30/3 = 10.
    buy('0xb1', B, YES, 270, 0.48, { time: at }),
    // D offers 5 shares at 0.50: under the 10-share minimum, it neither scores nor moves the midpoint.
    sell('0xd1', D, YES, 5, 0.5, { time: at }),
    rewards(DAY0 - 30_000),
  );
}

t.test('the hand-worked day: three makers, two books, one epoch, paid to the base unit', async (t) => {
  for (const [name, book] of BOOKS) {
    await t.test(name, async (t) => {
      const s = morning(t, book);
      t.equal(s.engine.nextRewardSample(), DAY0, 'the first sample is the next minute');
      // At 18:00 less 30 s, B leaves and C quotes both sides two cents off, 90 shares each: Q_one = Q_two = 10.
      const switchAt = DAY0 + 1080 * MIN - 30_000;
      const morningSamples = s.when({ type: 'CancelOrder', time: switchAt, orderId: '0xb1', account: B });
      t.match(ofType(morningSamples, 'RewardsSampled'), [{
        at: DAY0, samples: 1080, midpoint: 500_000,
        makers: [[A, 40_000_000, 40_000_000, 40_000_000, 800_000_000_000], [B, 30_000_000, 0, 10_000_000, 200_000_000_000]],
      }], 'minutes 0 to 1079 are one sample counted 1,080 times, before the cancel applies');
      s.given(buy('0xc1', C, YES, 90, 0.48, { time: switchAt }), sell('0xc2', C, YES, 90, 0.52, { time: switchAt }));
      t.match(s.engine.rewardDaySoFar(CID), { samples: 1080, pool: 7_500_000, earnings: new Map([[A, 6_000_000], [B, 1_500_000]]) }, 'the day so far: 1,080 of 1,440 minutes of $10');
      t.equal(s.engine.orderScoring('0xc1'), true);
      t.equal(s.engine.orderScoring('0xd1'), false, 'under the minimum size');
      t.same([...s.engine.rewardSharesNow(CID)], [[A, 0.8], [C, 0.2]]);

      const before = { a: s.free(A), b: s.free(B), c: s.free(C) };
      const close = s.when(tick(DAY1));
      t.match(ofType(close, 'RewardsSampled'), [
        { at: DAY0 + 1080 * MIN, samples: 360, makers: [[A, 40_000_000, 40_000_000, 40_000_000, 800_000_000_000], [C, 10_000_000, 10_000_000, 10_000_000, 200_000_000_000]] },
        { at: DAY1, samples: 1 },
      ], 'the evening, then the new day\'s first minute');
      // Q_epoch: A 0.8 × 1,440 = 1,152; B 0.2 × 1,080 = 216; C 0.2 × 360 = 72 (of 1,440). Pool: 1,440 minutes of $10.
      // A = $10 × 1152/1440 = $8.00, B = $1.50, C = $0.50: under $1, withheld.
      t.same(ofType(close, 'RewardsDistributed').map(({ v: _v, seq: _s, time: _t, ...e }) => e), [{
        type: 'RewardsDistributed', conditionId: CID, day: '2023-11-15', pool: 10_000_000, samples: 1440, paid: 9_500_000, withheld: 500_000,
        earnings: [[A, 8_000_000], [B, 1_500_000], [C, 500_000]],
      }]);
      t.same(ofType(close, 'RewardPaid').map((e) => [e.account, e.amount, e.day]), [[A, 8_000_000, '2023-11-15'], [B, 1_500_000, '2023-11-15']]);
      t.same({ a: s.free(A) - before.a, b: s.free(B) - before.b, c: s.free(C) - before.c }, { a: 8_000_000, b: 1_500_000, c: 0 }, 'credited to free collateral');
      const types = close.map((e) => e.type);
      t.ok(types.indexOf('RewardsDistributed') < types.lastIndexOf('RewardsSampled'), 'the day is paid before the next day is sampled');
      t.equal(s.engine.nextRewardSample(), DAY1 + MIN);
    });
  }
});

t.test('a day is paid once: snapshot mid-day, replay from the start, a two-day outage', async (t) => {
  const commands: Command[] = [];
  const after: EngineEvent[] = [];
  const record = (s: Scenario, cmd: Command): EngineEvent[] => {
    commands.push(cmd);
    const events = s.when(cmd);
    after.push(...events);
    return events;
  };
  const s = morning(t);
  const middle = exportSnapshot(s.engine);
  const hashAtMiddle = s.engine.stateHash();
  // The service is down from noon on day 0 to 10:00 on day 2: the first command after the outage samples the
  // missed minutes (the book could not change) and pays days 0 and 1, each once, in order.
  const outage = record(s, tick(DAY1 + 86_400_000 + 600 * MIN));
  const paid = ofType(outage, 'RewardsDistributed');
  t.same(paid.map((e) => [e.day, e.pool, e.samples]), [['2023-11-15', 10_000_000, 1440], ['2023-11-16', 10_000_000, 1440]]);
  t.same(ofType(outage, 'RewardPaid').map((e) => [e.day, e.account, e.amount]), [['2023-11-15', A, 8_000_000], ['2023-11-15', B, 2_000_000], ['2023-11-16', A, 8_000_000], ['2023-11-16', B, 2_000_000]]);
  t.equal(ofType(outage, 'RewardsSampled').length, 3, 'one sample per day, counted, and the minute reached');
  t.same(ofType(record(s, tick(DAY1 + 86_400_000 + 601 * MIN)), 'RewardsDistributed'), [], 'nothing is paid again');

  const restored = restoreSnapshot(middle);
  t.equal(restored.stateHash(), hashAtMiddle, 'the snapshot restores the rewards state');
  const again = commands.flatMap((c) => restored.apply(c));
  t.same(again, after, 'the same events after the snapshot');
  t.equal(restored.stateHash(), s.engine.stateHash(), 'and the same state');
});

t.test('the sampler: on the minute, through expiries, only while open and rewarded', async (t) => {
  const s = new Scenario(t).given(listMarket({ time: DAY0 }), deposit(A, 1000, DAY0), split(A, 100, CID, DAY0), rewards(DAY0 + 1, { minSize: 0 }));
  t.same(s.when(tick(DAY0 + MIN - 1)), [], 'nothing before the minute');
  t.same(ofType(s.when(tick(DAY0 + MIN)), 'RewardsSampled'), [], 'an empty book: no midpoint, nobody scores');
  t.equal(s.engine.rewardDaySoFar(CID)?.samples, 1, 'the minute counts toward the pool all the same');
  // A GTD bid that leaves the book at minute 4 (expiration minus the 60 s margin), and an ask that stays.
  const expiration = (DAY0 + 5 * MIN) / 1000;
  s.given(buy('0xg1', A, YES, 20, 0.49, { time: DAY0 + MIN + 5, orderType: 'GTD', expiration }), sell('0xg2', A, YES, 20, 0.51, { time: DAY0 + MIN + 5 }));
  const late = s.when(tick(DAY0 + 10 * MIN + 30_000));
  t.match(late.map((e) => [e.type, e.time]), [
    ['RewardsSampled', DAY0 + 2 * MIN], // minutes 2 and 3 with both orders
    ['OrderExpired', DAY0 + 4 * MIN], // the bid leaves at minute 4 itself
  ], 'time steps to each minute; the expiry is at its own time');
  t.match(ofType(late, 'RewardsSampled'), [{ samples: 2, midpoint: 500_000, makers: [[A, 8_888_888, 8_888_888, 8_888_888, 1_000_000_000_000]] }]);
  t.equal(ofType(late, 'RewardsSampled').length, 1, 'no midpoint once the bid side is empty');
  t.equal(s.engine.rewardDaySoFar(CID)?.samples, 10, 'minutes 1 to 10');

  s.given({ type: 'PauseMarket', time: DAY0 + 11 * MIN - 1, conditionId: CID });
  s.when(tick(DAY0 + 20 * MIN));
  t.equal(s.engine.rewardDaySoFar(CID)?.samples, 10, 'a paused market is not sampled');
  s.given({ type: 'ResumeMarket', time: DAY0 + 20 * MIN + 1, conditionId: CID }, { type: 'EndMarketRewards', time: DAY0 + 20 * MIN + 2, conditionId: CID });
  s.when(tick(DAY0 + 30 * MIN));
  t.equal(s.engine.rewardDaySoFar(CID)?.samples, 10, 'an ended program is not sampled');
  t.equal(s.engine.nextRewardSample(), DAY1, 'only the payout is left to do');
  s.when(tick(DAY1));
  t.equal(s.engine.nextRewardSample(), undefined, 'and then nothing');
  t.equal(s.engine.rewardDaySoFar(CID), undefined);
});

t.test('a resolved market leaves the program at its next sample', async (t) => {
  const s = new Scenario(t).given(listMarket({ time: DAY0 }), rewards(DAY0 + 1), { type: 'ResolveMarket', time: DAY0 + 2, conditionId: CID, winningOutcome: 0 });
  t.match(s.when(tick(DAY0 + MIN)), [{ type: 'MarketRewardsEnded', conditionId: CID, reason: 'resolved' }]);
  t.same([...s.engine.rewardTerms()], []);
});

t.test('the operator commands and their refusals', async (t) => {
  const s = new Scenario(t).given(listMarket({ time: DAY0 }));
  t.match(s.when(rewards(DAY0 + 1)), [{ type: 'MarketRewardsSet', conditionId: CID, dailyRate: 10_000_000, maxSpread: 30_000, minSize: 10_000_000 }]);
  t.same(s.engine.rewardTerms().get(CID), { dailyRate: 10_000_000, maxSpread: 30_000, minSize: 10_000_000, since: DAY0 + 1 });
  const refused = (cmd: Command, code: string) => t.match(s.when(cmd), [{ type: 'CommandRejected', command: cmd.type, code }], `${code}: ${JSON.stringify(cmd).slice(0, 90)}`);
  refused(rewards(DAY0 + 2, { conditionId: '0xnone' }), 'MARKET_NOT_FOUND');
  refused(rewards(DAY0 + 2, { dailyRate: 0 }), 'INVALID_COMMAND');
  refused(rewards(DAY0 + 2, { dailyRate: 1.5 }), 'INVALID_COMMAND');
  refused(rewards(DAY0 + 2, { maxSpread: 0 }), 'INVALID_COMMAND');
  refused(rewards(DAY0 + 2, { maxSpread: 500_001 }), 'INVALID_COMMAND');
  refused(rewards(DAY0 + 2, { minSize: -1 }), 'INVALID_COMMAND');
  t.match(s.when({ type: 'EndMarketRewards', time: DAY0 + 3, conditionId: CID }), [{ type: 'MarketRewardsEnded', reason: 'operator' }]);
  refused({ type: 'EndMarketRewards', time: DAY0 + 4, conditionId: CID }, 'REWARDS_NOT_FOUND');
  refused({ type: 'EndMarketRewards', time: DAY0 + 4, conditionId: '0xnone' }, 'MARKET_NOT_FOUND');
  s.given({ type: 'ResolveMarket', time: DAY0 + 5, conditionId: CID, winningOutcome: 1 });
  refused(rewards(DAY0 + 6), 'MARKET_CLOSED');
});

t.test('outside [0.10, 0.90] one side alone earns nothing', async (t) => {
  const s = new Scenario(t).given(
    listMarket({ time: DAY0 }), deposit(A, 1000, DAY0), deposit(B, 1000, DAY0), split(B, 100, CID, DAY0),
    buy('0xa1', A, YES, 50, 0.04, { time: DAY0 }), // A bids only
    buy('0xb1', B, YES, 50, 0.03, { time: DAY0 }), sell('0xb2', B, YES, 50, 0.06, { time: DAY0 }), // B both sides
    rewards(DAY0 + 1, { minSize: 0 }),
  );
  const [sampled] = ofType(s.when(tick(DAY0 + MIN)), 'RewardsSampled');
  t.equal(sampled?.midpoint, 50_000, 'the midpoint is 0.05');
  t.same(sampled?.makers.map(([account, , , qMin, share]) => [account, qMin, share]), [[A, 0, 0], [B, 5_555_555, 1_000_000_000_000]]);
});

t.test('a replay of the log gives identical payouts and state', async (t) => {
  const log: Command[] = [];
  const first = new Engine();
  const events: EngineEvent[] = [];
  const run = (cmd: Command) => {
    log.push(cmd);
    events.push(...first.apply(cmd));
  };
  const at = DAY0 - 40_000;
  run(listMarket({ time: at }));
  for (const x of [A, B, C]) run(deposit(x, 1000, at));
  run(split(A, 100, CID, at));
  run(rewards(at + 1, { dailyRate: units(123.456789), maxSpread: 100_000, minSize: units(5) }));
  for (let i = 0; i < 60; i++) {
    const time = DAY0 + i * 37 * MIN + (i % 7) * 1000;
    const who = [A, B, C][i % 3] as string;
    run(i % 4 === 3 ? { type: 'CancelAll', time, account: who } : buy(`0x${i.toString(16)}`, who, YES, 5 + (i % 11), 0.4 + (i % 9) / 100, { time }));
    if (i % 5 === 0 && who === A) run(sell(`0xs${i}`, A, YES, 5, 0.6 - (i % 3) / 100, { time }));
  }
  run(tick(DAY1 + 5));
  t.ok(ofType(events, 'RewardPaid').length > 0, 'someone was paid');
  const replay = new Engine();
  const again = log.flatMap((cmd) => replay.apply(cmd));
  t.same(again, events, 'the same events, payouts included');
  t.equal(replay.stateHash(), first.stateHash());
});
