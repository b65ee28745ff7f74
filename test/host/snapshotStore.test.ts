// host/snapshotStore.ts with its snapshot thread: the file it writes is exactly JSON.stringify of the
// SnapshotFile {format, pos, stateHash, engine} that the engine's thread would have written itself, with the
// hash of the live engine at that position; the thread's failure fails the write, and the next write works.

import t from 'tap';
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, exportSnapshot } from '../../engine/index.js';
import { SnapshotStore } from '../../host/snapshotStore.js';
import { sessionCommands } from '../support/records.js';

function engineAfter(count: number): Engine {
  const engine = new Engine();
  for (const command of sessionCommands(count)) engine.apply(command);
  return engine;
}

t.test('the file holds the export and the live state hash, as the engine thread would have written it', async (t) => {
  const store = new SnapshotStore(mkdtempSync(join(tmpdir(), 'snapshot-store-')));
  t.teardown(() => store.close());
  const engine = engineAfter(1_500);
  const exported = exportSnapshot(engine);
  const path = await store.write(1_500, exported);
  const expected = JSON.stringify({ format: 1, pos: 1_500, stateHash: engine.stateHash(), engine: exported });
  t.equal(readFileSync(path, 'utf8'), expected, 'byte for byte');
  const { snapshot } = await store.latest();
  t.equal(snapshot?.stateHash, engine.stateHash());
  t.equal(snapshot?.pos, 1_500);
});

t.test('a write that fails on the thread rejects; the store keeps working', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'snapshot-store-'));
  const store = new SnapshotStore(dir);
  t.teardown(() => store.close());
  const engine = engineAfter(200);
  // A directory where the thread writes the temporary file: its open() fails there.
  const blocker = join(dir, `snapshot-${'200'.padStart(20, '0')}.json.tmp`);
  mkdirSync(blocker);
  await t.rejects(store.write(200, exportSnapshot(engine)), { message: /EISDIR/ }, 'the snapshot that cannot be written rejects');
  rmdirSync(blocker);
  const path = await store.write(201, exportSnapshot(engine));
  t.match(path, /snapshot-0+201\.json$/, 'the next one is written');
  t.equal((await store.latest()).snapshot?.stateHash, engine.stateHash());
});
