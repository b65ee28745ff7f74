// The bench's per-thread CPU tells libuv's pool (where chDB runs its queries) from V8's platform threads, which
// carry the process's name too: nameThreadPool renames every thread of the pool, and only those.

import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { clickhouseShareUs, nameThreadPool, threadCpuMs, threadCpuMsBetween, threadSwitches, type ThreadCpu } from '../../bench/processProbe.js';
import { isServiceThread } from '../../server/processPriority.js';

const linux = process.platform === 'linux';

function names(): Map<string, string> {
  const out = new Map<string, string>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) out.set(tid, readFileSync(`/proc/${process.pid}/task/${tid}/comm`, 'utf8').trim());
  return out;
}

t.test("libuv's pool threads are named, V8's platform threads keep the process's name", { skip: linux ? false : 'needs Linux /proc' }, async (t) => {
  // The pool's threads start on first use, all at once; V8's platform threads exist from start-up.
  await readFile('/proc/self/stat');
  const before = names();
  const named = await nameThreadPool();
  const after = names();
  const pool = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  t.equal(named, pool, `every thread of the pool (${pool}) is named`);
  t.equal([...after.values()].filter((name) => name === 'libuv-worker').length, pool, 'and only those (libuv may have named them so itself)');
  t.equal(after.get(String(process.pid)), before.get(String(process.pid)), "the main thread's name is left alone");
  t.ok([...after.values()].some((name) => name !== 'libuv-worker' && name === before.get(String(process.pid))), "other threads (V8's platform) keep the process's name");
  t.ok('libuv-worker' in threadCpuMs(), 'threadCpuMs reports the pool under its name');
  t.ok(isServiceThread('libuv-worker'), "a name the service counts as its own (it keeps the process's priority)");
});

t.test("ClickHouse's share: chDB's threads and libuv's pool, whatever names its pool threads move between", async (t) => {
  const before = { 'main (JS)': 1_000, node: 300, 'pmx-edge': 200, 'libuv-worker': 100, ThreadPool: 50, MergeMutate: 20 };
  // A pool thread that ran 30 ms as ThreadPool is now QueryPipelineEx (its 30 ms and 10 more): ThreadPool's
  // figure falls, and the sum keeps the thread's CPU once.
  const after = { 'main (JS)': 2_000, node: 400, 'pmx-edge': 300, 'libuv-worker': 150, ThreadPool: 40, QueryPipelineEx: 40, MergeMutate: 30 };
  t.equal(clickhouseShareUs(before, after, 100), 900, 'libuv-worker 50, ThreadPool -10, QueryPipelineEx 40, MergeMutate 10: 90 ms over 100 orders, 900 us each');
  t.equal(clickhouseShareUs(before, {}, 100), undefined, 'no per-thread figures: no share');
  t.equal(clickhouseShareUs(before, after, 0), undefined, 'no orders: no share');
});

t.test('per-thread differences between two readings: a renamed thread takes its whole difference to its new name', async (t) => {
  const reading = (entries: [number, string, number][]): Map<number, ThreadCpu> => new Map(entries.map(([tid, name, ms]) => [tid, { name, ms }]));
  const a = reading([
    [1, 'main (JS)', 1_000],
    [2, 'ThreadPool', 30],
    [3, 'ThreadPool', 20],
    [4, 'MergeMutate', 5],
  ]);
  const b = reading([
    [1, 'main (JS)', 1_500],
    [2, 'QueryPipelineEx', 45], // renamed for another job: 15 ms more
    [3, 'ThreadPool', 22],
    // 4 ended: its last CPU is unknown, not counted
    [5, 'BgSchPool', 7], // started between the readings: counted whole
  ]);
  t.same(threadCpuMsBetween(a, b), { 'main (JS)': 500, QueryPipelineEx: 15, ThreadPool: 2, BgSchPool: 7 }, 'no name goes negative');
  t.same(threadCpuMsBetween(reading([[9, 'x', 100]]), reading([[9, 'y', 40]])), { y: 40 }, 'a thread id given again counts the new thread from its start');
});

t.test("a thread's sleeps and preemptions by name: a worker that waits on a futex counts a sleep per wait", { skip: linux ? false : 'needs Linux /proc' }, async (t) => {
  const words = new Int32Array(new SharedArrayBuffer(8));
  // The worker names its thread, then waits on words[0] for each round the main thread starts.
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     require('node:fs').writeFileSync('/proc/thread-self/comm', 'pmx-probe-test');
     const words = new Int32Array(workerData);
     let seen = 0;
     Atomics.store(words, 1, 1);
     Atomics.notify(words, 1);
     for (;;) {
       Atomics.wait(words, 0, seen);
       seen = Atomics.load(words, 0);
       if (seen < 0) break;
       Atomics.store(words, 1, seen + 1);
       Atomics.notify(words, 1);
     }`,
    { eval: true, workerData: words.buffer },
  );
  const answered = async (value: number): Promise<void> => {
    for (;;) {
      const now = Atomics.load(words, 1);
      if (now >= value) return;
      await Atomics.waitAsync(words, 1, now).value;
    }
  };
  await answered(1);
  const before = threadSwitches()['pmx-probe-test'];
  t.ok(before !== undefined, 'the worker is found by the name it gave its thread');
  const rounds = 20;
  for (let i = 1; i <= rounds; i++) {
    Atomics.store(words, 0, i);
    Atomics.notify(words, 0);
    await answered(i + 1);
    // Long enough for the worker to be back asleep in Atomics.wait before the next round.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const after = threadSwitches()['pmx-probe-test'];
  Atomics.store(words, 0, -1);
  Atomics.notify(words, 0);
  await worker.terminate();
  const slept = (after?.sleeps ?? 0) - (before?.sleeps ?? 0);
  t.ok(slept >= rounds, `${slept} sleeps over ${rounds} woken waits`);
  t.ok((after?.preemptions ?? 0) >= (before?.preemptions ?? 0), 'preemptions never go back');
  const main = threadSwitches()['main (JS)'];
  t.ok(main !== undefined && main.sleeps > 0, "the main thread is named as threadCpuMs names it, and has slept");
});
