// host/snapshotStore.ts with its snapshot thread: the file it writes is exactly JSON.stringify of the
// SnapshotFile {format, pos, stateHash, engine} that the engine's thread would have written itself, with the
// hash of the live engine at that position; the thread's failure fails the write, and the next write works.
// The thread's copy of the engine (follow/followed/writeFollowed) writes the very same file as the engine's
// own export at each position, and refuses a position it does not hold or a record it does not reproduce.

import t from 'tap';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, exportSnapshot } from '../../engine/index.js';
import { SnapshotStore } from '../../host/snapshotStore.js';
import { recordsFor, sessionCommands } from '../support/records.js';

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

t.test("the thread's copy of the engine, sent the durable records, writes the engine's own file at each position", async (t) => {
  const followedDir = mkdtempSync(join(tmpdir(), 'snapshot-followed-'));
  const followed = new SnapshotStore(followedDir);
  const exported = new SnapshotStore(mkdtempSync(join(tmpdir(), 'snapshot-exported-')));
  t.teardown(() => Promise.all([followed.close(), exported.close()]));
  const commands = sessionCommands(3_000);
  const engine = new Engine();
  // The copy starts from a state part-way through, as after a recovery.
  const head = recordsFor(commands.slice(0, 500), engine);
  t.equal(await followed.follow(500, engine), true, 'the copy runs');
  t.equal(head.length, 500);
  let pos = 500;
  for (const size of [1, 7, 250, 1_242, 1_000]) {
    const records = recordsFor(commands.slice(pos, pos + size), engine, pos + 1);
    followed.followed(records);
    pos += size;
    const [a, b] = await Promise.all([followed.writeFollowed(pos), exported.write(pos, exportSnapshot(engine))]);
    t.equal(readFileSync(a, 'utf8'), readFileSync(b, 'utf8'), `position ${pos}: the same file, byte for byte`);
  }
  await t.rejects(followed.writeFollowed(pos - 1), { message: /not 2999/ }, 'a position the copy does not hold is refused');

  // A record the copy does not reproduce (its logged sequence number differs): it stops giving snapshots.
  const next = recordsFor(commands.slice(0, 1), new Engine(), pos + 1);
  followed.followed(next.map((r) => ({ ...r, events: [{ ...r.events[0], seq: 1 } as (typeof r.events)[number]] })));
  await t.rejects(followed.writeFollowed(pos + 1), { message: /diverged at log position 3001/ });
  t.equal(readdirSync(followedDir).filter((n) => n.includes('00003001')).length, 0, 'and writes nothing');
  // Seeded again, it follows again.
  t.equal(await followed.follow(pos, engine), true);
  const path = await followed.writeFollowed(pos);
  t.equal(JSON.parse(readFileSync(path, 'utf8')).stateHash, engine.stateHash());
});

t.test("take() from the copy is at exactly its position, even when the next batch's records are sent at once", async (t) => {
  // The directory does not exist yet: nothing may be awaited before the copy is asked, or the next batch's
  // records would reach it first.
  const dir = join(mkdtempSync(join(tmpdir(), 'snapshot-take-')), 'snapshots');
  const store = new SnapshotStore(dir);
  t.teardown(() => store.close());
  const commands = sessionCommands(600);
  const engine = new Engine();
  t.equal(await store.follow(0, engine), true, 'the copy runs');
  const first = recordsFor(commands.slice(0, 300), engine, 1);
  store.followed(first);
  const hashAt300 = engine.stateHash();
  const written = store.take(300, engine);
  store.followed(recordsFor(commands.slice(300, 600), engine, 301));
  const path = await written();
  t.equal(JSON.parse(readFileSync(path, 'utf8')).stateHash, hashAt300, 'the snapshot at 300 holds the state at 300');
  t.equal(store.following, true, 'and the copy still follows');
  t.equal(JSON.parse(readFileSync(await store.take(600, engine)(), 'utf8')).stateHash, engine.stateHash(), 'the next is at 600');
});

t.test("pruning removes a crash's temporary files up to the snapshot written, not a later one being written", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'snapshot-prune-'));
  const store = new SnapshotStore(dir);
  t.teardown(() => store.close());
  const temp = (pos: number): string => `snapshot-${String(pos).padStart(20, '0')}.json.tmp`;
  for (const pos of [100, 900]) writeFileSync(join(dir, temp(pos)), 'partial');
  await store.write(500, exportSnapshot(engineAfter(50)));
  const left = readdirSync(dir).filter((n) => n.endsWith('.tmp'));
  t.same(left, [temp(900)], 'the earlier one is gone, the later one kept');
});
