// GET /trades?user= and GET /data/trades from the fill windows in memory against the ClickHouse read model,
// at the same log position, over generated trading histories (four accounts, self-trades, fills sharing a
// millisecond, resolutions): for every parameter combination the memory answer, when memory gives one, must
// be ClickHouse's byte for byte, and bad parameters must fail with the same error. Six ways to build the
// windows: applying every record with the default bounds (every read answered from memory); with bounds so
// small that most pages reach past the window (answered from ClickHouse); restored from the projections
// part-way, with each of the two, then following the log (a restart); and restored from a snapshot of the
// model, with each of the two, then following the log (a process without its own projector).

import t, { type Test } from 'tap';
import { Projector } from '../../projections/projector.js';
import { accountTrades, activityTrades, cursorFor, metadataFrom, readContext, type MarketMetadata, type ReadContext } from '../../projections/readModel/index.js';
import type { ActivityTradesParams } from '../../projections/readModel/activityTrades.js';
import type { AccountTradesParams } from '../../projections/readModel/accountTrades.js';
import { LiveState } from '../../projections/live/liveState.js';
import { LiveReadModel } from '../../projections/live/liveReadModel.js';
import { LiveSnapshotStore, snapshotBytes } from '../../projections/live/liveSnapshot.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FillWindows, type HeldFill } from '../../projections/live/fillWindows.js';
import { NOT_IN_MEMORY } from '../../projections/live/liveReads.js';
import { liveAccountTrades, liveAccountTradesJson, liveActivityTrades } from '../../projections/live/liveTrades.js';
import { compileRoute } from '../../api/http/schemas.js';
import { page as pageSchema, TRADE } from '../../api/trading/accountSchemas.js';
import { FEE_ACCOUNT, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';
import { MARKETS } from '../engine/modelCommands.js';
import type { EngineEvent, TradeExecuted } from '../../engine/index.js';

const METADATA: Record<string, MarketMetadata> = {
  '0xm1': { title: 'Alpha Cup', slug: 'alpha', icon: '', eventSlug: 'a', eventId: '1', outcomes: ['Up', 'Down'], endDate: '2026-05-01' },
};
const SMALL = { maxAccountFills: 7, maxFills: 20, maxShownJson: 5 };
const json = (value: unknown): string => JSON.stringify(value);
/** GET /data/trades' serialiser: what the route sends for a page object. */
const pageJson = compileRoute({ method: 'GET', path: '/data/trades', surface: 'clob', summary: '', response: pageSchema(TRADE), handler: () => ({ status: 200, body: null }) }).stringify;

/** Every combination of the options of each dimension. */
function product<T extends object>(dimensions: readonly (readonly T[])[]): T[] {
  return dimensions.reduce<T[]>((combos, options) => combos.flatMap((c) => options.map((o) => ({ ...c, ...o }))), [{} as T]);
}

interface Tally {
  memory: number;
  /** GET /data/trades pages sent as memory's JSON text and compared with the serialised ClickHouse page. */
  texts: number;
  fallback: number;
  /** Fallbacks of reads for an account that took part in a fill. */
  traderFallback: number;
}

/** The answer of a read, or its error's message (both stores check parameters with the same functions). */
async function outcome<T>(read: () => Promise<T>): Promise<{ value?: T; text: string }> {
  try {
    const value = await read();
    return { value, text: json(value) };
  } catch (error) {
    return { text: `error: ${(error as Error).message}` };
  }
}

async function compareAll(t: Test, ctx: ReadContext, views: Record<string, LiveState>, events: readonly EngineEvent[], turn: number): Promise<Record<string, Tally>> {
  const tallies: Record<string, Tally> = Object.fromEntries(Object.keys(views).map((name) => [name, { memory: 0, texts: 0, fallback: 0, traderFallback: 0 }]));
  const fills = events.filter((e): e is TradeExecuted => e.type === 'TradeExecuted');
  const traders = [...new Set(fills.flatMap((f) => [f.taker.account, f.maker.account]))].sort();
  /** Compares each view's answer with ClickHouse's; returns ClickHouse's. */
  const same = async <T>(what: string, fromStore: () => Promise<T>, fromMemory: (s: LiveState) => Promise<unknown>, user?: string): Promise<T | undefined> => {
    const expected = await outcome(fromStore);
    for (const [name, state] of Object.entries(views)) {
      const got = await outcome(() => fromMemory(state));
      const tally = tallies[name] as Tally;
      if (got.value === NOT_IN_MEMORY) {
        tally.fallback += 1;
        if (user !== undefined && traders.includes(user)) tally.traderFallback += 1;
        continue;
      }
      tally.memory += 1;
      if (got.text !== expected.text) t.equal(got.text, expected.text, `${name}: ${what}`);
    }
    return expected.value;
  };
  /** GET /data/trades: as `same`, and the JSON text memory sends must be the route's serialisation of ClickHouse's page. */
  const sameTrades = async (what: string, params: AccountTradesParams, user?: string): Promise<{ next_cursor: string } | undefined> => {
    const expected = await same(what, () => accountTrades(ctx, params), (s) => liveAccountTrades(s, ctx.metadata, params), user);
    if (expected === undefined) return undefined;
    const text = pageJson(expected);
    for (const [name, state] of Object.entries(views)) {
      const got = await liveAccountTradesJson(state, ctx.metadata, params);
      if (got === NOT_IN_MEMORY) continue;
      if (Buffer.isBuffer(got)) (tallies[name] as Tally).texts += 1;
      const gotText = Buffer.isBuffer(got) ? got.toString('utf8') : pageJson(got);
      if (gotText !== text) t.equal(gotText, text, `${name}: ${what}, as sent`);
    }
    return expected;
  };
  const users = [...traders, FEE_ACCOUNT, '0xnobody'];
  const [c1, c2] = MARKETS.map((m) => m.conditionId) as [string, string];
  const tokens = MARKETS.flatMap((m) => m.tokenIds);
  const seconds = fills.map((f) => Math.floor(f.time / 1000));
  const mid = seconds[Math.floor(seconds.length / 2)] as number;
  const late = seconds[Math.floor((seconds.length * 3) / 4)] as number;
  const someFill = fills[Math.floor(fills.length / 3)]?.tradeId ?? '';

  // GET /trades: every combination, each for one user in turn (each seed starts the turn elsewhere).
  const activity = product<ActivityTradesParams>([
    [{}, { takerOnly: false }, { takerOnly: true }],
    [{}, { side: 'BUY' }, { side: 'sell' }],
    [{}, { market: [c1] }, { market: [c2, '0xunknown'] }],
    [{}, { filterType: 'CASH', filterAmount: 1 }, { filterType: 'TOKENS', filterAmount: 5 }, { filterType: 'cash', filterAmount: 0 }],
    [{}, { limit: 1 }, { limit: 3, offset: 2 }, { limit: 5, offset: 9 }, { limit: 0 }, { offset: 30, limit: 10_000 }],
  ]);
  for (const [i, p] of activity.entries()) {
    const user = users[(i + turn) % users.length] as string;
    const params = { ...p, user };
    await same(`trades ${json(params)}`, () => activityTrades(ctx, params), (s) => liveActivityTrades(s, ctx.metadata, params), user);
  }
  for (const params of [{}, { limit: 2 }, { takerOnly: false, limit: 5, offset: 1 }, { limit: -1, user: users[0] }, { filterType: 'CASH', user: users[0] }, { side: 'HOLD', user: users[0] }, { user: users[0], offset: 10_001 }] as ActivityTradesParams[]) {
    await same(`trades ${json(params)}`, () => activityTrades(ctx, params), (s) => liveActivityTrades(s, ctx.metadata, params));
  }

  // GET /data/trades: every combination, each for one caller in turn.
  const account = product<Omit<AccountTradesParams, 'caller'> & { role?: string }>([
    [{}, { role: 'taker' }, { role: 'maker' }, { role: 'either' }, { role: 'other-taker' }, { id: someFill }],
    [{}, { assetId: tokens[0] }, { assetId: tokens[3] }],
    [{}, { market: c1 }],
    [{}, { before: String(mid) }, { after: String(mid) }, { after: mid - 60, before: String(late + 1) }],
    [{}, { limit: 1 }, { limit: 2, nextCursor: cursorFor(3) }, { limit: 4, nextCursor: cursorFor(10) }, { nextCursor: 'LTE=', limit: 1_000 }],
  ]);
  for (const [i, { role, ...p }] of account.entries()) {
    const caller = users[(i + turn) % users.length] as string;
    const other = traders.find((a) => a !== caller) ?? '0xnobody';
    const who = role === 'taker' ? { taker: caller } : role === 'maker' ? { maker: caller } : role === 'either' ? { makerAddress: other } : role === 'other-taker' ? { taker: other } : {};
    const params = { caller, ...p, ...who };
    await sameTrades(`data/trades ${json(params)}`, params, caller);
  }
  for (const p of [{ limit: 0 }, { nextCursor: 'bogus' }, { before: 'yesterday' }, { limit: 1_001 }, { limit: 0, nextCursor: 'LTE=' }] as Omit<AccountTradesParams, 'caller'>[]) {
    const params = { caller: users[0] as string, ...p };
    await sameTrades(`data/trades ${json(params)}`, params);
  }

  // Paging to the end, by offsets and by cursors, in small pages: every page past a small window too.
  for (const user of users) {
    for (const [limit, takerOnly] of [[3, false], [4, true]] as const) {
      for (let offset = 0; offset <= 2 * fills.length; offset += limit) {
        const params = { user, limit, offset, takerOnly };
        const page = await same(`trades page ${json(params)}`, () => activityTrades(ctx, params), (s) => liveActivityTrades(s, ctx.metadata, params), user);
        if ((page?.length ?? 0) < limit) break;
      }
    }
    let cursor: string | undefined = undefined;
    for (let page = 0; page < 100 && cursor !== 'LTE='; page++) {
      const params: AccountTradesParams = { caller: user, limit: 3, ...(cursor === undefined ? {} : { nextCursor: cursor }) };
      cursor = (await sameTrades(`data/trades page ${page} of ${user}`, params, user))?.next_cursor;
    }
  }
  return tallies;
}

/** Two of liveReads.test.ts's histories (every kind of fill, self-trades, resolutions): each takes ~20 s here. */
const seeds = [4, 16];

for (const seed of seeds) {
  t.test(`trades: memory and ClickHouse give the same answers (history seed ${seed})`, async (t) => {
    const session = await loggedSession(sessionFor(seed, 400));
    const events = session.records.flatMap((r) => r.events);
    const { ch, db } = await freshDatabase();
    const ctx = readContext(ch, db, { metadata: metadataFrom((id) => METADATA[id]), feeAccount: FEE_ACCOUNT });
    const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 61 });
    await projector.start();

    // Restarts: restored from the tables as of a position part-way, then following the log to its end.
    const restart = async (at: number, bounds: object): Promise<LiveState> => {
      await projector.catchUpTo(session.journal, at);
      const model = new LiveReadModel(session.journal, { feeAccount: FEE_ACCOUNT, ...bounds });
      await model.start(ch, db, projector.position);
      t.equal(model.position, session.records.length, 'the restarted model followed the log to its end');
      return model.state;
    };
    const restarted = await restart(Math.floor(session.records.length / 2), {});
    // Small bounds: restored where fewer fills than the bound follow, so restored windows are still read.
    const withFills = session.records.filter((r) => r.events.some((e) => e.type === 'TradeExecuted')).map((r) => r.pos);
    const restartedSmall = await restart((withFills[withFills.length - 8] as number) - 1, SMALL);
    await projector.catchUp();
    t.equal(projector.position, session.records.length);

    // A process without a projector: its own snapshot of the model (through the file store), then the log from
    // there on: near the end, so that which windows miss older fills is the snapshot's to say, not the few
    // fills that follow.
    const fromSnapshot = async (bounds: object): Promise<LiveState> => {
      const at = session.records.length - 2;
      const before = new LiveState({ feeAccount: FEE_ACCOUNT, ...bounds });
      for (const r of session.records.slice(0, at)) before.apply(r);
      const store = new LiveSnapshotStore(mkdtempSync(join(tmpdir(), 'live-snapshots-')));
      await store.write(before.pos, snapshotBytes(before));
      const model = new LiveReadModel(session.journal, { feeAccount: FEE_ACCOUNT, ...bounds });
      await model.startFrom((await store.latest()).snapshot);
      t.equal(model.position, session.records.length, 'the model restored from a snapshot followed the log to its end');
      return model.state;
    };
    const snapshotted = await fromSnapshot({});
    const snapshottedSmall = await fromSnapshot(SMALL);

    const applied = new LiveState({ feeAccount: FEE_ACCOUNT });
    const small = new LiveState({ feeAccount: FEE_ACCOUNT, ...SMALL });
    for (const r of session.records) {
      applied.apply(r);
      small.apply(r);
    }
    const fills = events.filter((e) => e.type === 'TradeExecuted').length;
    t.equal(applied.fills.size, fills, 'the default bounds hold every fill');
    t.equal(restarted.fills.size, fills, 'so does a restart with them');
    for (const s of [small, restartedSmall]) t.ok(s.fills.size <= SMALL.maxFills && s.fills.size > 0, `${s.fills.size} fills held within the bound`);

    const tallies = await compareAll(t, ctx, { applied, restarted, small, restartedSmall, snapshotted, snapshottedSmall }, events, seed);
    for (const name of ['applied', 'restarted', 'snapshotted']) {
      const { memory, texts, fallback, traderFallback } = tallies[name] as Tally;
      t.ok(memory > 1_000 && traderFallback === 0, `${name}: ${memory} answers from memory, ${fallback} from ClickHouse (the fee account's, or without a user)`);
      t.ok(texts > 300, `${name}: ${texts} pages of GET /data/trades sent as memory's JSON bytes, each the serialised ClickHouse page`);
    }
    for (const [name, s] of Object.entries({ applied, small })) {
      t.ok(s.tradeJson.size > 0 && s.tradeJson.size <= s.tradeJson.max, `${name}: ${s.tradeJson.size} fills keep their trade JSON (at most ${s.tradeJson.max})`);
    }
    for (const name of ['small', 'restartedSmall', 'snapshottedSmall']) {
      const { memory, traderFallback } = tallies[name] as Tally;
      t.ok(memory > 300 && traderFallback > 300, `${name}: ${memory} answers from memory, ${traderFallback} of traders from ClickHouse`);
    }
    await session.journal.close();
  });
}

/** A fill of `taker` against `maker` (no other field matters here). */
function fill(windows: FillWindows, n: number, taker: string, maker: string): void {
  windows.add(`f${n}`, n, '0xm1', 1, 0, `o${n}t`, taker, 'k', '11', 0, 'BUY', 1, 0, 1, `o${n}m`, maker, 'k', '12', 1, 'BUY', 1, 0, 1);
}
const ids = (windows: FillWindows, account: string): string[] => {
  const w = windows.of(account);
  return w === undefined ? [] : w.fills.slice(w.head).map((f) => (f as HeldFill).fill_id);
};

t.test('fill windows: the bounds per account and in all, a self-trade held once', async (t) => {
  const windows = new FillWindows({ maxAccountFills: 3, maxFills: 5 });
  fill(windows, 1, 'a', 'a');
  fill(windows, 2, 'a', 'b');
  t.same(ids(windows, 'a'), ['f1', 'f2'], 'a self-trade is one fill of its account');
  t.equal(windows.of('a')?.dropped, false);
  fill(windows, 3, 'c', 'a');
  fill(windows, 4, 'a', 'c');
  t.same(ids(windows, 'a'), ['f2', 'f3', 'f4'], 'the newest three of a');
  t.equal(windows.of('a')?.dropped, true, 'a misses an older fill');
  fill(windows, 5, 'd', 'c');
  fill(windows, 6, 'd', 'c');
  t.equal(windows.size, 5, 'five fills in all: f1 left, from no window (a had let it go)');
  t.same(ids(windows, 'c'), ['f4', 'f5', 'f6']);
  t.same(ids(windows, 'b'), ['f2']);
  fill(windows, 7, 'd', 'e');
  t.same(ids(windows, 'a'), ['f3', 'f4'], 'f2 left a');
  t.equal(windows.of('b'), undefined, 'and b, whose only fill it was: an account without fills in memory has no window');
  fill(windows, 8, 'a', 'e');
  t.same(ids(windows, 'a'), ['f4', 'f8'], 'f3 left a');
  t.same(ids(windows, 'c'), ['f4', 'f5', 'f6'], 'c had let f3 go');
  t.same(ids(windows, 'e'), ['f7', 'f8']);
  t.equal(windows.of('e')?.dropped, false, 'e holds every fill of its own');
  t.equal(new FillWindows({ maxAccountFills: 0, maxFills: 5 }).enabled, false, 'a bound of 0 keeps no fill');
});

t.test('an account memory holds no fill of: none when it never held a position, unknown otherwise', async (t) => {
  const state = new LiveState({ feeAccount: FEE_ACCOUNT, ...SMALL });
  for (const r of (await loggedSession(sessionFor(4, 400))).records) state.apply(r);
  t.same(state.fillsOf('0xnobody'), { fills: [], from: 0, complete: true });
  t.equal(state.fillsOf(FEE_ACCOUNT), undefined, 'the fee account holds positions');
  t.equal(new LiveState({ feeAccount: FEE_ACCOUNT, maxFills: 0 }).fillsOf('0xnobody'), undefined, 'no windows: nothing is known');
});
