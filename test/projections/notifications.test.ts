// The notifications projection without a server: records made by the real engine go through
// NotificationState, and what it keeps is checked note by note (fills to both sides, every cancellation with
// its reason and the order's owner, a resolution only to those holding the market at that event, drops).
// Then its contracts: the same records delivered twice leave the same state; a snapshot at any position plus
// the records after it equals applying them all; each bound holds; and NotificationStore follows a log, writes
// snapshots and starts again from them.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { Engine, type Command } from '../../engine/index.js';
import type { LogRecord } from '../../log/eventLog.js';
import { MARKET_RESOLVED, NotificationState, ORDER_CANCELLATION, ORDER_FILL, type NotificationStateOptions } from '../../projections/notifications/notificationState.js';
import { NotificationSnapshots, readSnapshot, restoreSnapshot, snapshotBytes } from '../../projections/notifications/notificationSnapshots.js';
import { NotificationStore } from '../../projections/notifications/notificationStore.js';
import { notificationWire } from '../../projections/notifications/notificationWire.js';
import { CID, NO, T0, YES, buy, cancel, deposit, listMarket, sell, split, units } from '../engine/scenario.js';
import { MemoryLog, recordsFor } from '../support/records.js';

const ALICE = '0x00000000000000000000000000000000000a11ce';
const BOB = '0x0000000000000000000000000000000000000b0b';
const CAROL = '0x00000000000000000000000000000000000ca201';
const HOUR = 3_600_000;

/** Alice makes a market from a split; Bob buys and sells back; Carol only bids; the market resolves YES. */
function session(): Command[] {
  return [
    listMarket(), deposit(ALICE, 100), deposit(BOB, 100), deposit(CAROL, 100), split(ALICE, 20),
    sell('0xa1', ALICE, YES, 10, 0.6), buy('0xb1', BOB, YES, 5, 0.6), cancel('0xa1', ALICE),
    buy('0xa2', ALICE, YES, 5, 0.5), sell('0xb2', BOB, YES, 5, 0.5, { time: T0 + 1_000 }), buy('0xc1', CAROL, NO, 5, 0.5),
    { type: 'ResolveMarket', time: T0 + 2_000, conditionId: CID, winningOutcome: 0 },
    { type: 'Redeem', time: T0 + 3_000, account: ALICE, conditionId: CID },
  ];
}

function applied(records: readonly LogRecord[], options: NotificationStateOptions = {}): NotificationState {
  const state = new NotificationState(options);
  for (const r of records) state.apply(r);
  return state;
}

/** Everything the state holds, comparable. */
function dump(state: NotificationState): string {
  return JSON.stringify({ pos: state.pos, now: state.now, kept: [...state.kept()], byAccount: [...state.byAccount], orders: [...state.orders], holdings: [...state.holdings].map(([c, h]) => [c, [...h]]) });
}

function seqOf(records: readonly LogRecord[], type: string, orderId?: string): number {
  for (const r of records) {
    for (const e of r.events) if (e.type === type && (orderId === undefined || (e as { orderId?: string }).orderId === orderId || (e as { taker?: { orderId: string } }).taker?.orderId === orderId)) return e.seq;
  }
  throw new Error(`no ${type} ${orderId ?? ''}`);
}

t.test('a neg-risk conversion moves the holdings a resolution notifies', async (t) => {
  const event = '0xe0';
  const question = (i: number): Command => listMarket({ conditionId: `0xq${i}`, tokenIds: [`${i}1`, `${i}2`], negRisk: true, negRiskMarketId: event, questionIndex: i });
  const records = recordsFor([
    question(0), question(1), question(2), deposit(BOB, 100), split(BOB, 10, '0xq0'), split(BOB, 10, '0xq1'),
    { type: 'Merge', time: T0, account: BOB, conditionId: '0xq0', amount: units(4) },
    { type: 'ConvertPositions', time: T0, account: BOB, negRiskMarketId: event, indexSet: '3', amount: units(6) },
    { type: 'ResolveNegRiskEvent', time: T0 + 1_000, negRiskMarketId: event, winningConditionId: '0xq2' },
  ]);
  const notes = applied(records).notificationsOf(BOB).filter((n) => n.type === MARKET_RESOLVED);
  // Bob gave 6 NO of questions 0 and 1 (all he had left of question 0) and received 6 YES of question 2.
  t.match(notes.map((n) => [n.conditionId, n.type === MARKET_RESOLVED ? n.held : []]).sort(), [['0xq0', [units(6), 0]], ['0xq1', [units(10), units(4)]], ['0xq2', [units(6), 0]]]);
});

t.test('fills, cancellations and resolutions, to the right accounts with the right ids, owners and fields', async (t) => {
  const records = recordsFor(session());
  const state = applied(records);
  const fill1 = seqOf(records, 'TradeExecuted', '0xb1');
  const fill2 = seqOf(records, 'TradeExecuted', '0xb2');
  const cancelled = seqOf(records, 'OrderCancelled', '0xa1');
  const carolCancel = seqOf(records, 'OrderCancelled', '0xc1');
  const resolved = seqOf(records, 'MarketResolved');

  t.match(state.notificationsOf(ALICE), [
    { type: MARKET_RESOLVED, id: 2 * resolved, owner: ALICE, conditionId: CID, winningOutcome: 0, winningTokenId: YES, held: [units(20), units(20)] },
    { type: ORDER_FILL, id: 2 * fill2 + 1, owner: `key-${ALICE}`, orderId: '0xa2', role: 'MAKER', side: 'BUY', size: units(5), price: 500_000, remaining: 0 },
    { type: ORDER_CANCELLATION, id: 2 * cancelled, owner: `key-${ALICE}`, orderId: '0xa1', reason: 'user', remaining: units(5), originalSize: units(10), side: 'SELL', price: 600_000, outcome: 0 },
    { type: ORDER_FILL, id: 2 * fill1 + 1, owner: `key-${ALICE}`, orderId: '0xa1', role: 'MAKER', side: 'SELL', size: units(5), remaining: units(5), tokenId: YES },
  ]);
  t.equal(state.notificationsOf(ALICE).length, 4, 'newest first, nothing else (the redeem after the resolution adds nothing)');
  t.match(state.notificationsOf(BOB), [
    { type: ORDER_FILL, id: 2 * fill2, orderId: '0xb2', role: 'TAKER', side: 'SELL', owner: `key-${BOB}` },
    { type: ORDER_FILL, id: 2 * fill1, orderId: '0xb1', role: 'TAKER', side: 'BUY', owner: `key-${BOB}` },
  ]);
  t.equal(state.notificationsOf(BOB).length, 2, 'Bob sold what he bought: no resolution for him');
  t.match(state.notificationsOf(CAROL), [{ type: ORDER_CANCELLATION, id: 2 * carolCancel, orderId: '0xc1', reason: 'market_resolved', outcome: 1, side: 'BUY' }]);
  t.equal(state.notificationsOf(CAROL).length, 1, 'Carol held nothing: her bid was cancelled, no resolution');
  t.equal(state.holdings.size, 0, 'the resolved market keeps no holdings');
  t.equal(state.orders.size, 0, 'no open order is left');

  const wire = state.notificationsOf(ALICE).map((n) => notificationWire(n, { title: 'Will it?', slug: 's', icon: '', eventSlug: '', eventId: '', outcomes: ['Up', 'Down'], endDate: '' }, [YES, NO]));
  t.same(wire[0], {
    id: 2 * resolved, type: 4, owner: ALICE, timestamp: Math.floor((T0 + 2_000) / 1000),
    payload: { market: CID, question: 'Will it?', winning_asset_id: YES, winning_outcome: 'Up', winning_outcome_index: 0, positions: [{ asset_id: YES, outcome: 'Up', outcome_index: 0, size: '20' }, { asset_id: NO, outcome: 'Down', outcome_index: 1, size: '20' }] },
  });
  t.same(wire[2]?.payload, {
    order_id: '0xa1', market: CID, asset_id: YES, question: 'Will it?', outcome: 'Up', outcome_index: 0, side: 'SELL', price: '0.6',
    original_size: '10', size_matched: '5', size_cancelled: '5', reason: 'user',
  });
  t.match(wire[3]?.payload, { trade_id: /^00000000-0000-4000-8000-/, order_id: '0xa1', side: 'SELL', price: '0.6', size: '5', fee_rate_bps: '0', trader_side: 'MAKER', size_remaining: '5', transaction_hash: /^0x[0-9a-f]{64}$/ });
});

t.test('a drop removes exactly the named ids of that account', async (t) => {
  const records = recordsFor([...session(), { type: 'DropNotifications', time: T0 + 4_000, account: ALICE, ids: [0, 2 * seqOf(recordsFor(session()), 'OrderCancelled', '0xa1')] }]);
  const state = applied(records);
  t.same(state.notificationsOf(ALICE).map((n) => n.type), [MARKET_RESOLVED, ORDER_FILL, ORDER_FILL], 'the cancellation is gone; an id Alice does not hold is a no-op');
  t.equal(state.notificationsOf(BOB).length, 2, "Bob's are untouched");
  t.equal(state.size, 6);
});

t.test('idempotent: every record delivered twice gives the same state', async (t) => {
  const records = recordsFor(session());
  const twice = new NotificationState();
  for (const r of records) {
    twice.apply(r);
    twice.apply(r);
  }
  for (const r of records) twice.apply(r);
  t.equal(dump(twice), dump(applied(records)));
});

t.test('a snapshot at any position plus the records after it equals applying them all', async (t) => {
  const records = recordsFor(session());
  const whole = dump(applied(records));
  for (let k = 0; k <= records.length; k++) {
    const restored = restoreSnapshot(readSnapshot(snapshotBytes(applied(records.slice(0, k)))));
    for (const r of records.slice(k)) restored.apply(r);
    t.equal(dump(restored), whole, `snapshot at position ${k}`);
  }
});

t.test('bounds: the newest per account, the retention at engine time, the newest in all', async (t) => {
  const records = recordsFor(session());
  const perAccount = applied(records, { maxPerAccount: 2 });
  t.same(perAccount.notificationsOf(ALICE).map((n) => n.type), [MARKET_RESOLVED, ORDER_FILL]);
  t.equal(perAccount.size, 5);

  const later = recordsFor([...session(), deposit(BOB, 1, T0 + 2_000 + 48 * HOUR)]);
  const retained = applied(later);
  t.same(retained.notificationsOf(ALICE).map((n) => n.type), [MARKET_RESOLVED], 'only what is younger than 48 h at the last event');
  t.same(retained.notificationsOf(CAROL).map((n) => n.type), [ORDER_CANCELLATION], 'the cancellation at the resolution is as young');
  t.same(retained.notificationsOf(BOB), []);
  t.notOk(retained.byAccount.has(BOB), 'an account with none left is forgotten');

  const total = applied(records, { maxTotal: 3 });
  t.equal(total.size, 3);
  t.same([...total.kept()].map((n) => [n.account, n.type]), [[ALICE, ORDER_FILL], [CAROL, ORDER_CANCELLATION], [ALICE, MARKET_RESOLVED]], 'the oldest left first, whoever they belong to');
  t.same(state(total, ALICE), [MARKET_RESOLVED, ORDER_FILL]);
  t.equal(dump(restoreSnapshot(readSnapshot(snapshotBytes(total)), { maxTotal: 3 })), dump(total), 'a bounded state round-trips');
});

function state(s: NotificationState, account: string): number[] {
  return s.notificationsOf(account).map((n) => n.type);
}


t.test('NotificationStore: follows the log, catches up after a gap, snapshots, and starts again from its snapshot', async (t) => {
  const records = recordsFor(session());
  const log = new MemoryLog();
  await log.append(records.slice(0, 3));
  const dir = mkdtempSync(join(tmpdir(), 'notifications-'));
  const snapshots = new NotificationSnapshots(dir);
  const store = new NotificationStore(log, { snapshots, snapshotEvery: 4 });
  store.offer(records.slice(0, 2)); // before start: held, then skipped (the log has them)
  t.same(await store.start(), { snapshotPos: 0, skipped: [] });
  t.equal(store.position, 3);
  await log.append(records.slice(3, 6));
  store.offer(records.slice(5, 6)); // a gap: 4 and 5 were never offered
  await store.waitFor(6, 2_000);
  await log.append(records.slice(6));
  store.offer(records.slice(6));
  t.equal(store.position, records.length);
  t.equal(dump(store.state), dump(applied(records)), 'the state of applying every record');
  await store.close();
  const { snapshot } = await snapshots.latest(log.lastPos);
  t.equal(snapshot?.pos, records.length, 'the last snapshot is at the last position');

  const again = new NotificationStore(log, { snapshots });
  t.same(await again.start(), { snapshotPos: records.length, skipped: [] });
  t.equal(dump(again.state), dump(store.state), 'started again from the snapshot');

  const more = recordsFor([deposit(BOB, 1, T0 + 5_000)], replayEngine(session()), records.length + 1);
  await log.append(more);
  const third = new NotificationStore(log, { snapshots });
  await third.start();
  t.equal(third.position, records.length + 1, 'the records after the snapshot are read from the log');

  const beyond = new NotificationStore(new MemoryLog(), { snapshots });
  const started = await beyond.start();
  t.equal(started.snapshotPos, 0);
  t.match(started.skipped, [/beyond the end of the log/], 'a snapshot past the end of the log is skipped');
  await t.rejects(beyond.waitFor(1, 10), /did not reach position 1/);
});

function replayEngine(commands: readonly Command[]): Engine {
  const engine = new Engine();
  for (const c of commands) engine.apply(c);
  return engine;
}
