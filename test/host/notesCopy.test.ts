// The notifications' copy on the snapshot thread (host/snapshotStore.ts seedNotes/takeNotes,
// host/snapshotWorker.ts): seeded from the notifications' own snapshot bytes part-way through a varied history,
// and fed only by the events the engine's copy reproduces from the commands, it writes, at every later
// position, the very snapshot the notifications give there, under bounds that make them drop old ones. It
// refuses a position it does not hold, is not used once it failed, and is dropped when the engine's copy is
// seeded again. A NotificationStore with the copy writes its snapshots from it, and starts again from them; fed
// its batches in runs (deferred application), it takes each at the end of a run, the position the copy holds.

import t, { type Test } from 'tap';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../engine/index.js';
import type { LogRecord } from '../../log/eventLog.js';
import { SnapshotStore } from '../../host/snapshotStore.js';
import { NotificationState } from '../../projections/notifications/notificationState.js';
import { NotificationSnapshots, readSnapshot, snapshotBytes } from '../../projections/notifications/notificationSnapshots.js';
import { NotificationStore } from '../../projections/notifications/notificationStore.js';
import type { Deferral } from '../../projections/logTail.js';
import { sessionFor } from '../support/projectionFixtures.js';
import { MemoryLog, recordsFor } from '../support/records.js';

const OPTIONS = { maxPerAccount: 4, maxTotal: 25 };

for (const seed of [4, 11]) {
  t.test(`the copy writes the notifications' own snapshot at each position (history seed ${seed})`, async (t) => {
    const records = recordsFor(sessionFor(seed, 400));
    const dir = mkdtempSync(join(tmpdir(), 'notes-copy-'));
    const store = new SnapshotStore(join(dir, 'snapshots'));
    t.teardown(() => store.close());
    const engine = new Engine();
    const notes = new NotificationState(OPTIONS);
    const upTo = (end: number): typeof records => {
      const batch = records.slice(notes.pos, end);
      for (const r of batch) {
        engine.apply(r.command);
        notes.apply(r);
      }
      return batch;
    };
    upTo(60);
    t.equal(await store.follow(60, engine), true, "the engine's copy runs");
    store.followed(upTo(150));
    const seedPath = join(dir, 'notes', 'notes-150.v8');
    const seedBytes = snapshotBytes(notes);
    const expectedSeed = Buffer.from(seedBytes);
    const seeded = store.seedNotes(150, seedBytes, seedPath, OPTIONS);
    t.equal(store.followingNotes, true, 'the copy follows at once');
    store.followed(upTo(151));
    await seeded();
    t.ok(readFileSync(seedPath).equals(expectedSeed), 'the seed is written as the first snapshot');
    let compared = 0;
    for (const step of [1, 2, 7, 13, 40, 90, 150]) {
      const end = Math.min(notes.pos + step, records.length);
      store.followed(upTo(end));
      const path = join(dir, 'notes', `notes-${end}.v8`);
      const written = store.takeNotes(end, path);
      const expected = snapshotBytes(notes);
      store.followed(upTo(Math.min(end + 3, records.length)));
      await written();
      t.strictSame(readSnapshot(readFileSync(path)), readSnapshot(expected), `position ${end}: the notifications' own snapshot`);
      compared += 1;
      if (end === records.length) break;
    }
    t.ok(compared >= 5);
    t.ok([...notes.kept()].length > 0, 'notifications kept');

    await t.rejects(store.takeNotes(notes.pos - 1, join(dir, 'notes', 'x.v8'))(), { message: /notifications are at position/ }, 'a position the copy does not hold is refused');
    t.equal(store.followingNotes, false, 'and the copy is not used again');
    await t.rejects(store.takeNotes(notes.pos, join(dir, 'notes', 'y.v8'))(), { message: /their copy does not follow/ }, 'nor is it asked');
    await store.seedNotes(notes.pos, snapshotBytes(notes), join(dir, 'notes', 'again.v8'), OPTIONS)();
    t.equal(store.followingNotes, true, 'seeded again, it follows again');
    t.equal(await store.follow(notes.pos, engine), true);
    t.equal(store.followingNotes, false, "a new seed of the engine's copy drops it");
  });
}

t.test("a seed at a position the engine's copy does not hold is refused", async (t) => {
  const records = recordsFor(sessionFor(4, 200));
  const dir = mkdtempSync(join(tmpdir(), 'notes-copy-'));
  const store = new SnapshotStore(join(dir, 'snapshots'));
  t.teardown(() => store.close());
  const engine = new Engine();
  const notes = new NotificationState(OPTIONS);
  for (const r of records.slice(0, 100)) {
    engine.apply(r.command);
    notes.apply(r);
  }
  t.equal(await store.follow(100, engine), true);
  await t.rejects(store.seedNotes(99, snapshotBytes(notes), join(dir, 'notes', 'a.v8'), OPTIONS)(), { message: /the follower is at position 100, not 99/ });
  t.equal(store.followingNotes, false);
  const without = new SnapshotStore(join(dir, 'other'));
  t.teardown(() => without.close());
  await t.rejects(without.seedNotes(100, snapshotBytes(notes), join(dir, 'notes', 'b.v8'), OPTIONS)(), { message: /does not follow/ }, "without the engine's copy, no seed");
});

/**
 * A NotificationStore beside an engine whose copy on the snapshot thread follows from `from`, fed as the engine
 * host feeds them: `durable(batch)` hands every durable batch to the engine's copy, then to the store.
 */
async function storeWithCopy(
  t: Test,
  records: readonly LogRecord[],
  from: number,
  options: { readonly keep: number; readonly snapshotEvery: number; readonly defer?: Deferral },
): Promise<{ store: NotificationStore; files: NotificationSnapshots; engineSnapshots: SnapshotStore; log: MemoryLog; dir: string; snapshotErrors: unknown[]; durable: (batch: readonly LogRecord[]) => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'notes-store-'));
  const engineSnapshots = new SnapshotStore(join(dir, 'snapshots'));
  t.teardown(() => engineSnapshots.close());
  const log = new MemoryLog();
  const engine = new Engine();
  for (const r of records.slice(0, from)) engine.apply(r.command);
  await log.append(records.slice(0, from));
  t.equal(await engineSnapshots.follow(from, engine), true, "the engine's copy runs");
  const files = new NotificationSnapshots(join(dir, 'notifications'), options.keep);
  const snapshotErrors: unknown[] = [];
  const store = new NotificationStore(log, { ...OPTIONS, snapshots: files, snapshotEvery: options.snapshotEvery, copy: engineSnapshots, defer: options.defer, onSnapshotError: (e) => snapshotErrors.push(e) });
  await store.start();
  t.equal(engineSnapshots.followingNotes, true, 'start() seeds the copy');
  const durable = (batch: readonly LogRecord[]): void => {
    for (const r of batch) engine.apply(r.command);
    void log.append(batch);
    engineSnapshots.followed(batch);
    store.offer(batch);
  };
  return { store, files, engineSnapshots, log, dir, snapshotErrors, durable };
}

t.test('a NotificationStore with the copy takes its snapshots there, and starts again from them', async (t) => {
  const records = recordsFor(sessionFor(11, 400));
  const { store, files, engineSnapshots, log, snapshotErrors, durable } = await storeWithCopy(t, records, 50, { keep: 10, snapshotEvery: 60 });
  for (let at = 50; at < records.length; at += 9) durable(records.slice(at, Math.min(at + 9, records.length)));
  await store.close();
  t.same(snapshotErrors, []);
  t.equal(engineSnapshots.followingNotes, true, 'every snapshot came from the copy (a failed one would drop it)');
  const { snapshot } = await files.latest(log.lastPos);
  t.equal(snapshot?.pos, records.length, 'the last snapshot is at the last position');
  t.strictSame(snapshot, readSnapshot(snapshotBytes(store.state)), "the copy's snapshot is the store's state");
  const again = new NotificationStore(log, { ...OPTIONS, snapshots: files });
  t.same((await again.start()).snapshotPos, records.length, 'a new store starts from it');
  t.strictSame(readSnapshot(snapshotBytes(again.state)), readSnapshot(snapshotBytes(store.state)));
});

t.test('batches applied in runs: each snapshot is taken at the end of a run, where the copy is', async (t) => {
  const records = recordsFor(sessionFor(4, 400));
  // A run is three batches of 4 records; a snapshot falls due every 10 records, so within most runs.
  const { store, files, engineSnapshots, dir, snapshotErrors, durable } = await storeWithCopy(t, records, 20, { keep: 100, snapshotEvery: 10, defer: { ms: 60_000, records: 1_000 } });
  const taken = new Set<number>();
  for (let at = 20; at + 12 <= records.length; at += 12) {
    for (let b = at; b < at + 12; b += 4) durable(records.slice(b, b + 4));
    t.equal(store.state.pos, at + 12, 'a read applies the run');
    // Each run ends 12 records past the last snapshot, so one falls due (unless the one before is still being
    // written: one is written at a time). Its file is waited for before the next run.
    const path = files.pathOf(at + 12);
    for (let waited = 0; waited < 500 && !existsSync(path); waited += 5) await new Promise((r) => setTimeout(r, 5));
    if (existsSync(path)) taken.add(at + 12);
  }
  await store.close();
  t.same(snapshotErrors, [], 'no snapshot failed');
  t.equal(engineSnapshots.followingNotes, true, 'every snapshot came from the copy');
  const runs = Math.floor((records.length - 20) / 12);
  t.ok(taken.size >= runs / 2, `snapshots at the ends of ${taken.size} of ${runs} runs`);
  const written = readdirSync(join(dir, 'notifications')).map((name) => Number(/(\d+)/.exec(name)?.[1]));
  t.ok(written.length > taken.size, 'written files listed');
  t.same(written.filter((pos) => (pos - 20) % 12 !== 0), [], 'none at a position inside a run');
});
