// The Data API reads the in-memory read model serves (GET /activity, /value, /closed-positions, /traded,
// /oi, /v1/market-positions) against the ClickHouse read model, at the same log position, over generated
// histories (every kind of fill, splits, merges, redemptions, resolutions, in the neg-risk variant
// conversions, and in the rewarded one liquidity rewards paid): the JSON must be byte-identical whenever memory
// answers. The states compared, as
// liveReads.test.ts builds them: every record applied; restored from the projections part-way and following
// the log (a restart); restored from a snapshot of the model (and from a snapshot made before the ledger
// windows existed) and following the log; and with windows of a few fills and ledger entries, so that most
// activity pages reach past memory and go to ClickHouse. Also the two ways the all-time leaderboard is
// computed (traders and volumes from account_totals, or from every fill and position) give the same boards.

import fc from 'fast-check';
import t, { type Test } from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { Projector } from '../../projections/projector.js';
import { metadataFrom, readContext, type MarketMetadata, type ReadContext } from '../../projections/readModel/index.js';
import { activity, ACTIVITY_SORTS, type ActivityParams } from '../../projections/readModel/activity.js';
import { closedPositions, CLOSED_SORTS, traded, value } from '../../projections/readModel/portfolio.js';
import { marketPositions, MARKET_POSITION_SORTS, openInterest } from '../../projections/readModel/marketStats.js';
import { leaderboard } from '../../projections/readModel/leaderboard.js';
import { LeaderboardBoards } from '../../projections/readModel/leaderboardBoards.js';
import { LiveState } from '../../projections/live/liveState.js';
import { LiveReadModel } from '../../projections/live/liveReadModel.js';
import { LiveSnapshotStore, readSnapshot, snapshotBytes, type LiveSnapshot } from '../../projections/live/liveSnapshot.js';
import { liveActivity } from '../../projections/live/liveActivity.js';
import { liveClosedPositions, liveMarketPositions, liveOpenInterest, liveTraded, liveValue } from '../../projections/live/livePortfolio.js';
import { NOT_IN_MEMORY } from '../../projections/live/liveReads.js';
import { FEE_ACCOUNT, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';
import { genesis, opsArb, START, toCommands } from '../engine/modelCommands.js';
import type { Command, EngineEvent } from '../../engine/index.js';

const METADATA: Record<string, MarketMetadata> = {
  '0xm1': { title: 'Alpha Cup', slug: 'alpha', icon: '', eventSlug: 'a', eventId: '1', outcomes: ['Up', 'Down'], endDate: '2026-05-01' },
  '0xq1': { title: 'Question one', slug: 'q1', icon: '', eventSlug: 'nr', eventId: '2', outcomes: ['Yes', 'No'], endDate: '' },
};

const json = (value: unknown): string => JSON.stringify(value);

function accountsOf(events: readonly EngineEvent[]): string[] {
  const out = new Set<string>([FEE_ACCOUNT, '0xnobody']);
  for (const e of events) if ('account' in e && typeof e.account === 'string' && e.account !== '') out.add(e.account);
  return [...out].sort();
}

function negRiskSession(seed: number, length: number): Command[] {
  const [ops] = fc.sample(opsArb(length, 'negRisk'), { seed, numRuns: 1 });
  return [...genesis('negRisk'), ...toCommands(ops ?? [])];
}

async function compareAll(t: Test, ctx: ReadContext, views: Record<string, LiveState>, events: readonly EngineEvent[], served: Map<string, number>): Promise<number> {
  let compared = 0;
  const conditionIds = [...new Set(events.flatMap((e) => (e.type === 'MarketListed' ? [e.conditionId] : [])))];
  const same = async (what: string, expected: unknown, fromMemory: (s: LiveState) => Promise<unknown>): Promise<void> => {
    const text = json(expected);
    for (const [name, state] of Object.entries(views)) {
      const got = await fromMemory(state);
      if (got === NOT_IN_MEMORY) continue;
      served.set(name, (served.get(name) ?? 0) + 1);
      if (json(got) !== text) t.equal(json(got), text, `${name}: ${what}`);
      compared += 1;
    }
  };
  const activityParams: Omit<ActivityParams, 'user'>[] = [
    {}, { limit: 1 }, { limit: 2, offset: 1 }, { limit: 500 }, { offset: 7, limit: 3 }, { limit: 0 },
    { type: ['TRADE'] }, { type: ['SPLIT', 'MERGE'] }, { type: ['REDEEM', 'CONVERSION'], limit: 5 }, { type: ['REWARD'] }, { side: 'BUY', limit: 4 }, { side: 'SELL', type: ['TRADE', 'SPLIT'] },
    { market: [conditionIds[0] as string] }, { market: [conditionIds[1] as string, '0xunknown'], limit: 3 },
    { start: 1_700_000_001, end: 1_700_000_500 }, { end: 1_700_000_000 },
    ...ACTIVITY_SORTS.flatMap((sortBy) => [{ sortBy, limit: 5 }, { sortBy, sortDirection: 'ASC', limit: 5, offset: 2 }]),
  ];
  for (const user of accountsOf(events)) {
    for (const p of activityParams) {
      const params = { user, ...p };
      await same(`activity ${json(params)}`, await activity(ctx, params), (s) => liveActivity(s, ctx.metadata, params));
    }
    for (const p of [{}, { market: [conditionIds[0] as string] }]) {
      const params = { user, ...p };
      await same(`value ${json(params)}`, await value(ctx, params), (s) => liveValue(s, ctx.metadata, params));
    }
    for (const p of [{}, { limit: 50 }, { title: 'alpha' }, { market: [conditionIds[1] as string] }, { limit: 1, offset: 1 }, ...CLOSED_SORTS.flatMap((sortBy) => [{ sortBy }, { sortBy, sortDirection: 'ASC' }])]) {
      const params = { user, ...p };
      await same(`closed positions ${json(params)}`, await closedPositions(ctx, params), (s) => liveClosedPositions(s, ctx.metadata, params));
    }
    await same(`traded ${user}`, await traded(ctx, { user }), async (s) => liveTraded(s, { user }));
  }
  for (const p of [{}, { market: [...conditionIds].reverse() }, { market: ['0xunknown', conditionIds[0] as string] }]) {
    await same(`oi ${json(p)}`, await openInterest(ctx, p), (s) => liveOpenInterest(s, ctx.metadata, p));
  }
  for (const market of [...conditionIds, '0xunknown']) {
    for (const p of [{}, { status: 'OPEN' }, { status: 'CLOSED' }, { limit: 1, offset: 1 }, { user: accountsOf(events)[1] as string }, ...MARKET_POSITION_SORTS.flatMap((sortBy) => [{ sortBy }, { sortBy, sortDirection: 'ASC' }])]) {
      const params = { market, ...p };
      await same(`market positions ${json(params)}`, await marketPositions(ctx, params), (s) => liveMarketPositions(s, ctx.metadata, params));
    }
  }
  return compared;
}

/**
 * A classic session whose two markets carry a liquidity rewards program from the start, then the engine's
 * clock moved past the next UTC midnight: the day is paid (RewardPaid, REWARD in /activity).
 */
function rewardedSession(seed: number, length: number): Command[] {
  const cmds = sessionFor(seed, length);
  const listed = genesis().length;
  const programs: Command[] = ['0xm1', '0xm2'].map((conditionId) => ({ type: 'SetMarketRewards', time: START, conditionId, dailyRate: 100_000_000_000, maxSpread: 50_000, minSize: 0 }));
  const last = Math.max(...cmds.map((c) => c.time));
  const midnight = (Math.floor(last / 86_400_000) + 1) * 86_400_000;
  return [...cmds.slice(0, listed), ...programs, ...cmds.slice(listed), { type: 'AdvanceTime', time: midnight + 1 }];
}

const histories: { name: string; commands: () => Command[] }[] = [
  { name: 'classic seed 4', commands: () => sessionFor(4, 400) },
  { name: 'rewarded seed 4', commands: () => rewardedSession(4, 400) },
  { name: 'classic seed 16', commands: () => sessionFor(16, 400) },
  { name: 'neg-risk seed 9', commands: () => negRiskSession(9, 400) },
];

for (const history of histories) {
  t.test(`memory and ClickHouse give the same Data API answers (${history.name})`, async (t) => {
    const session = await loggedSession(history.commands());
    const events = session.records.flatMap((r) => r.events);
    const kinds = ['TradeExecuted', 'PositionSplit', 'PositionsMerged', 'PositionRedeemed', 'MarketResolved', ...(history.name.startsWith('neg') ? ['PositionsConverted'] : []), ...(history.name.startsWith('rewarded') ? ['RewardPaid'] : [])];
    for (const kind of kinds) t.ok(events.some((e) => e.type === kind), `the history has ${kind}`);
    const { ch, db } = await freshDatabase();
    const ctx = readContext(ch, db, { metadata: metadataFrom((id) => METADATA[id]), feeAccount: FEE_ACCOUNT });
    const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 61 });
    await projector.start();
    const middle = Math.floor(session.records.length / 2);
    await projector.catchUpTo(session.journal, middle);
    const restarted = new LiveReadModel(session.journal, { feeAccount: FEE_ACCOUNT, maxAccountLedger: 4 });
    await restarted.start(ch, db, projector.position);
    await projector.catchUp();
    t.equal(projector.position, session.records.length);

    const late = session.records.length - 3;
    const half = new LiveState({ feeAccount: FEE_ACCOUNT });
    for (const r of session.records.slice(0, late)) half.apply(r);
    const store = new LiveSnapshotStore(mkdtempSync(join(tmpdir(), 'live-snapshots-')));
    await store.write(half.pos, snapshotBytes(half));
    const { snapshot } = await store.latest(session.records.length);
    const snapshotted = new LiveReadModel(session.journal, { feeAccount: FEE_ACCOUNT });
    await snapshotted.startFrom(snapshot);
    // A snapshot written before the ledger windows existed: they know nothing of the past.
    const { ledger: _l, ledgerDropped: _d, ledgerUnknownPast: _u, ...older } = readSnapshot(serialize(deserialize(snapshotBytes(half))) as Buffer);
    const oldSnapshot = new LiveReadModel(session.journal, { feeAccount: FEE_ACCOUNT });
    await oldSnapshot.startFrom(older as LiveSnapshot);
    t.equal(oldSnapshot.state.ledger.unknownPast, true);

    const applied = new LiveState({ feeAccount: FEE_ACCOUNT });
    const small = new LiveState({ feeAccount: FEE_ACCOUNT, maxAccountFills: 3, maxFills: 40, maxAccountLedger: 2, maxLedger: 6 });
    for (const r of session.records) {
      applied.apply(r);
      small.apply(r);
    }
    const served = new Map<string, number>();
    const views = { applied, restarted: restarted.state, snapshotted: snapshotted.state, oldSnapshot: oldSnapshot.state, small };
    const compared = await compareAll(t, ctx, views, events, served);
    t.ok(compared > 1000, `${compared} answers compared (${json(Object.fromEntries(served))} served from memory)`);
    t.ok((served.get('small') ?? 0) < (served.get('applied') ?? 0), 'small windows send some activity pages to ClickHouse');

    // The all-time board over every market (its traders and volumes from account_totals) is the one computed
    // from the fills and positions of all the markets.
    const all = conditionIdsOf(events);
    const boards = new LeaderboardBoards(ctx, () => projector.position, 0).board;
    for (const p of [{}, { limit: 2 }, { limit: 1, offset: 3 }, { orderBy: 'VOL' }, { orderBy: 'VOL', limit: 2, offset: 1 }]) {
      const overall = await leaderboard({ timePeriod: 'ALL', ...p }, boards);
      t.strictSame(overall, await leaderboard({ timePeriod: 'ALL', category: 'POLITICS', ...p }, boards, all), `leaderboard ${json(p)}`);
      for (const e of overall) t.strictSame(await leaderboard({ timePeriod: 'ALL', user: e.proxyWallet, ...p }, boards), [e], `${e.proxyWallet}'s standing ${json(p)}`);
    }
    // Boards of a period: a window that starts before the history is the all-time board; one that starts after
    // it (no fill, no change of a position or a price since) has every PnL and volume 0; a window starting in
    // the middle counts the fills since its start.
    const times = events.map((e) => e.time);
    const [first, last] = [Math.min(...times), Math.max(...times)];
    const at = (now: number): ReturnType<typeof readContext> => readContext(ch, db, { metadata: ctx.metadata, feeAccount: FEE_ACCOUNT, now: () => now });
    const dayBoards = (now: number) => (p: object): Promise<unknown> => leaderboard({ timePeriod: 'DAY', ...p }, new LeaderboardBoards(at(now), () => projector.position, 0).board);
    const dayBefore = dayBoards(first - 1 + 86_400_000);
    for (const p of [{}, { orderBy: 'VOL' }]) t.strictSame(await dayBefore(p), await leaderboard({ timePeriod: 'ALL', ...p }, boards), `a day from before the history ${json(p)}`);
    const after = (await dayBoards(last + 60_000 + 86_400_000)({ limit: 50 })) as { pnl: number; vol: number }[];
    t.ok(after.length > 0 && after.every((e) => e.pnl === 0 && e.vol === 0), 'a day from after the history: nothing happened');
    const halfway = first + Math.floor((last - first) / 2);
    const since = new Map<string, number>();
    for (const e of events) {
      if (e.type !== 'TradeExecuted' || e.time < halfway) continue;
      for (const side of [e.taker, e.maker]) since.set(side.account, (since.get(side.account) ?? 0) + side.amount);
    }
    const byVol = (await dayBoards(halfway + 86_400_000)({ orderBy: 'VOL', limit: 50 })) as { proxyWallet: string; vol: number }[];
    for (const e of byVol) t.equal(Math.round(e.vol * 1e6), since.get(e.proxyWallet) ?? 0, `${e.proxyWallet}: the volume since the middle`);
    await session.journal.close();
  });
}

function conditionIdsOf(events: readonly EngineEvent[]): string[] {
  return [...new Set(events.flatMap((e) => (e.type === 'MarketListed' ? [e.conditionId] : [])))];
}
