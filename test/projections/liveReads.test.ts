// The in-memory read model against the ClickHouse read model, at the same log position, over generated
// trading histories from the engine's model generator (every kind of fill, cancels, splits, merges,
// redemptions, resolutions, tick and fee changes): for every endpoint it serves and a spread of parameters,
// the JSON must be byte-identical. Four ways to build the in-memory state: applying every record; restored
// from the projections part-way and following the log from there (a restart); restored from a snapshot of
// the model part-way (a process without its own projector) and following the log; and with a tiny bound on
// finished orders, by count and by age, so most single-order reads go to ClickHouse.

import t, { type Test } from 'tap';
import { Projector } from '../../projections/projector.js';
import { accountOrder, accountOrders, holders, metadataFrom, positions, POSITION_SORTS, readContext, type MarketMetadata, type ReadContext } from '../../projections/readModel/index.js';
import { LiveState } from '../../projections/live/liveState.js';
import { LiveReadModel } from '../../projections/live/liveReadModel.js';
import { LiveSnapshotStore, snapshotBytes } from '../../projections/live/liveSnapshot.js';
import { accountOrderAnywhere, liveAccountOrders, liveAccountOrdersJson, liveHolders, livePositions, NOT_IN_MEMORY, liveAccountOrder } from '../../projections/live/liveReads.js';
import type { AccountOrdersParams } from '../../projections/readModel/accountOrders.js';
import { compileRoute } from '../../api/http/schemas.js';
import { ORDER, page as pageSchema } from '../../api/trading/accountSchemas.js';
import { FEE_ACCOUNT, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';
import { MARKETS } from '../engine/modelCommands.js';
import type { EngineEvent } from '../../engine/index.js';
import { Journal } from '../../log/journal/journal.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const METADATA: Record<string, MarketMetadata> = {
  '0xm1': { title: 'Alpha Cup', slug: 'alpha', icon: '', eventSlug: 'a', eventId: '1', outcomes: ['Up', 'Down'], endDate: '2026-05-01' },
  // 0xm2 has no metadata: the fallback labels, empty title and end date.
};

const json = (value: unknown): string => JSON.stringify(value);
/** GET /data/orders' serialiser: what the route sends for a page object. */
const pageJson = compileRoute({ method: 'GET', path: '/data/orders', surface: 'clob', summary: '', response: pageSchema(ORDER), handler: () => ({ status: 200, body: null }) }).stringify;

function accountsOf(events: readonly EngineEvent[]): string[] {
  const out = new Set<string>([FEE_ACCOUNT, '0xnobody']);
  for (const e of events) if ('account' in e && typeof e.account === 'string' && e.account !== '') out.add(e.account);
  return [...out].sort();
}

/** Compares every read over `views` (name → state) with ClickHouse; returns how many answers were compared. */
async function compareAll(t: Test, ctx: ReadContext, views: Record<string, LiveState>, events: readonly EngineEvent[], projection: Projector): Promise<number> {
  let compared = 0;
  const same = async <T>(what: string, fromStore: () => Promise<T>, fromMemory: (s: LiveState) => Promise<T>): Promise<void> => {
    const expected = json(await fromStore());
    for (const [name, state] of Object.entries(views)) {
      const got = json(await fromMemory(state));
      if (got !== expected) t.equal(got, expected, `${name}: ${what}`);
      compared += 1;
    }
  };
  /** GET /data/orders: as `same`, and the JSON text memory sends must be the route's serialisation of ClickHouse's page. */
  const sameOrders = async (what: string, params: AccountOrdersParams): Promise<void> => {
    const expected = await accountOrders(ctx, params);
    await same(what, async () => expected, (s) => liveAccountOrders(s, ctx.metadata, params));
    const text = pageJson(expected);
    for (const [name, state] of Object.entries(views)) {
      const got = await liveAccountOrdersJson(state, ctx.metadata, params);
      const gotText = Buffer.isBuffer(got) ? got.toString('utf8') : pageJson(got);
      if (gotText !== text) t.equal(gotText, text, `${name}: ${what}, as sent`);
      compared += 1;
    }
  };
  const accounts = accountsOf(events);
  const conditionIds = MARKETS.map((m) => m.conditionId);
  const positionParams = [
    {}, { sizeThreshold: 0 }, { sizeThreshold: 0.5 }, { sizeThreshold: 10 }, { redeemable: true }, { mergeable: true, sizeThreshold: 0 },
    { market: [conditionIds[1] as string] }, { market: [...conditionIds, '0xunknown'] }, { title: 'alpha' }, { title: 'ALP', sizeThreshold: 0 },
    { limit: 1, offset: 1, sizeThreshold: 0 }, { limit: 0 }, { offset: 3 },
    ...POSITION_SORTS.flatMap((sortBy) => [{ sortBy, sizeThreshold: 0 }, { sortBy, sortDirection: 'ASC', sizeThreshold: 0 }]),
  ];
  for (const user of accounts) {
    for (const p of positionParams) {
      const params = { user, ...p };
      await same(`positions ${json(params)}`, () => positions(ctx, params), (s) => livePositions(s, ctx.metadata, params));
    }
    const tokens = MARKETS.flatMap((m) => m.tokenIds);
    const orderParams = [{}, { limit: 1 }, { limit: 2, nextCursor: 'Mg==' }, { market: conditionIds[0] }, { assetId: tokens[1] }, { assetId: tokens[3], limit: 3 }, { nextCursor: 'LTE=' }];
    for (const p of orderParams) {
      const params = { caller: user, ...p };
      await sameOrders(`open orders ${json(params)}`, params);
    }
    // Page through the open orders by their cursors, two at a time.
    let cursor: string | undefined = undefined;
    for (let page = 0; page < 20 && cursor !== 'LTE='; page++) {
      const params: { caller: string; limit: number; nextCursor?: string } = { caller: user, limit: 2, ...(cursor === undefined ? {} : { nextCursor: cursor }) };
      await sameOrders(`open orders page ${page} of ${user}`, params);
      cursor = (await accountOrders(ctx, params)).next_cursor;
    }
  }
  const accepted = events.flatMap((e) => (e.type === 'OrderAccepted' ? [{ id: e.orderId, account: e.account }] : []));
  for (const [i, o] of accepted.entries()) {
    const callers = i % 5 === 0 ? [o.account, accounts.find((a) => a !== o.account) as string] : [o.account];
    for (const caller of callers) {
      const params = { caller, id: o.id };
      await same(`order ${o.id} for ${caller}`, () => accountOrder(ctx, params), (s) => accountOrderAnywhere(s, ctx, projection, params));
      const open = { caller, id: o.id };
      if (i % 7 === 0) await sameOrders(`open orders with id ${o.id}`, open);
    }
  }
  for (const market of [[conditionIds[0] as string], [...conditionIds].reverse(), ['0xunknown', conditionIds[1] as string]]) {
    for (const p of [{}, { limit: 0 }, { limit: 1 }, { minBalance: 0 }, { minBalance: 5, limit: 2 }, { minBalance: 0.01 }]) {
      const params = { market, ...p };
      await same(`holders ${json(params)}`, () => holders(ctx, params), (s) => liveHolders(s, ctx.metadata, params));
    }
  }
  return compared;
}

/** Histories of the model generator that hold every kind of event below (found by trying seeds). */
const seeds = [4, 11, 16];

for (const seed of seeds) {
  t.test(`memory and ClickHouse give the same answers (history seed ${seed})`, async (t) => {
    const session = await loggedSession(sessionFor(seed, 400));
    const events = session.records.flatMap((r) => r.events);
    for (const kind of ['TradeExecuted', 'OrderCancelled', 'OrderExpired', 'PositionSplit', 'PositionsMerged', 'PositionRedeemed', 'MarketResolved']) t.ok(events.some((e) => e.type === kind), `the history has ${kind}`);
    const { ch, db } = await freshDatabase();
    // With a generation, as the catalog's source has: pages of open orders asked for along the way are kept
    // (projections/live/orderPageCache.ts), and one that outlived a change of its orders would differ below.
    const ctx = readContext(ch, db, { metadata: Object.assign(metadataFrom((id) => METADATA[id]), { generation: () => 1 }), feeAccount: FEE_ACCOUNT });
    const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 61 });
    await projector.start();

    // A restart part-way: projected up to the middle, restored from the tables, then following the log.
    const middle = Math.floor(session.records.length / 2);
    await projector.catchUpTo(session.journal, middle);
    const restarted = new LiveReadModel(session.journal, { feeAccount: FEE_ACCOUNT });
    await restarted.start(ch, db, projector.position);
    t.equal(restarted.position, session.records.length, 'the restarted model followed the log to its end');
    await projector.catchUp();
    t.equal(projector.position, session.records.length);

    // A process without a projector: its own snapshot of the model near the end (through the file store; so
    // that what it holds is what the last records do not overwrite), then the log from there on.
    const late = session.records.length - 3;
    const half = new LiveState({ feeAccount: FEE_ACCOUNT });
    for (const r of session.records.slice(0, late)) half.apply(r);
    const store = new LiveSnapshotStore(mkdtempSync(join(tmpdir(), 'live-snapshots-')));
    await store.write(half.pos, snapshotBytes(half));
    const { snapshot } = await store.latest(session.records.length);
    t.equal(snapshot?.pos, late, 'the snapshot reads back at its position');
    const snapshotted = new LiveReadModel(session.journal, { feeAccount: FEE_ACCOUNT });
    await snapshotted.startFrom(snapshot);
    t.equal(snapshotted.position, session.records.length, 'the model restored from the snapshot followed the log to its end');

    const applied = new LiveState({ feeAccount: FEE_ACCOUNT });
    const bounded = new LiveState({ feeAccount: FEE_ACCOUNT, maxFinishedOrders: 3 });
    // By age: a finished order leaves once one finishes more than a tenth of the history's span after it.
    const times = events.map((e) => e.time);
    const span = Math.max(...times) - Math.min(...times);
    const ageMs = Math.max(1, Math.floor(span / 10));
    const aged = new LiveState({ feeAccount: FEE_ACCOUNT, finishedOrderAgeMs: ageMs });
    const conditionIds = [...new Set(events.flatMap((e) => (e.type === 'MarketListed' ? [e.conditionId] : [])))];
    const traders = accountsOf(events);
    for (const [i, r] of session.records.entries()) {
      applied.apply(r);
      bounded.apply(r);
      aged.apply(r);
      // Ask for holders all along, so that the answers memory keeps per token (until a position of the token
      // changes) are warm when the histories end: a kept answer that outlived a change would differ below.
      if (i % 7 === 0) for (const market of conditionIds) for (const p of [{}, { limit: 1 }, { minBalance: 5, limit: 2 }]) await liveHolders(applied, ctx.metadata, { market: [market], ...p });
      // Likewise the open orders' JSON, kept per order until its status, matched size or trades change.
      if (i % 5 === 0) for (const caller of traders) await liveAccountOrdersJson(applied, ctx.metadata, { caller });
    }
    t.ok(applied.holdersCache.size > 0, 'holders answers were kept along the way');
    t.ok(applied.orderJson.size > 0, `${applied.orderJson.size} open orders' JSON kept along the way`);
    t.ok(applied.orderPages.size > 0, `${applied.orderPages.size} pages of open orders kept along the way`);
    const finished = events.filter((e) => e.type === 'OrderAccepted').length - applied.openByAccount.size;
    t.ok(bounded.horizon > 0 && finished > 3, 'the bounded model let finished orders go');
    t.ok(aged.horizon > 0 && aged.finishedCount < applied.finishedCount, `the model bounded by age (${ageMs} ms of a ${span} ms history) kept ${aged.finishedCount} of ${applied.finishedCount} finished orders`);
    const orderIds = events.flatMap((e) => (e.type === 'OrderAccepted' ? [e.orderId] : []));
    const finishedIn = (state: LiveState): { updatedAt: number }[] => orderIds.flatMap((id) => {
      const o = state.order(id);
      return o !== undefined && o.status !== 'LIVE' ? [o] : [];
    });
    const newestFinish = Math.max(...finishedIn(applied).map((o) => o.updatedAt));
    t.ok(finishedIn(aged).every((o) => o.updatedAt >= newestFinish - ageMs), 'every finished order it kept finished within its age of the newest finish');
    const someAccepted = events.find((e) => e.type === 'OrderAccepted');
    if (someAccepted?.type === 'OrderAccepted') {
      const early = await liveAccountOrder(bounded, ctx.metadata, { caller: someAccepted.account, id: someAccepted.orderId });
      t.ok(early === NOT_IN_MEMORY || bounded.order(someAccepted.orderId)?.status === 'LIVE', 'an early finished order is left to ClickHouse');
    }
    const compared = await compareAll(t, ctx, { applied, restarted: restarted.state, bounded, aged, snapshotted: snapshotted.state }, events, projector);
    t.ok(compared > 700, `${compared} answers compared`);
    await session.journal.close();
  });
}

t.test('offer(): records applied at once, held during start-up, a gap read back from the log; waitFor', async (t) => {
  const records = (await loggedSession(sessionFor(7, 300))).records;
  const journal = await Journal.open({ dir: mkdtempSync(join(tmpdir(), 'live-log-')), segmentBytes: 8 << 20 });
  t.teardown(() => journal.close());
  const half = Math.floor(records.length / 2);
  await journal.append(records.slice(0, half));
  const { ch, db } = await freshDatabase();
  const live = new LiveReadModel(journal, { feeAccount: FEE_ACCOUNT });
  live.offer(records.slice(0, 10));
  await live.start(ch, db, 0);
  t.equal(live.position, half, 'start-up follows the log to its end');
  t.equal(live.ready, true);

  await journal.append(records.slice(half, half + 5));
  live.offer(records.slice(half, half + 5));
  t.equal(live.position, half + 5, 'offered records are applied at once');
  live.offer(records.slice(0, half + 5));
  t.equal(live.position, half + 5, 'records already applied are skipped');

  await journal.append(records.slice(half + 5));
  const waiting = live.waitFor(records.length);
  live.offer(records.slice(half + 20));
  await waiting;
  t.equal(live.position, records.length, 'a gap is read back from the log');
  await t.rejects(live.waitFor(records.length + 1, 20), /did not reach position/);

  const reference = new LiveState({ feeAccount: FEE_ACCOUNT });
  for (const r of records) reference.apply(r);
  const ctx = readContext(ch, db, { feeAccount: FEE_ACCOUNT });
  for (const user of accountsOf(records.flatMap((r) => r.events))) {
    t.equal(json(await livePositions(live.state, ctx.metadata, { user, sizeThreshold: 0 })), json(await livePositions(reference, ctx.metadata, { user, sizeThreshold: 0 })), `positions of ${user}`);
  }
});
