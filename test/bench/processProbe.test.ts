// The bench's per-thread CPU tells libuv's pool (where chDB runs its queries) from V8's platform threads, which
// carry the process's name too: nameThreadPool renames every thread of the pool, and only those.

import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { clickhouseShareUs, nameThreadPool, threadCpuMs, threadCpuMsBetween, type ThreadCpu } from '../../bench/processProbe.js';
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
