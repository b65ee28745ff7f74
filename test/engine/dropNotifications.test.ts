// DropNotifications in the engine: given/when/then for the drop (NotificationsDropped, ids once each, in the
// order asked), the refusals of malformed commands, that it keeps no state (the state hash moves only with
// the sequence, as for a refused command), and replay determinism (a second engine, and a snapshot restore).

import t from 'tap';
import { Engine, exportSnapshot, MAX_DROPPED_NOTIFICATIONS, restoreSnapshot, type Command, type EngineEvent, type EngineSnapshot } from '../../engine/index.js';
import { Scenario, T0, YES, buy, deposit, listMarket } from './scenario.js';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

function drop(ids: unknown, account: unknown = ALICE, time = T0): Command {
  return { type: 'DropNotifications', time, account, ids } as unknown as Command;
}

t.test('given any state, when an account drops ids, then NotificationsDropped with each id once, in the order given', async (t) => {
  const s = new Scenario(t).given(listMarket(), deposit(ALICE, 100));
  t.same(s.when(drop([7, 3, 7, 0])), [{ v: 1, seq: 3, time: T0, type: 'NotificationsDropped', account: ALICE, ids: [7, 3, 0] }]);
  t.match(s.when(drop([Number.MAX_SAFE_INTEGER])), [{ type: 'NotificationsDropped', ids: [Number.MAX_SAFE_INTEGER] }], 'any safe integer');
  const most = Array.from({ length: MAX_DROPPED_NOTIFICATIONS }, (_, i) => i);
  t.match(s.when(drop(most)), [{ type: 'NotificationsDropped', ids: most }], `${MAX_DROPPED_NOTIFICATIONS} ids at once`);
});

t.test('malformed drops are refused as INVALID_COMMAND and change nothing but the sequence', async (t) => {
  const cases: [string, Command, string][] = [
    ['no ids', drop([]), 'ids must be'],
    ['ids not an array', drop('1,2'), 'ids must be'],
    ['a negative id', drop([1, -2]), 'ids must be'],
    ['a fraction', drop([1.5]), 'ids must be'],
    ['an id as a string', drop(['1']), 'ids must be'],
    ['an unsafe integer', drop([2 ** 53]), 'ids must be'],
    ['too many ids', drop(Array.from({ length: MAX_DROPPED_NOTIFICATIONS + 1 }, (_, i) => i)), 'ids must be'],
    ['an upper-case address', drop([1], ALICE.toUpperCase().replace('0X', '0x')), 'account must be'],
    ['no account', drop([1], null), 'account must be'],
  ];
  for (const [name, cmd, detail] of cases) {
    const s = new Scenario(t).given(listMarket(), deposit(ALICE, 100), buy('o1', ALICE, YES, 10, 0.4));
    const before = exportSnapshot(s.engine);
    const events = s.when(cmd);
    t.equal(events.length, 1, name);
    t.match(events[0], { type: 'CommandRejected', command: 'DropNotifications', code: 'INVALID_COMMAND' }, name);
    t.match((events[0] as { message: string }).message, detail, name);
    t.same({ ...exportSnapshot(s.engine), seq: before.seq }, before, `${name}: nothing else changed`);
  }
});

t.test('the engine keeps no notification state: a drop moves the state as a refused command does', async (t) => {
  const setup = [listMarket(), deposit(ALICE, 100), buy('o1', ALICE, YES, 10, 0.4)];
  const dropped = new Engine();
  const refused = new Engine();
  for (const cmd of setup) {
    dropped.apply(cmd);
    refused.apply(cmd);
  }
  dropped.apply(drop([1, 2, 3]));
  refused.apply(drop([]));
  t.equal(dropped.stateHash(), refused.stateHash());
});

t.test('replay is deterministic: the same events and hash in a second engine and after a snapshot restore', async (t) => {
  const commands: Command[] = [
    listMarket(), deposit(ALICE, 100), drop([5, 5, 9]), buy('o1', ALICE, YES, 10, 0.4), drop([]), drop([2], ALICE, T0 + 1_000),
    { type: 'AdvanceTime', time: T0 + 2_000 }, drop([1, 2, 3], ALICE, T0 + 3_000),
  ];
  const first = new Engine();
  const events: EngineEvent[] = [];
  for (const cmd of commands) events.push(...first.apply(cmd));
  t.same(events.filter((e) => e.type === 'NotificationsDropped').map((e) => (e as { ids: readonly number[] }).ids), [[5, 9], [2], [1, 2, 3]]);

  const second = new Engine();
  const again: EngineEvent[] = [];
  for (const cmd of commands) again.push(...second.apply(cmd));
  t.equal(JSON.stringify(again), JSON.stringify(events), 'the same events');
  t.equal(second.stateHash(), first.stateHash());

  const half = new Engine();
  for (const cmd of commands.slice(0, 4)) half.apply(cmd);
  const resumed = restoreSnapshot(JSON.parse(JSON.stringify(exportSnapshot(half))) as EngineSnapshot);
  const tail: EngineEvent[] = [];
  for (const cmd of commands.slice(4)) tail.push(...resumed.apply(cmd));
  t.equal(JSON.stringify(tail), JSON.stringify(events.slice(-tail.length)), 'the same events after a restore');
  t.equal(resumed.stateHash(), first.stateHash());
});
