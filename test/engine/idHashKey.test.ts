// The order-id table's hash key (Engine options.idHashKey) changes where ids sit and nothing else: the same
// commands give the same events and state hash under any key, a snapshot restores under another key, ids
// a trader ground to share their first 8 hex digits still spread over the table, and so do ids of the hash's
// shape that number themselves in their last digits.

import t from 'tap';
import { Engine, exportSnapshot, restoreSnapshot } from '../../engine/index.js';
import { orderIdHash } from '../../engine/orderIdHash.js';
import { sessionCommands } from '../support/records.js';

t.test('same events and state hash under any key', async (t) => {
  const commands = sessionCommands(600);
  const runs = [0, 1, 0x7fffffff, -123456789].map((idHashKey) => {
    const engine = new Engine(undefined, undefined, { idHashKey });
    const events = commands.map((c) => engine.apply(c));
    return { engine, events: JSON.stringify(events), hash: engine.stateHash() };
  });
  const [first, ...rest] = runs;
  for (const run of rest) {
    t.equal(run.events, first?.events, 'events');
    t.equal(run.hash, first?.hash, 'state hash');
  }
  // A snapshot taken under one key restores under another and goes on identically.
  const snapshot = exportSnapshot((runs[1] as (typeof runs)[number]).engine);
  const restored = restoreSnapshot(snapshot, undefined, { idHashKey: 42 });
  t.equal(restored.stateHash(), first?.hash, 'restored under another key');
  const more = sessionCommands(700).slice(600);
  const a = more.map((c) => (runs[0] as (typeof runs)[number]).engine.apply(c));
  const b = more.map((c) => restored.apply(c));
  t.same(b, a, 'and applies the next commands identically');
});

t.test('ids sharing their first 8 hex digits spread under a key', async (t) => {
  const slots = 1 << 16;
  const seen = new Set<number>();
  for (let i = 0; i < 4096; i++) {
    const id = '0x' + 'deadbeef' + i.toString(16).padStart(8, '0') + 'ab'.repeat(24);
    seen.add(orderIdHash(id, 0x1234567) & (slots - 1));
  }
  t.ok(seen.size > 3900, `4096 ids with one 8-digit prefix fill ${seen.size} distinct slots of ${slots}`);
  t.not(orderIdHash('0x' + 'ab'.repeat(32), 1), orderIdHash('0x' + 'ab'.repeat(32), 2), 'the key changes the hash');
});

t.test('ids numbered in their last digits spread', async (t) => {
  const slots = 1 << 16;
  const seen = new Set<number>();
  for (let i = 0; i < 4096; i++) seen.add(orderIdHash(`0xb0${i.toString(16).padStart(62, '0')}`, 0x1234567) & (slots - 1));
  t.ok(seen.size > 3900, `4096 ids 0xb0 + zeros + a counter fill ${seen.size} distinct slots of ${slots}`);
});
