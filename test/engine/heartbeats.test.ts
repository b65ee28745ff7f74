// Heartbeat sessions in the engine: the id chain, the window, expiry that cancels every open order of the
// account (and only its), deterministic order of expiry, refusals that change nothing, snapshot round trip and
// replay to the same state hash.

import t, { type Test } from 'tap';
import { Engine, exportSnapshot, restoreSnapshot, type Command } from '../../engine/index.js';
import { NO, Scenario, T0, YES, buy, deposit, listMarket, ofType, sell, split, types } from './scenario.js';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const WINDOW = 10_000;

function beat(account: string, previousId: string, heartbeatId: string, time: number, timeoutMs = WINDOW): Command {
  return { type: 'Heartbeat', time, account, previousId, heartbeatId, timeoutMs };
}

function tick(time: number): Command {
  return { type: 'AdvanceTime', time };
}

/** Alice and Bob each rest two orders on the market. */
function twoTraders(t: Test): Scenario {
  return new Scenario(t).given(
    listMarket(),
    deposit(ALICE, 1000),
    deposit(BOB, 1000),
    split(ALICE, 100),
    buy('0xa1', ALICE, YES, 10, 0.4),
    sell('0xa2', ALICE, YES, 10, 0.6),
    buy('0xb1', BOB, YES, 10, 0.3),
    buy('0xb2', BOB, NO, 10, 0.3),
  );
}

t.test('given no session, when a heartbeat with an empty id comes, then a session starts until time + window', async (t) => {
  const s = twoTraders(t);
  const events = s.when(beat(ALICE, '', 'h1', T0 + 1000));
  t.match(events, [{ type: 'HeartbeatAccepted', account: ALICE, heartbeatId: 'h1', deadline: T0 + 1000 + WINDOW }]);
  t.same(s.engine.heartbeatSession(ALICE), { id: 'h1', deadline: T0 + 11_000 });
  t.equal(s.engine.nextHeartbeatDeadline(), T0 + 11_000);
});

t.test('given a session, when each heartbeat carries the id the last one named, then the session runs on', async (t) => {
  const s = twoTraders(t).given(beat(ALICE, '', 'h1', T0));
  for (let i = 1; i <= 5; i++) {
    const [accepted] = s.when(beat(ALICE, `h${i}`, `h${i + 1}`, T0 + i * 9_000));
    t.match(accepted, { type: 'HeartbeatAccepted', heartbeatId: `h${i + 1}`, deadline: T0 + i * 9_000 + WINDOW });
  }
  t.same(types(s.when(tick(T0 + 5 * 9_000 + WINDOW))), [], 'at the deadline itself nothing is due');
  t.equal(s.engine.openOrders(ALICE).length, 2, "Alice's orders rest");
});

t.test('given a session, when a heartbeat carries a stale or unknown id, then HEARTBEAT_INVALID and nothing changes', async (t) => {
  const s = twoTraders(t).given(beat(ALICE, '', 'h1', T0), beat(ALICE, 'h1', 'h2', T0 + 5000));
  const before = s.engine.heartbeatSession(ALICE);
  const [stale] = s.when(beat(ALICE, 'h1', 'h3', T0 + 6000));
  t.match(stale, { type: 'CommandRejected', command: 'Heartbeat', account: ALICE, code: 'HEARTBEAT_INVALID', message: 'Invalid Heartbeat ID' });
  t.same(s.engine.heartbeatSession(ALICE), before, 'same id, same deadline');
  const [none] = s.when(beat(BOB, 'h2', 'h4', T0 + 6000));
  t.match(none, { code: 'HEARTBEAT_INVALID' }, 'an id for an account with no session is refused too');
  t.equal(s.engine.heartbeatSession(BOB), undefined, 'and starts nothing');
});

t.test('given a session, when an empty id comes again, then the session restarts with the new id', async (t) => {
  const s = twoTraders(t).given(beat(ALICE, '', 'h1', T0));
  t.match(s.when(beat(ALICE, '', 'r1', T0 + 9000)), [{ type: 'HeartbeatAccepted', heartbeatId: 'r1', deadline: T0 + 19_000 }]);
  t.match(s.when(beat(ALICE, 'h1', 'x', T0 + 9500)), [{ code: 'HEARTBEAT_INVALID' }], 'the old chain is over');
});

t.test('given a session, when no heartbeat comes within the window, then the next command cancels every open order of that account first', async (t) => {
  const s = twoTraders(t).given(beat(ALICE, '', 'h1', T0));
  const events = s.when(deposit(BOB, 1, T0 + WINDOW + 1));
  t.same(types(events), ['HeartbeatExpired', 'OrderCancelled', 'OrderCancelled', 'CollateralDeposited'], 'expiry comes before the command');
  t.match(events[0], { account: ALICE, heartbeatId: 'h1', deadline: T0 + WINDOW });
  t.same(ofType(events, 'OrderCancelled').map((e) => [e.orderId, e.reason, e.account]), [['0xa1', 'heartbeat', ALICE], ['0xa2', 'heartbeat', ALICE]], 'in priority order');
  t.equal(s.engine.openOrders(ALICE).length, 0);
  t.equal(s.engine.openOrders(BOB).length, 2, "Bob's orders are not touched");
  t.equal(s.engine.heartbeatSession(ALICE), undefined, 'the session ended');
  t.equal(s.engine.nextHeartbeatDeadline(), undefined);
  t.equal(s.reserved(ALICE), 0, 'reservations released');
  t.match(s.when(beat(ALICE, 'h1', 'h2', T0 + WINDOW + 2)), [{ code: 'HEARTBEAT_INVALID' }], 'the ended chain is refused');
  t.match(s.when(beat(ALICE, '', 'n1', T0 + WINDOW + 3)), [{ type: 'HeartbeatAccepted' }], 'a new session may start');
});

t.test('given two sessions past their deadlines, when time moves, then they expire earliest deadline first', async (t) => {
  const s = twoTraders(t).given(beat(BOB, '', 'b1', T0), beat(ALICE, '', 'a1', T0 + 100));
  const events = s.when(tick(T0 + 60_000));
  t.same(ofType(events, 'HeartbeatExpired').map((e) => e.account), [BOB, ALICE]);
  t.same(ofType(events, 'OrderCancelled').map((e) => e.orderId), ['0xb1', '0xb2', '0xa1', '0xa2']);
});

t.test('given an order filled or cancelled before the deadline, then expiry cancels only what is still open', async (t) => {
  const s = twoTraders(t).given(beat(ALICE, '', 'h1', T0), { type: 'CancelOrder', time: T0 + 1, orderId: '0xa1', account: ALICE });
  const events = s.when(tick(T0 + WINDOW + 1));
  t.same(ofType(events, 'OrderCancelled').map((e) => e.orderId), ['0xa2']);
});

t.test('malformed heartbeats are refused as INVALID_COMMAND and change nothing', async (t) => {
  const s = twoTraders(t);
  const bad: Command[] = [
    { type: 'Heartbeat', time: T0, account: '', previousId: '', heartbeatId: 'h', timeoutMs: WINDOW },
    { type: 'Heartbeat', time: T0, account: ALICE, previousId: '', heartbeatId: '', timeoutMs: WINDOW },
    { type: 'Heartbeat', time: T0, account: ALICE, previousId: 'x'.repeat(65), heartbeatId: 'h', timeoutMs: WINDOW },
    { type: 'Heartbeat', time: T0, account: ALICE, previousId: '', heartbeatId: 'h', timeoutMs: 999 },
    { type: 'Heartbeat', time: T0, account: ALICE, previousId: '', heartbeatId: 'h', timeoutMs: 3_600_001 },
    { type: 'Heartbeat', time: T0, account: ALICE, previousId: '', heartbeatId: 'h', timeoutMs: 1.5 },
  ];
  for (const cmd of bad) t.match(s.when(cmd), [{ type: 'CommandRejected', command: 'Heartbeat', code: 'INVALID_COMMAND' }]);
  t.equal(s.engine.heartbeatSession(ALICE), undefined);
});

t.test('a snapshot carries the sessions; the restored engine expires them at the same event as the original', async (t) => {
  const s = twoTraders(t).given(beat(ALICE, '', 'h1', T0), beat(BOB, '', 'b1', T0 + 500));
  const snapshot = JSON.parse(JSON.stringify(exportSnapshot(s.engine))) as ReturnType<typeof exportSnapshot>;
  t.same(snapshot.heartbeats, [[BOB, 'b1', T0 + 500 + WINDOW], [ALICE, 'h1', T0 + WINDOW]], 'sorted by account');
  const restored = restoreSnapshot(snapshot);
  t.equal(restored.stateHash(), s.engine.stateHash());
  const next: Command[] = [beat(BOB, 'b1', 'b2', T0 + 9000), tick(T0 + 10_001), tick(T0 + 30_000)];
  for (const cmd of next) t.same(restored.apply(cmd), s.engine.apply(cmd));
  t.equal(restored.stateHash(), s.engine.stateHash());
  t.equal(restored.openOrders(ALICE).length, 0);
  t.equal(restored.openOrders(BOB).length, 0, "Bob's session expired at its own deadline");
});

t.test('a replay of the same commands gives the same events and state hash', async (t) => {
  const commands: Command[] = [
    listMarket(), deposit(ALICE, 1000), split(ALICE, 100), sell('0xa2', ALICE, YES, 10, 0.6),
    beat(ALICE, '', 'h1', T0 + 1), beat(ALICE, 'h1', 'h2', T0 + 8000), beat(ALICE, 'bad', 'h3', T0 + 9000), tick(T0 + 18_001), tick(T0 + 18_002),
  ];
  const a = new Engine();
  const b = new Engine();
  const ea = commands.flatMap((c) => a.apply(c));
  const eb = commands.flatMap((c) => b.apply(c));
  t.same(ea, eb);
  t.equal(a.stateHash(), b.stateHash());
  t.same(ofType(ea, 'OrderCancelled').map((e) => [e.orderId, e.time]), [['0xa2', T0 + 18_001]]);
});
