// Read-only and builder API key ownership in the engine: given/when/then for create and revoke, the bound per
// address, refusals, snapshot round trip, replay to the same state hash (and unchanged hashes without keys).

import t from 'tap';
import { Engine, MAX_ACCESS_KEYS, exportSnapshot, restoreSnapshot, type AccessKeyKind, type Command, type EngineSnapshot } from '../../engine/index.js';
import { Scenario, T0, deposit, listMarket, types } from './scenario.js';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const KEY_1 = '11111111-1111-4111-8111-111111111111';
const KEY_2 = '22222222-2222-4222-9222-222222222222';
const KEY_3 = '33333333-3333-4333-a333-333333333333';

/** The n-th distinct UUID v4 of a test. */
function keyNo(n: number): string {
  return `${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;
}

function create(kind: AccessKeyKind, address: string, key: string, time = T0): Command {
  return { type: 'CreateAccessKey', time, kind, address, key };
}

function revoke(kind: AccessKeyKind, address: string, key: string, time = T0): Command {
  return { type: 'RevokeAccessKey', time, kind, address, key };
}

t.test('given no keys, when an address creates a read-only key, then AccessKeyCreated and the key is live', async (t) => {
  const s = new Scenario(t);
  const events = s.when(create('readonly', ALICE, KEY_1, T0 + 5));
  t.match(events, [{ type: 'AccessKeyCreated', v: 1, seq: 1, time: T0 + 5, kind: 'readonly', address: ALICE, key: KEY_1 }]);
  t.same(s.engine.accessKey(KEY_1), { kind: 'readonly', address: ALICE, createdAt: T0 + 5 });
  t.same(s.engine.accessKeysOf('readonly', ALICE), [{ key: KEY_1, createdAt: T0 + 5 }]);
  t.same(s.engine.accessKeysOf('builder', ALICE), [], 'kinds are listed apart');
  t.equal(s.engine.apiKey(KEY_1), undefined, 'not an L2 key');
});

t.test('given keys of both kinds, when one is revoked, then AccessKeyRevoked and it is forgotten', async (t) => {
  const s = new Scenario(t).given(create('readonly', ALICE, KEY_1), create('builder', ALICE, KEY_2, T0 + 1), create('builder', BOB, KEY_3));
  t.match(s.when(revoke('builder', ALICE, KEY_2)), [{ type: 'AccessKeyRevoked', kind: 'builder', address: ALICE, key: KEY_2 }]);
  t.equal(s.engine.accessKey(KEY_2), undefined);
  t.same(s.engine.accessKeysOf('builder', ALICE), []);
  t.same(s.engine.accessKeysOf('readonly', ALICE), [{ key: KEY_1, createdAt: T0 }]);
  t.same(s.engine.accessKeysOf('builder', BOB), [{ key: KEY_3, createdAt: T0 + 1 }], "Bob's key survives (created at engine time, which never runs back)");
});

t.test('revoking what is not a live key of that kind and address is ACCESS_KEY_NOT_FOUND, alike', async (t) => {
  const s = new Scenario(t).given(create('readonly', ALICE, KEY_1), create('builder', BOB, KEY_2), create('readonly', ALICE, KEY_3), revoke('readonly', ALICE, KEY_3));
  const hash = s.engine.stateHash();
  for (const [label, cmd, kind] of [
    ['unknown key', revoke('readonly', ALICE, keyNo(99)), 'readonly'],
    ["another address's key", revoke('builder', ALICE, KEY_2), 'builder'],
    ['another kind', revoke('builder', ALICE, KEY_1), 'builder'],
    ['already revoked', revoke('readonly', ALICE, KEY_3), 'readonly'],
  ] as const) {
    t.match(s.when(cmd), [{ type: 'CommandRejected', command: 'RevokeAccessKey', account: ALICE, code: 'ACCESS_KEY_NOT_FOUND', message: `${kind} API key not found` }], label);
  }
  t.same(s.engine.accessKeysOf('readonly', ALICE).map((k) => k.key), [KEY_1]);
  s.when({ type: 'AdvanceTime', time: T0 });
  t.not(s.engine.stateHash(), hash, 'only the sequence moved');
});

t.test('a key in use (either kind, or an L2 API key) is ACCESS_KEY_EXISTS', async (t) => {
  const s = new Scenario(t).given(create('readonly', ALICE, KEY_1), { type: 'CreateApiKey', time: T0, address: BOB, nonce: '0', apiKey: KEY_2 });
  t.match(s.when(create('readonly', BOB, KEY_1)), [{ type: 'CommandRejected', code: 'ACCESS_KEY_EXISTS', message: 'Could not create api key' }]);
  t.match(s.when(create('builder', ALICE, KEY_1)), [{ code: 'ACCESS_KEY_EXISTS' }], 'the same key as the other kind');
  t.match(s.when(create('builder', BOB, KEY_2)), [{ code: 'ACCESS_KEY_EXISTS' }], 'an L2 key');
});

t.test(`at most ${MAX_ACCESS_KEYS} live keys of each kind per address; a revoke makes room`, async (t) => {
  const s = new Scenario(t);
  for (let i = 0; i < MAX_ACCESS_KEYS; i++) s.given(create('readonly', ALICE, keyNo(i)));
  const [refusal] = s.when(create('readonly', ALICE, keyNo(100)));
  t.match(refusal, { type: 'CommandRejected', command: 'CreateAccessKey', code: 'ACCESS_KEY_LIMIT', message: `Could not create api key: at most ${MAX_ACCESS_KEYS} readonly API keys per address; delete one first` });
  t.same(types(s.when(create('builder', ALICE, keyNo(101)))), ['AccessKeyCreated'], 'the other kind has its own bound');
  t.same(types(s.when(create('readonly', BOB, keyNo(102)))), ['AccessKeyCreated'], 'another address has its own bound');
  s.given(revoke('readonly', ALICE, keyNo(3)));
  t.same(types(s.when(create('readonly', ALICE, keyNo(100)))), ['AccessKeyCreated']);
  t.equal(s.engine.accessKeysOf('readonly', ALICE).length, MAX_ACCESS_KEYS);
  t.equal(s.engine.accessKeysOf('readonly', ALICE).at(-1)?.key, keyNo(100), 'oldest first');
});

t.test('a create stamped with its signed request is applied once: a replay is refused, a refused create may come again', async (t) => {
  const request = { id: 'a'.repeat(64), signedAt: T0, until: T0 + 31_000 };
  const s = new Scenario(t);
  t.same(types(s.when({ ...create('readonly', ALICE, KEY_1), request } as Command)), ['AccessKeyCreated']);
  t.match(s.when({ ...create('readonly', ALICE, KEY_2), request } as Command), [{ type: 'CommandRejected', command: 'CreateAccessKey', account: ALICE, code: 'REQUEST_REPLAYED' }]);
  t.same(s.engine.accessKeysOf('readonly', ALICE).map((k) => k.key), [KEY_1]);
  const other = { id: 'b'.repeat(64), signedAt: T0, until: T0 + 31_000 };
  t.match(s.when({ ...create('readonly', ALICE, KEY_1), request: other } as Command), [{ code: 'ACCESS_KEY_EXISTS' }]);
  t.same(types(s.when({ ...create('builder', ALICE, KEY_3), request: other } as Command)), ['AccessKeyCreated'], 'the refused request was not remembered');
  t.match(s.when({ ...create('builder', ALICE, keyNo(7), T0 + 31_000), request: { id: 'c'.repeat(64), signedAt: T0, until: T0 + 31_000 } } as Command), [{ code: 'REQUEST_STALE' }], 'past its window');
});

t.test('malformed access key commands are INVALID_COMMAND, never thrown', async (t) => {
  const s = new Scenario(t);
  const bad: [string, unknown][] = [
    ['unknown kind', { ...create('readonly', ALICE, KEY_1), kind: 'admin' }],
    ['missing kind', { type: 'CreateAccessKey', time: T0, address: ALICE, key: KEY_1 }],
    ['checksummed address', create('readonly', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', KEY_1)],
    ['upper-case key', create('builder', ALICE, KEY_3.toUpperCase())],
    ['not a v4 uuid', create('builder', ALICE, '11111111-1111-1111-8111-111111111111')],
    ['revoke with numeric key', { type: 'RevokeAccessKey', time: T0, kind: 'readonly', address: ALICE, key: 7 }],
    ['revoke without address', { type: 'RevokeAccessKey', time: T0, kind: 'readonly', key: KEY_1 }],
  ];
  for (const [label, cmd] of bad) t.match(s.when(cmd as Command), [{ type: 'CommandRejected', code: 'INVALID_COMMAND' }], label);
  t.equal(s.engine.state.accessKeys.size, 0);
});

t.test('keys survive snapshot and restore, with the same state hash and behaviour', async (t) => {
  const s = new Scenario(t).given(listMarket(), deposit(ALICE, 10), create('readonly', ALICE, KEY_1), create('builder', ALICE, KEY_2, T0 + 7), create('readonly', BOB, KEY_3), revoke('readonly', BOB, KEY_3));
  const snapshot = JSON.parse(JSON.stringify(exportSnapshot(s.engine))) as EngineSnapshot;
  t.same(snapshot.accessKeys, [[KEY_1, 'readonly', ALICE, T0], [KEY_2, 'builder', ALICE, T0 + 7]]);
  const restored = restoreSnapshot(snapshot);
  t.equal(restored.stateHash(), s.engine.stateHash());
  t.same(restored.checkInvariants(), []);
  t.same(restored.accessKeysOf('builder', ALICE), [{ key: KEY_2, createdAt: T0 + 7 }]);
  const next = revoke('readonly', ALICE, KEY_1, T0 + 9);
  t.same(restored.apply(next), s.engine.apply(next), 'the same events after restore');
  t.equal(restored.stateHash(), s.engine.stateHash());
});

t.test('a snapshot without keys has no accessKeys field, and one from before they existed restores with none', async (t) => {
  const engine = new Engine();
  engine.apply(deposit(ALICE, 5));
  const snapshot = exportSnapshot(engine);
  t.equal('accessKeys' in snapshot, false);
  const restored = restoreSnapshot(snapshot);
  t.equal(restored.stateHash(), engine.stateHash());
  t.same(restored.accessKeysOf('readonly', ALICE), []);
});

t.test('replaying the commands gives the same events and state hash; keys change the hash only when present', async (t) => {
  const commands: Command[] = [
    deposit(ALICE, 5),
    create('readonly', ALICE, KEY_1),
    create('builder', ALICE, KEY_2, T0 + 3),
    create('readonly', ALICE, KEY_1),
    revoke('builder', ALICE, KEY_2, T0 + 4),
    create('builder', BOB, KEY_3, T0 + 5),
  ];
  const live = new Engine();
  const replay = new Engine();
  const liveEvents = commands.map((c) => live.apply(c));
  t.same(commands.map((c) => replay.apply(JSON.parse(JSON.stringify(c)) as Command)), liveEvents, 'commands from the log (JSON) decide alike');
  t.equal(replay.stateHash(), live.stateHash());

  const none = new Engine();
  none.apply(deposit(ALICE, 5));
  const revoked = new Engine();
  revoked.apply(deposit(ALICE, 5));
  revoked.apply(create('readonly', ALICE, KEY_1));
  revoked.apply(revoke('readonly', ALICE, KEY_1));
  const refused = new Engine();
  refused.apply(deposit(ALICE, 5));
  refused.apply(revoke('readonly', ALICE, KEY_1));
  refused.apply(revoke('readonly', ALICE, KEY_1));
  t.equal(revoked.stateHash(), refused.stateHash(), 'a revoked key leaves nothing behind');
  t.not(none.stateHash(), revoked.stateHash(), 'only the sequence differs from no command at all');
  const other = new Engine();
  other.apply(deposit(ALICE, 5));
  other.apply(create('readonly', ALICE, KEY_2));
  const same = new Engine();
  same.apply(deposit(ALICE, 5));
  same.apply(create('readonly', ALICE, KEY_1));
  t.not(other.stateHash(), same.stateHash(), 'a different key is a different state');
});

t.test('the invariants notice a broken key index', async (t) => {
  const s = new Scenario(t).given(create('readonly', ALICE, KEY_1));
  s.engine.state.accessKeys.live.set(KEY_2, { kind: 'builder', address: BOB, createdAt: T0 });
  const problems = s.engine.checkInvariants();
  t.ok(problems.some((p) => p.includes(KEY_2)), problems.join('; '));
});
