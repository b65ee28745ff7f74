// Snapshot and restore: at a random point of a random session, export the state, send it through JSON (as
// the snapshot file does), restore it, and carry on with the rest of the commands on both engines: the
// hash right after restore and every later event must be identical.

import t from 'tap';
import fc from 'fast-check';
import { Engine, exportSnapshot, restoreSnapshot, referenceBookFactory, type EngineSnapshot } from '../../engine/index.js';
import { genesis, opsArb, toCommands } from './modelCommands.js';

const RUNS = Number(process.env.PMX_PROPERTY_RUNS ?? 40);

t.test('restore(export(engine)) continues exactly like the engine', async (t) => {
  fc.assert(
    fc.property(opsArb(300, 'negRisk'), fc.double({ min: 0, max: 1, noNaN: true }), (ops, cut) => {
      const commands = [...genesis('negRisk'), ...toCommands(ops)];
      const at = Math.floor(commands.length * cut);
      const original = new Engine();
      for (const cmd of commands.slice(0, at)) original.apply(cmd);
      const snapshot = JSON.parse(JSON.stringify(exportSnapshot(original))) as EngineSnapshot;
      const restored = restoreSnapshot(snapshot);
      if (restored.stateHash() !== original.stateHash()) throw new Error(`hash differs right after restore at ${at}`);
      if (restored.checkInvariants().length > 0) throw new Error(`restored state breaks invariants: ${restored.checkInvariants().join('; ')}`);
      for (const [i, cmd] of commands.slice(at).entries()) {
        const a = JSON.stringify(original.apply(cmd));
        const b = JSON.stringify(restored.apply(cmd));
        if (a !== b) throw new Error(`command ${at + i} (${cmd.type}) gave different events after restore\n${a}\n${b}`);
      }
      if (restored.stateHash() !== original.stateHash()) throw new Error('final hashes differ');
    }),
    { numRuns: RUNS },
  );
  t.pass(`${RUNS} random sessions`);
});

t.test('a snapshot restores into either book implementation', async (t) => {
  const [ops] = fc.sample(opsArb(300, 'negRisk'), { seed: 7, numRuns: 1 });
  const engine = new Engine();
  for (const cmd of [...genesis('negRisk'), ...toCommands(ops ?? [])]) engine.apply(cmd);
  t.ok(engine.state.live.size() > 0, `${engine.state.live.size()} open orders in the snapshot`);
  const restored = restoreSnapshot(exportSnapshot(engine), referenceBookFactory);
  t.equal(restored.stateHash(), engine.stateHash());
});

t.test('an unknown snapshot format is refused clearly', async (t) => {
  const snapshot = { ...exportSnapshot(new Engine()), format: 99 } as unknown as EngineSnapshot;
  t.throws(() => restoreSnapshot(snapshot), /snapshot format 99 is not supported/);
});
