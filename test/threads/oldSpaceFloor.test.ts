// The old-generation floor of scripts/node-flags (--initial-old-space-size=128) stays the main thread's. In a
// process started with it, a heap filled with 90 MB of live objects is not marked and compacted once while
// below the floor; V8's own limits start a full collection well before. So after
// keepOldSpaceFloorToMainThread() the main thread fills to 90 MB without one and a worker started afterwards
// has at least one, while without the call the worker has none either. Each case runs in a child process.

import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const floorModule = new URL('../../threads/oldSpaceFloor.ts', import.meta.url).href;

/** Fills the heap with live objects to 90 MB and resolves with the number of full (major) collections seen. */
const fill = `async () => {
  const { PerformanceObserver, constants } = await import('node:perf_hooks');
  const { getHeapStatistics } = await import('node:v8');
  let majors = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
  });
  observer.observe({ entryTypes: ['gc'] });
  const kept = [];
  while (getHeapStatistics().used_heap_size < 90e6) {
    for (let i = 0; i < 20000; i++) kept.push({ a: i, b: [i, i + 1, i + 2] });
    await new Promise((r) => setTimeout(r, 5));
  }
  await new Promise((r) => setTimeout(r, 50));
  observer.disconnect();
  return majors;
}`;

async function majors(clearFloor: boolean): Promise<{ main: number; worker: number }> {
  const script = `
    import { Worker } from 'node:worker_threads';
    import { once } from 'node:events';
    import { keepOldSpaceFloorToMainThread } from ${JSON.stringify(floorModule)};
    if (${clearFloor}) keepOldSpaceFloorToMainThread();
    const main = await (${fill})();
    const worker = new Worker(${JSON.stringify(`import('node:worker_threads').then(({ parentPort }) => (${fill})().then((n) => parentPort.postMessage(n)))`)}, { eval: true });
    const [inWorker] = await once(worker, 'message');
    console.log(JSON.stringify({ main, worker: inWorker }));
    process.exit(0);
  `;
  const { stdout } = await run(process.execPath, ['--initial-old-space-size=128', '--import', 'tsx', '--input-type=module', '-e', script], { timeout: 60_000 });
  return JSON.parse(stdout.trim()) as { main: number; worker: number };
}

t.test("the floor stays the main thread's", async (t) => {
  const cleared = await majors(true);
  const kept = await majors(false);
  t.equal(kept.main, 0, 'the floor holds on the main thread');
  t.equal(kept.worker, 0, 'without the call, a worker gets the floor too');
  t.equal(cleared.main, 0, 'after the call, the main thread keeps its floor');
  t.ok(cleared.worker >= 1, `after the call, a worker collects at V8's own limit (${cleared.worker} full collections)`);
});
