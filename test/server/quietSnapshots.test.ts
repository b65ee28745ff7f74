// server/roles/quietSnapshots.ts: while records keep arriving, a due snapshot waits and is taken at twice the
// interval; once they stop, a due snapshot is taken after the quiet time; one that holds no thread is taken
// when due; one at a time. Time as the schedule
// sees it is the test's clock (advanced by hand), so a slow machine cannot make a pause where there is none;
// its timers are real.

import t from 'tap';
import { QuietSnapshots } from '../../server/roles/quietSnapshots.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check() && waited < 5_000; waited += 10) await sleep(10);
}

function harness(every: number, quietMs: number, writeMs = 0, holdsThread?: () => boolean) {
  let seq = 0;
  let clock = 0;
  const taken: number[] = [];
  let writing = 0;
  let overlapped = false;
  const snapshots = new QuietSnapshots({
    every,
    quietMs,
    seq: () => seq,
    now: () => clock,
    holdsThread,
    take: async () => {
      if (writing > 0) overlapped = true;
      writing++;
      taken.push(seq);
      if (writeMs > 0) await sleep(writeMs);
      writing--;
    },
  });
  return {
    snapshots,
    taken,
    get overlapped() {
      return overlapped;
    },
    /** `count` records of `events` events each, `gapMs` apart on the test's clock (and a real turn apart). */
    async feed(count: number, events: number, gapMs: number): Promise<void> {
      for (let i = 0; i < count; i++) {
        seq += events;
        snapshots.records();
        clock += gapMs;
        await new Promise((r) => setImmediate(r));
      }
    },
    /** A pause of `ms` on the test's clock. */
    pause(ms: number): void {
      clock += ms;
    },
  };
}

t.test('records without a pause: a due snapshot is taken at twice the interval', async (t) => {
  const h = harness(100, 50);
  t.teardown(() => h.snapshots.close());
  await h.feed(60, 10, 2); // 600 events, never 50 ms without records
  t.ok(h.taken.length >= 2, `taken at ${h.taken.join(', ')}`);
  h.taken.forEach((seq, i) => t.ok(seq - (i === 0 ? 0 : (h.taken[i - 1] as number)) >= 200, `at ${seq}: twice the interval after the last`));
});

t.test('a snapshot that holds no thread (taken from the copies) is taken as soon as it is due, records or not', async (t) => {
  let holds = false;
  const h = harness(100, 50, 0, () => holds);
  t.teardown(() => h.snapshots.close());
  await h.feed(35, 10, 2);
  t.same(h.taken, [100, 200, 300], 'at each interval, without a pause');
  holds = true;
  await h.feed(25, 10, 2);
  t.same(h.taken, [100, 200, 300, 500], 'one that would hold it waits again, up to twice the interval');
});

t.test('records then a pause: the due snapshot is taken once the quiet time has passed', async (t) => {
  const h = harness(100, 30);
  t.teardown(() => h.snapshots.close());
  await h.feed(12, 10, 2); // 120 events: due, not yet quiet
  await sleep(60);
  t.same(h.taken, [], 'not while records arrive');
  h.pause(40);
  await until(() => h.taken.length > 0);
  t.same(h.taken, [120], 'taken in the pause, at the position then');
  await h.feed(5, 10, 2);
  h.pause(40);
  await sleep(80);
  t.same(h.taken, [120], 'not again before the interval has passed');
});

t.test('one at a time: a snapshot due while one is written waits for it', async (t) => {
  const h = harness(10, 5, 60);
  t.teardown(() => h.snapshots.close());
  await h.feed(30, 10, 10);
  await until(() => h.taken.length >= 2);
  await sleep(100);
  t.notOk(h.overlapped, 'never two at once');
  t.ok(h.taken.length >= 2, `taken at ${h.taken.join(', ')}`);
});

t.test('closed: nothing more is taken', async (t) => {
  const h = harness(100, 20);
  await h.feed(11, 10, 1);
  h.snapshots.close();
  h.pause(100);
  await sleep(60);
  t.same(h.taken, []);
});
