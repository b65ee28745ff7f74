// The in-memory read model's copy on the snapshot thread (host/snapshotStore.ts seedLive/takeLive,
// host/snapshotWorker.ts): seeded from the model's own snapshot bytes part-way through a varied history, and fed
// only by the events the engine's copy reproduces from the commands, it writes, at every later position, the
// very snapshot the model itself gives there (the same values), under bounds that let fills and accounts go. It
// refuses a position it does not hold, is not used once it failed, and is dropped when the engine's copy is
// seeded again.

import t from 'tap';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../engine/index.js';
import { SnapshotStore } from '../../host/snapshotStore.js';
import { LiveState } from '../../projections/live/liveState.js';
import { readSnapshot, snapshotBytes } from '../../projections/live/liveSnapshot.js';
import { FEE_ACCOUNT, sessionFor } from '../support/projectionFixtures.js';
import { recordsFor } from '../support/records.js';

const OPTIONS = { feeAccount: FEE_ACCOUNT, maxAccountFills: 6, maxFills: 40, maxShownJson: 5, maxFinishedOrders: 10 };

for (const seed of [4, 11, 16]) {
  t.test(`the copy writes the model's own snapshot at each position (history seed ${seed})`, async (t) => {
    const records = recordsFor(sessionFor(seed, 400));
    const dir = mkdtempSync(join(tmpdir(), 'live-copy-'));
    const store = new SnapshotStore(join(dir, 'snapshots'));
    t.teardown(() => store.close());
    const engine = new Engine();
    const model = new LiveState(OPTIONS);
    const upTo = (end: number): typeof records => {
      const batch = records.slice(model.pos, end);
      for (const r of batch) {
        engine.apply(r.command);
        model.apply(r);
      }
      return batch;
    };
    upTo(60);
    t.equal(await store.follow(60, engine), true, "the engine's copy runs");
    store.followed(upTo(150));
    const seedPath = join(dir, 'live', 'live-150.v8');
    const seedBytes = snapshotBytes(model);
    const expectedSeed = Buffer.from(seedBytes);
    const seeded = store.seedLive(150, seedBytes, seedPath, OPTIONS);
    t.equal(store.followingLive, true, 'the copy follows at once');
    // The next batch's records go out before the seed is written: the copy is seeded at exactly 150.
    store.followed(upTo(151));
    await seeded();
    t.ok(readFileSync(seedPath).equals(expectedSeed), 'the seed is written as the first snapshot');
    let compared = 0;
    let lastPath = seedPath;
    for (const step of [1, 2, 7, 13, 40, 90, 150]) {
      const end = Math.min(model.pos + step, records.length);
      store.followed(upTo(end));
      const path = join(dir, 'live', `live-${end}.v8`);
      const written = store.takeLive(end, path);
      const expected = snapshotBytes(model);
      store.followed(upTo(Math.min(end + 3, records.length)));
      await written();
      const got = readFileSync(path);
      t.strictSame(readSnapshot(got), readSnapshot(expected), `position ${end}: the model's own snapshot (${got.length} bytes)`);
      lastPath = path;
      compared += 1;
      if (end === records.length) break;
    }
    t.ok(compared >= 5);
    const last = readSnapshot(readFileSync(lastPath));
    t.ok(last.fills.length > 0 && last.dropped.length > 0, `fills held (${last.fills.length}) and accounts that lost older ones (${last.dropped.length})`);
    t.ok(last.orders.length > 0 && last.positions.length > 0, 'open orders and positions');

    await t.rejects(store.takeLive(model.pos - 1, join(dir, 'live', 'x.v8'))(), { message: /read model is at position/ }, 'a position the copy does not hold is refused');
    t.equal(store.followingLive, false, 'and the copy is not used again');
    await t.rejects(store.takeLive(model.pos, join(dir, 'live', 'y.v8'))(), { message: /its copy does not follow/ }, 'nor is it asked');
    // Seeded again, it follows again; a new seed of the engine's copy drops it.
    await store.seedLive(model.pos, snapshotBytes(model), join(dir, 'live', 'again.v8'), OPTIONS)();
    t.equal(store.followingLive, true);
    await store.takeLive(model.pos, join(dir, 'live', 'z.v8'))();
    t.equal(await store.follow(model.pos, engine), true);
    t.equal(store.followingLive, false, "a new seed of the engine's copy drops the model's");
    await t.rejects(store.takeLive(model.pos, join(dir, 'live', 'w.v8'))(), { message: /does not follow/ });
  });
}

t.test("a seed at a position the engine's copy does not hold is refused", async (t) => {
  const records = recordsFor(sessionFor(4, 200));
  const dir = mkdtempSync(join(tmpdir(), 'live-copy-'));
  const store = new SnapshotStore(join(dir, 'snapshots'));
  t.teardown(() => store.close());
  const engine = new Engine();
  const model = new LiveState(OPTIONS);
  for (const r of records.slice(0, 100)) {
    engine.apply(r.command);
    model.apply(r);
  }
  t.equal(await store.follow(100, engine), true);
  const refused = store.seedLive(99, snapshotBytes(model), join(dir, 'live', 'a.v8'), OPTIONS);
  await t.rejects(refused(), { message: /the follower is at position 100, not 99/ });
  t.equal(store.followingLive, false);
  const without = new SnapshotStore(join(dir, 'other'));
  t.teardown(() => without.close());
  await t.rejects(without.seedLive(100, snapshotBytes(model), join(dir, 'live', 'b.v8'), OPTIONS)(), { message: /does not follow/ }, "without the engine's copy, no seed");
});
