// API key ownership in the engine: given/when/then for create and delete, slots that never reopen, queries,
// snapshot round trip and the state hash (unchanged for states without keys).

import t from 'tap';
import { Engine, exportSnapshot, restoreSnapshot, type Command, type EngineSnapshot } from '../../engine/index.js';
import { Scenario, T0, deposit, listMarket, ofType, types } from './scenario.js';

const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const KEY_A0 = '11111111-1111-4111-8111-111111111111';
const KEY_A1 = '22222222-2222-4222-9222-222222222222';
const KEY_B0 = '33333333-3333-4333-a333-333333333333';

function create(address: string, nonce: string, apiKey: string, time = T0): Command {
  return { type: 'CreateApiKey', time, address, nonce, apiKey };
}

function remove(apiKey: string, address: string, time = T0): Command {
  return { type: 'DeleteApiKey', time, apiKey, address };
}

t.test('given no keys, when an address creates one, then ApiKeyCreated and the key is live', async (t) => {
  const s = new Scenario(t);
  const events = s.when(create(ALICE, '0', KEY_A0));
  t.match(events, [{ type: 'ApiKeyCreated', v: 1, seq: 1, time: T0, address: ALICE, nonce: '0', apiKey: KEY_A0 }]);
  t.same(s.engine.apiKey(KEY_A0), { address: ALICE, nonce: '0' });
  t.same(s.engine.apiKeysOf(ALICE), [KEY_A0]);
  t.same(s.engine.apiKeyOfSlot(ALICE, '0'), { apiKey: KEY_A0, live: true });
  t.equal(JSON.stringify(events).includes('secret'), false, 'no secret in the event');
});

t.test('given a key, when the same slot is created again, then API_KEY_EXISTS and nothing changes', async (t) => {
  const s = new Scenario(t).given(create(ALICE, '0', KEY_A0));
  const hash = s.engine.stateHash();
  const [refusal] = s.when(create(ALICE, '0', KEY_A1));
  t.match(refusal, { type: 'CommandRejected', command: 'CreateApiKey', account: ALICE, code: 'API_KEY_EXISTS', message: 'Could not create api key' });
  const [again] = s.when(create(BOB, '0', KEY_A0));
  t.match(again, { code: 'API_KEY_EXISTS' }, 'a key already in use for another slot is refused too');
  t.same(s.engine.apiKeysOf(ALICE), [KEY_A0]);
  t.same(s.engine.apiKeysOf(BOB), []);
  s.when({ type: 'AdvanceTime', time: T0 });
  t.not(s.engine.stateHash(), hash, 'only the sequence moved');
  t.equal(s.engine.apiKeyOfSlot(ALICE, '0')?.apiKey, KEY_A0);
});

t.test('given two keys of an address, when one is deleted, then ApiKeyDeleted and the other stays', async (t) => {
  const s = new Scenario(t).given(create(ALICE, '0', KEY_A0), create(ALICE, '1', KEY_A1), create(BOB, '0', KEY_B0));
  t.same(s.engine.apiKeysOf(ALICE), [KEY_A0, KEY_A1], 'oldest first');
  t.match(s.when(remove(KEY_A0, ALICE)), [{ type: 'ApiKeyDeleted', address: ALICE, nonce: '0', apiKey: KEY_A0 }]);
  t.equal(s.engine.apiKey(KEY_A0), undefined);
  t.same(s.engine.apiKeysOf(ALICE), [KEY_A1]);
  t.same(s.engine.apiKeyOfSlot(ALICE, '0'), { apiKey: KEY_A0, live: false });
});

t.test('a deleted slot never reopens and a deleted key never comes back', async (t) => {
  const s = new Scenario(t).given(create(ALICE, '0', KEY_A0), remove(KEY_A0, ALICE));
  t.match(s.when(create(ALICE, '0', KEY_A0)), [{ type: 'CommandRejected', code: 'API_KEY_EXISTS' }], 'same slot, same key');
  t.match(s.when(create(ALICE, '0', KEY_A1)), [{ type: 'CommandRejected', code: 'API_KEY_EXISTS' }], 'same slot, other key');
  t.match(s.when(create(ALICE, '5', KEY_A0)), [{ type: 'CommandRejected', code: 'API_KEY_EXISTS' }], 'other slot, deleted key');
  t.match(s.when(create(ALICE, '1', KEY_A1)), [{ type: 'ApiKeyCreated', nonce: '1' }], 'a new nonce works');
});

t.test('deleting a key that is not a live key of that address is refused alike', async (t) => {
  const s = new Scenario(t).given(create(ALICE, '0', KEY_A0), create(BOB, '0', KEY_B0), create(ALICE, '1', KEY_A1), remove(KEY_A1, ALICE));
  for (const [label, cmd] of [
    ['unknown key', remove('44444444-4444-4444-8444-444444444444', ALICE)],
    ["another address's key", remove(KEY_B0, ALICE)],
    ['already deleted', remove(KEY_A1, ALICE)],
    ['not even a UUID', remove('nope', ALICE)],
  ] as const) {
    t.match(s.when(cmd), [{ type: 'CommandRejected', command: 'DeleteApiKey', account: ALICE, code: 'API_KEY_NOT_FOUND', message: 'Could not delete API key' }], label);
  }
  t.same(s.engine.apiKeysOf(BOB), [KEY_B0], "Bob's key survives");
});

t.test('malformed key commands are INVALID_COMMAND, never thrown', async (t) => {
  const s = new Scenario(t);
  const bad: [string, unknown][] = [
    ['checksummed address', create('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', '0', KEY_A0)],
    ['short address', create('0x1234', '0', KEY_A0)],
    ['missing address', { type: 'CreateApiKey', time: T0, nonce: '0', apiKey: KEY_A0 }],
    ['numeric nonce', { ...create(ALICE, '0', KEY_A0), nonce: 0 }],
    ['leading zero nonce', create(ALICE, '01', KEY_A0)],
    ['negative nonce', create(ALICE, '-1', KEY_A0)],
    ['nonce of 2^256', create(ALICE, (2n ** 256n).toString(), KEY_A0)],
    ['upper-case key', create(ALICE, '0', KEY_B0.toUpperCase())],
    ['not a v4 uuid', create(ALICE, '0', '11111111-1111-1111-8111-111111111111')],
    ['delete without address', { type: 'DeleteApiKey', time: T0, apiKey: KEY_A0 }],
    ['delete with numeric key', { type: 'DeleteApiKey', time: T0, apiKey: 7, address: ALICE }],
  ];
  for (const [label, cmd] of bad) {
    const events = s.when(cmd as Command);
    t.match(events, [{ type: 'CommandRejected', code: 'INVALID_COMMAND' }], label);
  }
  t.same(types(s.when(create(ALICE, (2n ** 256n - 1n).toString(), KEY_A0))), ['ApiKeyCreated'], 'the largest uint256 nonce is fine');
});

t.test('keys survive snapshot and restore, tombstones included, with the same state hash', async (t) => {
  const s = new Scenario(t).given(listMarket(), deposit(ALICE, 10), create(ALICE, '0', KEY_A0), create(ALICE, '1', KEY_A1), create(BOB, '0', KEY_B0), remove(KEY_A1, ALICE));
  const snapshot = JSON.parse(JSON.stringify(exportSnapshot(s.engine))) as EngineSnapshot;
  t.same(snapshot.apiKeys, [[KEY_A0, ALICE, '0'], [KEY_B0, BOB, '0']]);
  t.same(snapshot.deletedApiKeys, [[KEY_A1, ALICE, '1']]);
  const restored = restoreSnapshot(snapshot);
  t.equal(restored.stateHash(), s.engine.stateHash());
  t.same(restored.checkInvariants(), []);
  t.same(restored.apiKeysOf(ALICE), [KEY_A0]);
  t.match(restored.apply(create(ALICE, '1', KEY_A1)), [{ code: 'API_KEY_EXISTS' }], 'the deleted slot stays closed after restore');
});

t.test('a snapshot written before API keys existed restores with none', async (t) => {
  const engine = new Engine();
  engine.apply(deposit(ALICE, 5));
  const { apiKeys: _a, deletedApiKeys: _d, ...old } = exportSnapshot(engine);
  const restored = restoreSnapshot(old as EngineSnapshot);
  t.equal(restored.stateHash(), engine.stateHash());
  t.same(restored.apiKeysOf(ALICE), []);
});

t.test('the state hash covers keys and tombstones, and ignores them when there are none', async (t) => {
  const a = new Engine();
  const b = new Engine();
  a.apply(deposit(ALICE, 5));
  b.apply(deposit(ALICE, 5));
  t.equal(a.stateHash(), b.stateHash());
  a.apply(create(ALICE, '0', KEY_A0));
  b.apply(create(ALICE, '0', KEY_A1));
  t.not(a.stateHash(), b.stateHash(), 'a different key is a different state');
  const c = new Engine();
  c.apply(deposit(ALICE, 5));
  c.apply(create(ALICE, '0', KEY_A0));
  c.apply(remove(KEY_A0, ALICE));
  const d = new Engine();
  d.apply(deposit(ALICE, 5));
  d.apply(remove(KEY_A0, ALICE));
  d.apply(remove(KEY_A0, ALICE));
  t.equal(c.seq, d.seq, 'same sequence: d had two refusals, no key');
  t.not(c.stateHash(), d.stateHash(), 'a tombstone is state');
});

t.test('the invariants notice a broken key index', async (t) => {
  const s = new Scenario(t).given(create(ALICE, '0', KEY_A0));
  s.engine.state.apiKeys.live.set(KEY_B0, { address: BOB, nonce: '0' });
  const problems = s.engine.checkInvariants();
  t.ok(problems.some((p) => p.includes(KEY_B0)), problems.join('; '));
  t.equal(ofType(s.engine.apply(create(BOB, '9', KEY_B0)), 'CommandRejected')[0]?.code, 'API_KEY_EXISTS');
});
