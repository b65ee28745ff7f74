// Worker threads answer a heap question over one BroadcastChannel: each thread that called
// answerHeapQueries is counted once, with its own isolate's figures, and a thread that never called it is not.

import t from 'tap';
import type { Worker } from 'node:worker_threads';
import { moduleWorker } from '../../threads/moduleWorker.js';
import { once } from 'node:events';
import { threadHeaps } from '../../threads/threadHeaps.js';

async function start(name: string | null, holdDoubles: number): Promise<Worker> {
  const worker = moduleWorker(import.meta.url, 'heapWorker', { workerData: { name, holdDoubles } });
  await once(worker, 'message');
  return worker;
}

t.test('each answering thread reports its own heap, once', async (t) => {
  const small = await start('test-small', 0);
  const large = await start('test-large', 2_500_000);
  const silent = await start(null, 0);
  t.teardown(() => Promise.all([small, large, silent].map((w) => w.terminate())));
  const heaps = await threadHeaps(200);
  const byName = new Map(heaps.map((h) => [h.thread, h]));
  t.same([...byName.keys()].sort(), ['test-large', 'test-small'], 'the two answering threads, and not the silent one nor the asking thread');
  t.equal(heaps.length, 2, 'one answer each');
  const smallHeap = byName.get('test-small');
  const largeHeap = byName.get('test-large');
  t.ok(smallHeap !== undefined && largeHeap !== undefined);
  if (smallHeap === undefined || largeHeap === undefined) return;
  t.ok(largeHeap.usedBytes > smallHeap.usedBytes + 15_000_000, `the thread holding 20 MB of numbers reports it (${largeHeap.usedBytes} against ${smallHeap.usedBytes} bytes used)`);
  t.ok(smallHeap.totalBytes >= smallHeap.usedBytes && largeHeap.totalBytes >= largeHeap.usedBytes, 'committed covers used');
});

t.test('with no thread answering, the answer is empty after the wait', async (t) => {
  const started = performance.now();
  t.same(await threadHeaps(30), []);
  t.ok(performance.now() - started >= 25, 'it waited for answers');
});
