// Signer authorisations in the engine (signature types 1 and 2): given/when/then for authorise and revoke,
// refusals that change nothing, queries, snapshot round trip, the state hash (unchanged for states without
// authorisations) and replay determinism.

import t from 'tap';
import { Engine, exportSnapshot, restoreSnapshot, type Command, type EngineEvent, type EngineSnapshot } from '../../engine/index.js';
import { BOOKS, Scenario, T0, YES, buy, deposit, listMarket, types } from './scenario.js';

const SAFE = '0x1111111111111111111111111111111111111111';
const PROXY = '0x2222222222222222222222222222222222222222';
const ALICE = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
const BOB = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
/** stateHash() of a small session without authorisations, as computed before they existed. */
const EXPECTED_PLAIN_HASH = '1a094d2b260595a0bd65db0e924f5ad58f67bd37fe65ac70fa6cf0acd980dd1f';

function authorize(maker: string, signer: string, time = T0): Command {
  return { type: 'AuthorizeSigner', time, maker, signer };
}

function revoke(maker: string, signer: string, time = T0): Command {
  return { type: 'RevokeSigner', time, maker, signer };
}

t.test('given no authorisation, when the operator authorises a signer, then SignerAuthorized and the pair is registered', async (t) => {
  const s = new Scenario(t);
  t.equal(s.engine.signerAuthorized(SAFE, ALICE), false);
  const events = s.when(authorize(SAFE, ALICE));
  t.same(events, [{ v: 1, seq: 1, time: T0, type: 'SignerAuthorized', maker: SAFE, signer: ALICE }]);
  t.equal(s.engine.signerAuthorized(SAFE, ALICE), true);
  t.equal(s.engine.signerAuthorized(ALICE, SAFE), false, 'the pair is directed');
  t.equal(s.engine.signerAuthorized(SAFE, BOB), false);
  t.same(s.engine.signersOf(SAFE), [ALICE]);
  t.same(s.engine.signersOf(ALICE), []);
});

t.test('a maker may have several signers and a signer several makers; lists are sorted', async (t) => {
  const s = new Scenario(t).given(authorize(SAFE, BOB), authorize(SAFE, ALICE), authorize(PROXY, ALICE));
  t.same(s.engine.signersOf(SAFE), [BOB, ALICE].sort());
  t.same(s.engine.signersOf(PROXY), [ALICE]);
  t.ok(s.engine.signerAuthorized(PROXY, ALICE) && s.engine.signerAuthorized(SAFE, ALICE) && s.engine.signerAuthorized(SAFE, BOB));
});

t.test('given an authorisation, when it is revoked, then SignerRevoked and only that pair goes', async (t) => {
  const s = new Scenario(t).given(authorize(SAFE, ALICE), authorize(SAFE, BOB), authorize(PROXY, ALICE));
  t.match(s.when(revoke(SAFE, ALICE)), [{ type: 'SignerRevoked', maker: SAFE, signer: ALICE }]);
  t.equal(s.engine.signerAuthorized(SAFE, ALICE), false);
  t.same(s.engine.signersOf(SAFE), [BOB]);
  t.equal(s.engine.signerAuthorized(PROXY, ALICE), true, "the signer's other maker is untouched");
  s.when(revoke(SAFE, BOB));
  t.same(s.engine.signersOf(SAFE), []);
  t.match(s.when(authorize(SAFE, ALICE)), [{ type: 'SignerAuthorized' }], 'a revoked pair can be authorised again');
});

t.test('re-authorising a pair and revoking a missing one are refused and change nothing but the sequence', async (t) => {
  const s = new Scenario(t).given(authorize(SAFE, ALICE));
  const hash = s.engine.stateHash();
  t.match(s.when(authorize(SAFE, ALICE)), [{
    type: 'CommandRejected', command: 'AuthorizeSigner', account: SAFE, code: 'SIGNER_ALREADY_AUTHORIZED',
    message: `signer ${ALICE} is already authorised for maker ${SAFE}`,
  }]);
  t.match(s.when(revoke(SAFE, BOB)), [{
    type: 'CommandRejected', command: 'RevokeSigner', account: SAFE, code: 'SIGNER_NOT_AUTHORIZED',
    message: `signer ${BOB} is not authorised for maker ${SAFE}`,
  }]);
  t.match(s.when(revoke(ALICE, SAFE)), [{ code: 'SIGNER_NOT_AUTHORIZED' }], 'the reverse pair is another pair');
  const twin = new Scenario(t).given(authorize(SAFE, ALICE));
  twin.when({ type: 'AdvanceTime', time: T0 });
  twin.engine.state.seq = s.engine.seq;
  t.equal(twin.engine.stateHash(), s.engine.stateHash(), 'the same state as before the refusals, but for the sequence');
  t.not(s.engine.stateHash(), hash, 'the sequence moved');
  t.same(s.engine.signersOf(SAFE), [ALICE]);
});

t.test('malformed signer commands are INVALID_COMMAND, never thrown', async (t) => {
  const s = new Scenario(t);
  const bad: [string, unknown][] = [
    ['checksummed maker', authorize('0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266', BOB)],
    ['checksummed signer', authorize(SAFE, '0xF39Fd6e51aad88F6F4ce6aB8827279cffFb92266')],
    ['short maker', authorize('0x1234', ALICE)],
    ['signer without 0x', authorize(SAFE, ALICE.slice(2))],
    ['maker as its own signer', authorize(SAFE, SAFE)],
    ['missing maker', { type: 'AuthorizeSigner', time: T0, signer: ALICE }],
    ['numeric signer', { type: 'AuthorizeSigner', time: T0, maker: SAFE, signer: 7 }],
    ['revoke without signer', { type: 'RevokeSigner', time: T0, maker: SAFE }],
    ['revoke of a maker as its own signer', revoke(SAFE, SAFE)],
  ];
  for (const [label, cmd] of bad) {
    const events = s.when(cmd as Command);
    t.match(events, [{ type: 'CommandRejected', code: 'INVALID_COMMAND', message: /^invalid command: / }], label);
  }
  t.equal(s.engine.state.signers.size, 0);
});

t.test('authorisations survive snapshot and restore with the same state hash', async (t) => {
  const s = new Scenario(t).given(listMarket(), deposit(SAFE, 10), authorize(SAFE, BOB), authorize(SAFE, ALICE), authorize(PROXY, ALICE), revoke(SAFE, BOB));
  const snapshot = JSON.parse(JSON.stringify(exportSnapshot(s.engine))) as EngineSnapshot;
  t.same(snapshot.signers, [[SAFE, ALICE], [PROXY, ALICE]]);
  const restored = restoreSnapshot(snapshot);
  t.equal(restored.stateHash(), s.engine.stateHash());
  t.same(restored.checkInvariants(), []);
  t.equal(restored.signerAuthorized(SAFE, ALICE), true);
  t.equal(restored.signerAuthorized(SAFE, BOB), false);
  t.match(restored.apply(authorize(SAFE, ALICE)), [{ code: 'SIGNER_ALREADY_AUTHORIZED' }]);
  t.same(exportSnapshot(restored).signers, snapshot.signers, 'a restored engine exports the same pairs');
});

t.test('a snapshot written before signer authorisations existed restores with none', async (t) => {
  const engine = new Engine();
  engine.apply(deposit(ALICE, 5));
  const { signers: _s, ...old } = exportSnapshot(engine);
  const restored = restoreSnapshot(old as EngineSnapshot);
  t.equal(restored.stateHash(), engine.stateHash());
  t.same(restored.signersOf(SAFE), []);
});

t.test('the state hash covers authorisations, ignores their order, and ignores them when there are none', async (t) => {
  const plain = new Engine();
  plain.apply(deposit(ALICE, 5));
  plain.apply(deposit(ALICE, 5));
  const beforeSigners = new Engine();
  beforeSigners.apply(deposit(ALICE, 5));
  beforeSigners.apply(authorize(SAFE, ALICE));
  t.not(beforeSigners.stateHash(), plain.stateHash(), 'a pair is state');

  const a = new Engine();
  a.apply(authorize(SAFE, ALICE));
  a.apply(authorize(SAFE, BOB));
  const b = new Engine();
  b.apply(authorize(SAFE, BOB));
  b.apply(authorize(SAFE, ALICE));
  t.equal(a.stateHash(), b.stateHash(), 'the same pairs in another order are the same state');
  const c = new Engine();
  c.apply(authorize(SAFE, ALICE));
  c.apply(authorize(PROXY, BOB));
  t.not(c.stateHash(), a.stateHash(), 'other pairs, another state');

  // Authorised then revoked: exactly the hash of an engine that never had one, at the same sequence.
  const d = new Engine();
  d.apply(deposit(ALICE, 5));
  d.apply(authorize(SAFE, ALICE));
  d.apply(revoke(SAFE, ALICE));
  const e = new Engine();
  e.apply(deposit(ALICE, 5));
  e.apply({ type: 'Withdraw', time: T0, account: ALICE, amount: 0 });
  e.apply({ type: 'Withdraw', time: T0, account: ALICE, amount: 0 });
  t.equal(d.seq, e.seq);
  t.equal(d.stateHash(), e.stateHash(), 'no pairs: the hash is that of a state without the feature');
});

t.test('the state hash of a state without authorisations is what it was before they existed', async (t) => {
  const engine = new Engine();
  engine.apply(listMarket());
  engine.apply(deposit(ALICE, 100));
  engine.apply(buy('o1', ALICE, YES, 10, 0.4));
  t.equal(engine.stateHash(), EXPECTED_PLAIN_HASH);
});

t.test('replay is deterministic: the same commands give the same events and hash with either book, and after a restore', async (t) => {
  const commands: Command[] = [
    listMarket(), deposit(SAFE, 100), authorize(SAFE, ALICE), authorize(SAFE, BOB), authorize(SAFE, ALICE),
    buy('o1', SAFE, YES, 10, 0.4), revoke(SAFE, BOB), revoke(SAFE, BOB), authorize(PROXY, ALICE),
    { type: 'AdvanceTime', time: T0 + 1000 }, revoke(PROXY, ALICE, T0 + 2000), authorize(PROXY, BOB, T0 + 3000),
  ];
  const runs = BOOKS.map(([, factory]) => {
    const engine = new Engine(undefined, factory);
    const events: EngineEvent[] = [];
    for (const cmd of commands) events.push(...engine.apply(cmd));
    return { engine, events };
  });
  const [fast, reference] = runs as [(typeof runs)[0], (typeof runs)[0]];
  t.same(types(fast.events).filter((x) => x.startsWith('Signer')), ['SignerAuthorized', 'SignerAuthorized', 'SignerRevoked', 'SignerAuthorized', 'SignerRevoked', 'SignerAuthorized']);
  t.equal(JSON.stringify(reference.events), JSON.stringify(fast.events), 'same events with the reference book');
  t.equal(reference.engine.stateHash(), fast.engine.stateHash());

  // Replay the log into a fresh engine, and from a snapshot taken half-way.
  const replayed = new Engine();
  for (const cmd of commands) replayed.apply(cmd);
  t.equal(replayed.stateHash(), fast.engine.stateHash(), 'full replay');
  const half = new Engine();
  for (const cmd of commands.slice(0, 6)) half.apply(cmd);
  const resumed = restoreSnapshot(JSON.parse(JSON.stringify(exportSnapshot(half))) as EngineSnapshot);
  const tail: EngineEvent[] = [];
  for (const cmd of commands.slice(6)) tail.push(...resumed.apply(cmd));
  t.equal(JSON.stringify(tail), JSON.stringify(fast.events.slice(-tail.length)), 'the same events after a restore');
  t.equal(resumed.stateHash(), fast.engine.stateHash(), 'snapshot + replay');
  t.same(resumed.signersOf(SAFE), [ALICE]);
  t.same(resumed.signersOf(PROXY), [BOB]);
});

t.test('the invariants notice a broken signer table', async (t) => {
  const s = new Scenario(t).given(authorize(SAFE, ALICE));
  (s.engine.state.signers as unknown as { pairs: number }).pairs = 5;
  const problems = s.engine.checkInvariants();
  t.ok(problems.some((p) => p.startsWith('signers:')), problems.join('; '));
});
