// The engine host over the embedded journal: replies only after the append, one append per batch,
// retries that cannot duplicate, a fatal append stops the engine, snapshots + replay reproduce the live
// state hash, a snapshot that does not restore to its recorded hash refuses start-up, and poll() moves a
// command along between requests.

import t from 'tap';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ENGINE_CONFIG, Engine, exportSnapshot } from '../../engine/index.js';
import { Journal } from '../../log/journal/journal.js';
import type { LogRecord } from '../../log/eventLog.js';
import { EngineHost, EngineStoppedError, type Submission } from '../../host/engineHost.js';
import { SnapshotStore } from '../../host/snapshotStore.js';
import { recover, RecoveryError } from '../../host/recovery.js';
import { ScriptedLog } from '../support/logWrappers.js';
import { sessionCommands } from '../support/records.js';

let clock = 1_700_000_000_000;
const tick = (): number => (clock += 1);

function submissions(count: number): Submission[] {
  return sessionCommands(count).map(({ time: _time, ...rest }) => rest as Submission);
}

async function setup(dir = mkdtempSync(join(tmpdir(), 'host-'))) {
  const journal = await Journal.open({ dir: join(dir, 'journal'), segmentBytes: 1 << 20 });
  const log = new ScriptedLog(journal);
  const store = new SnapshotStore(join(dir, 'snapshots'));
  return { dir, journal, log, store };
}

async function allRecords(journal: Journal): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for await (const r of journal.read(1)) out.push(r);
  return out;
}

t.test('a reply leaves only after its records are durable', async (t) => {
  const { journal, log } = await setup();
  const host = new EngineHost(new Engine(), log, { maxBatch: 100, clock: tick });
  log.hold();
  let replied = false;
  const reply = host.submit(submissions(1)[0] as Submission).then((events) => {
    replied = true;
    t.ok(journal.lastPos >= 1, 'the record is in the journal when the reply is released');
    return events;
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.notOk(replied, 'no reply while the append is held');
  t.equal(journal.lastPos, 0);
  log.release();
  const events = await reply;
  t.match(events, [{ type: 'MarketListed' }]);
  await journal.close();
});

t.test('a batch of commands is one append', async (t) => {
  const { journal, log } = await setup();
  const host = new EngineHost(new Engine(), log, { maxBatch: 1000, clock: tick });
  const replies = submissions(300).map((s) => host.submit(s));
  await Promise.all(replies);
  t.equal(log.appendCalls, 1, 'one append (one fsync) for 300 commands submitted in one turn');
  t.equal(journal.lastPos, 300);
  const more = submissions(301).slice(300).map((s) => host.submit(s));
  await Promise.all(more);
  t.equal(log.appendCalls, 2);
  await journal.close();
});

t.test('an append that lands but reports failure is retried without duplicates', async (t) => {
  const { journal, log } = await setup();
  const host = new EngineHost(new Engine(), log, { maxBatch: 100, clock: tick, retryDelayMs: 1 });
  log.script = ['land-then-fail', 'fail'];
  const replies = await Promise.all(submissions(20).map((s) => host.submit(s)));
  t.equal(replies.length, 20, 'every command was answered');
  t.equal(log.appendCalls, 3, 'two failures, then success');
  const records = await allRecords(journal);
  t.same(records.map((r) => r.pos), Array.from({ length: 20 }, (_, i) => i + 1), 'each record once');
  await journal.close();
});

t.test('an append that fails for good stops the engine; nothing unlogged is acknowledged', async (t) => {
  const { journal, log } = await setup();
  let stoppedWith: Error | undefined;
  const host = new EngineHost(new Engine(), log, { maxBatch: 100, clock: tick, onStop: (e) => (stoppedWith = e) });
  await Promise.all(submissions(5).map((s) => host.submit(s)));
  log.script = ['fatal'];
  const results = await Promise.allSettled(submissions(10).slice(5).map((s) => host.submit(s)));
  t.ok(results.every((r) => r.status === 'rejected' && r.reason instanceof EngineStoppedError), 'the unlogged batch is refused, not acknowledged');
  t.match(stoppedWith?.message, /disk is gone/);
  await t.rejects(host.submit(submissions(11)[10] as Submission), EngineStoppedError, 'later commands are refused');
  t.equal(journal.lastPos, 5);
  await journal.close();
});

t.test('recovery replays up to the end it took at the start, though the log grows while it reads', async (t) => {
  const { journal, log } = await setup();
  const engine = new Engine();
  const host = new EngineHost(engine, log, { maxBatch: 50, clock: tick });
  await Promise.all(submissions(300).map((s) => host.submit(s)));
  await host.idle();
  // The end reads 250 when recovery starts; the other 50 records stand for appends that landed after it, as on
  // an API node's Kafka log while the engine runs. Both the encoded reads and the decoded ones stop there.
  for (const encoded of [true, false]) {
    const grown = new Proxy(journal, {
      get(target, key) {
        if (key === 'lastPos') return 250;
        if (key === 'readEncoded' && !encoded) return undefined;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const recovered = await recover(grown, undefined, { engineConfig: DEFAULT_ENGINE_CONFIG, pipelined: false });
    t.equal(recovered.pos, 250, `${encoded ? 'encoded' : 'decoded'} reads: replayed to the end taken at the start`);
    t.equal(recovered.replayed, 250);
  }
  await journal.close();
});

t.test('snapshots + replay give the live state hash', async (t) => {
  const { dir, journal, log, store } = await setup();
  const engine = new Engine();
  const host = new EngineHost(engine, log, { maxBatch: 50, clock: tick, snapshotEvery: 400, snapshots: store });
  const all = submissions(2_000);
  // Settled after each round: one snapshot is written at a time, and one due while another is being written
  // waits for a later batch.
  for (let i = 0; i < all.length; i += 137) {
    await Promise.all(all.slice(i, i + 137).map((s) => host.submit(s)));
    await host.idle();
  }
  const liveHash = engine.stateHash();
  await journal.close();
  const snaps = readdirSync(join(dir, 'snapshots'));
  t.ok(snaps.length >= 2 && snaps.length <= 3, `snapshots kept: ${snaps.join(', ')}`);

  const reopened = await Journal.open({ dir: join(dir, 'journal'), segmentBytes: 1 << 20 });
  const progress: number[] = [];
  const restored = await recover(reopened, store, { engineConfig: DEFAULT_ENGINE_CONFIG, onProgress: (p) => progress.push(p.pos), progressEvery: 100 });
  t.ok(restored.snapshotPos > 0, `started from the snapshot at ${restored.snapshotPos}`);
  t.equal(restored.pos, 2_000);
  t.equal(restored.engine.stateHash(), liveHash, 'snapshot + replay = live state');
  t.ok(progress.length > 0 && progress[progress.length - 1] === 2_000, 'progress was reported');
  const full = await recover(reopened, undefined, { engineConfig: DEFAULT_ENGINE_CONFIG });
  t.equal(full.snapshotPos, 0);
  t.equal(full.engine.stateHash(), liveHash, 'a full replay from position 1 agrees');
  await reopened.close();
});

t.test('a due snapshot waits for a moment with no command waiting, and is taken regardless at twice the interval', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'host-'));
  const { journal, log } = await setup(dir);
  t.teardown(() => journal.close());
  const store = new SnapshotStore(join(dir, 'snapshots'), 1_000);
  t.teardown(() => store.close());
  const every = 60;
  const host = new EngineHost(new Engine(), log, { maxBatch: 5, clock: tick, snapshotEvery: every, snapshots: store });
  const seqs = async (): Promise<number[]> => {
    const files = readdirSync(join(dir, 'snapshots')).filter((n) => n.endsWith('.json')).sort();
    return files.map((n) => (JSON.parse(readFileSync(join(dir, 'snapshots', n), 'utf8')) as { engine: { seq: number } }).engine.seq).filter((seq) => seq > 0);
  };
  // The snapshot thread started beforehand (its start is slow from TypeScript sources), so that writing one
  // takes less time than the batches between two.
  await store.write(0, exportSnapshot(new Engine()));
  const all = submissions(1_200);
  // Busy: everything submitted at once, so commands wait after every batch but the last.
  await Promise.all(all.slice(0, 1_000).map((s) => host.submit(s)));
  await host.idle();
  const busy = await seqs();
  t.ok(busy.length >= 2, `snapshots while busy: ${busy.join(', ')}`);
  busy.slice(0, -1).forEach((seq, i) => t.ok(seq - (i === 0 ? 0 : (busy[i - 1] as number)) >= 2 * every, `snapshot at seq ${seq}: taken at twice the interval`));
  // Quiet: a few commands at a time, settled in between; the first due snapshot is taken at once.
  for (let i = 1_000; i < 1_200; i += 3) {
    await Promise.all(all.slice(i, i + 3).map((s) => host.submit(s)));
    await host.idle();
  }
  const quiet = (await seqs()).slice(busy.length);
  t.ok(quiet.length >= 2, `snapshots while quiet: ${quiet.join(', ')}`);
  // The first may be overdue (the busy phase's end); each after it is taken when due.
  quiet.slice(1).forEach((seq, i) => {
    const since = seq - (quiet[i] as number);
    t.ok(since >= every && since < 2 * every, `snapshot at seq ${seq}, ${since} events after the last: the first quiet moment`);
  });
});

t.test("with the engine's copy on the snapshot thread, a due snapshot is taken at once, busy or not, and replay agrees", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'host-'));
  const { journal, log } = await setup(dir);
  t.teardown(() => journal.close());
  const store = new SnapshotStore(join(dir, 'snapshots'), 1_000);
  t.teardown(() => store.close());
  const every = 300;
  const engine = new Engine();
  const failures: string[] = [];
  const host = new EngineHost(engine, log, { maxBatch: 5, clock: tick, snapshotEvery: every, snapshots: store, onSnapshotError: (e) => failures.push(e.message) });
  t.equal(await host.followOnSnapshotThread(), true, 'the copy runs');
  // Each snapshot's start (the engine's event number when the host takes it) and the event number when its
  // file is written: the rule is timing-free in these terms, however slow the disk under a loaded CI.
  const taken: { start: number; done: number }[] = [];
  const take = store.take.bind(store);
  store.take = (pos, e) => {
    const entry = { start: engine.seq, done: Number.POSITIVE_INFINITY };
    taken.push(entry);
    const write = take(pos, e);
    return () =>
      write().finally(() => {
        entry.done = engine.seq;
      });
  };
  const files = (): { pos: number; seq: number; stateHash: string }[] =>
    readdirSync(join(dir, 'snapshots'))
      .filter((n) => n.endsWith('.json'))
      .sort()
      .map((n) => JSON.parse(readFileSync(join(dir, 'snapshots', n), 'utf8')) as { pos: number; stateHash: string; engine: { seq: number } })
      .map((f) => ({ pos: f.pos, seq: f.engine.seq, stateHash: f.stateHash }));
  // Busy: everything submitted at once, so commands wait after every batch but the last.
  await Promise.all(submissions(3_000).map((s) => host.submit(s)));
  await host.idle();
  const busy = files();
  const gaps = busy.map((f, i) => f.seq - (i === 0 ? 0 : (busy[i - 1] as { seq: number }).seq));
  t.ok(busy.length >= 8, `snapshots while busy at seq ${busy.map((f) => f.seq).join(', ')}`);
  t.ok(gaps.every((g) => g >= every), `none before it is due (gaps ${gaps.join(', ')})`);
  // Due after `every` events, taken after that batch (5 commands, a few dozen events at most), unless the one
  // before is still being written, then after the batch that follows its write; the engine's own export would
  // wait for a quiet moment, here never before twice the interval.
  t.same(failures, [], 'no snapshot failed');
  t.equal(store.following, true, 'the copy still follows');
  t.same(taken.map((x) => x.start), busy.map((f) => f.seq), 'every file is a snapshot the host took');
  const late = taken.slice(1).filter((x, i) => {
    const before = taken[i] as { start: number; done: number };
    return x.start > Math.max(before.start + every, before.done) + 60;
  });
  t.same(late, [], `each taken at the first batch once due and the one before written (starts ${taken.map((x) => x.start).join(', ')}; written at ${taken.map((x) => x.done).join(', ')})`);
  const last = busy[busy.length - 1] as { pos: number; stateHash: string };
  const records = await allRecords(journal);
  const replayed = new Engine();
  for (const r of records.slice(0, last.pos)) replayed.apply(r.command);
  t.equal(last.stateHash, replayed.stateHash(), "the copy's snapshot holds the state replay reaches at its position");
  const recovered = await recover(journal, store, { engineConfig: DEFAULT_ENGINE_CONFIG });
  t.equal(recovered.snapshotPos, last.pos, 'recovery starts from it');
  t.equal(recovered.engine.stateHash(), engine.stateHash(), 'and reaches the live state');
});

t.test('a snapshot that does not restore to its recorded hash refuses start-up; a torn one is skipped', async (t) => {
  const { dir, journal, log, store } = await setup();
  const engine = new Engine();
  const host = new EngineHost(engine, log, { maxBatch: 50, clock: tick, snapshotEvery: 100, snapshots: store });
  await Promise.all(submissions(500).map((s) => host.submit(s)));
  await host.idle();
  await host.snapshotNow();
  const liveHash = engine.stateHash();
  await journal.close();
  const names = readdirSync(join(dir, 'snapshots')).sort();
  const newest = join(dir, 'snapshots', names[names.length - 1] as string);

  writeFileSync(newest, '{"format":1,"pos":');
  const reopened = await Journal.open({ dir: join(dir, 'journal'), segmentBytes: 1 << 20 });
  const skipped = await recover(reopened, store, { engineConfig: DEFAULT_ENGINE_CONFIG });
  t.match(skipped.skippedSnapshots[0], /unreadable/, 'the torn snapshot is skipped');
  t.equal(skipped.engine.stateHash(), liveHash, 'and the previous snapshot + replay still gives the live state');

  const good = await store.latest();
  const tampered = { ...good.snapshot, stateHash: 'f'.repeat(64) };
  writeFileSync(newest, JSON.stringify(tampered));
  await t.rejects(recover(reopened, store, { engineConfig: DEFAULT_ENGINE_CONFIG }), RecoveryError);
  await t.rejects(recover(reopened, store, { engineConfig: DEFAULT_ENGINE_CONFIG }), /restores to state hash .* was recorded with it; refusing to start/);
  await reopened.close();
});

t.test('poll() between requests: a command is applied and released without waiting for an event-loop turn', async (t) => {
  const { journal } = await setup();
  const host = new EngineHost(new Engine(), journal, { maxBatch: 100, clock: tick });
  const [first, second] = submissions(2) as [Submission, Submission];
  await host.submit(first);
  const seq = host.engine.seq;
  let replied = false;
  void host.submit(second).then(() => (replied = true));
  t.equal(host.engine.seq, seq, 'queued: applied at the end of the turn, or at the next poll()');
  const segment = join(journal.dir, readdirSync(journal.dir).find((f) => f.endsWith('.seg')) ?? '');
  const sizeBefore = statSync(segment).size;
  host.poll();
  t.ok(host.engine.seq > seq, 'poll() applied it at once');
  for (let i = 0; i < 20; i++) await Promise.resolve(); // the append goes out in the microtasks after the caller
  // Wait for the write without letting the loop turn (a turn would deliver the writer's message).
  const until = Date.now() + 10_000;
  while (Date.now() < until && statSync(segment).size === sizeBefore) {
    // busy
  }
  t.ok(statSync(segment).size > sizeBefore, 'its record is on disk');
  const settled = Date.now() + 50;
  while (Date.now() < settled) {
    // busy: the writer finishes its write meanwhile
  }
  for (let i = 0; i < 20; i++) await Promise.resolve();
  t.equal(replied, false, 'durable on disk, but not released before anything settles it');
  // Polls with only microtasks between them: the loop never turns, so only poll() can release the reply.
  while (!replied && Date.now() < until) {
    host.poll();
    for (let i = 0; i < 20; i++) await Promise.resolve();
  }
  t.equal(replied, true, 'poll() released the reply');
  t.equal(journal.lastPos, 2);
  await journal.close();
});
