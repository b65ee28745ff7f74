// threads/heapTrim.ts: a heap grown by a quarter over its low at light load is collected in full, with V8's
// own collector (gc exposed here the way --expose-gc does it), and never while it grows fast, right after a
// collection of V8's own or while a collection runs; without gc there is nothing to run.

import t from 'tap';
import { execFileSync } from 'node:child_process';
import { setFlagsFromString, getHeapStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { LIGHT_LOAD_GROWTH_BYTES, TRIM_GROWTH, heapTrimCollections, startHeapTrim, type FullCollection } from '../../threads/heapTrim.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'async' }) => Promise<void>;
const realCollection: FullCollection = () => gc({ type: 'major', execution: 'async' });

t.test('a heap holding dropped garbage is collected: its use falls', async (t) => {
  await realCollection();
  const trim = startHeapTrim({ intervalMs: 3_600_000, collect: realCollection, maxGrowthBytes: Infinity });
  if (trim === undefined) throw new Error('no trim with a collection given');
  t.teardown(() => trim.stop());
  t.equal(await trim.check(), false, 'nothing grew: no collection');
  let garbage: number[][] | undefined = Array.from({ length: 400 }, (_, i) => Array.from({ length: 10_000 }, (_, j) => i + j + 0.5));
  t.ok(garbage.length === 400);
  const before = getHeapStatistics().used_heap_size;
  garbage = undefined;
  t.equal(await trim.check(), true, 'grown by more than a quarter: collected');
  t.equal(trim.collections, 1);
  t.equal(heapTrimCollections(), 1, "counted for this thread's /metrics");
  const after = getHeapStatistics().used_heap_size;
  t.ok(before - after > 20e6, `the heap in use fell by ${((before - after) / 1e6).toFixed(1)} MB (> 20 MB)`);
  t.equal(await trim.check(), false, 'right after a collection: nothing to collect');
});

t.test('the rule: a quarter over the low, growth below the light-load bound, one collection at a time', async (t) => {
  let used = 100;
  const calls: number[] = [];
  let finish: (() => void) | undefined;
  const collect: FullCollection = () =>
    new Promise<void>((done) => {
      calls.push(used);
      finish = () => {
        used = 100;
        done();
      };
    });
  const trim = startHeapTrim({ intervalMs: 3_600_000, collect, usedBytes: () => used, maxGrowthBytes: 50 });
  if (trim === undefined) throw new Error('no trim with a collection given');
  t.teardown(() => trim.stop());

  used = 100 * TRIM_GROWTH - 1;
  t.equal(await trim.check(), false, 'just under a quarter over the low');
  used = 60;
  t.equal(await trim.check(), false, "the heap fell since the last look: a collection of V8's own, the new low");
  used = 80;
  const first = trim.check();
  t.same(calls, [80], 'a third over the new low, grown by 20 (< 50) since the last look: a collection starts');
  t.equal(await trim.check(), false, 'no second collection while one runs');
  finish?.();
  t.equal(await first, true);
  t.equal(trim.collections, 1);
  used = 100 * TRIM_GROWTH - 1;
  t.equal(await trim.check(), false, "the low is the heap's use after the collection (100)");
  t.same(calls, [80]);
});

t.test('no collection while the heap grows faster than the light-load bound', async (t) => {
  let used = 100;
  let collections = 0;
  const trim = startHeapTrim({ intervalMs: 3_600_000, collect: async () => void collections++, usedBytes: () => used, maxGrowthBytes: 50 });
  if (trim === undefined) throw new Error('no trim with a collection given');
  t.teardown(() => trim.stop());
  used = 200;
  t.equal(await trim.check(), false, 'doubled since the last look (+100 >= 50): at load, V8 keeps its room');
  used = 230;
  t.equal(await trim.check(), true, 'grown by 30 since the last look, 130% over the low: collected');
  t.equal(collections, 1);
  t.equal(LIGHT_LOAD_GROWTH_BYTES, 4 * 1024 * 1024, "the main thread's bound");
});

t.test('the timer looks on its own', async (t) => {
  let used = 100;
  let collections = 0;
  const trim = startHeapTrim({ intervalMs: 20, collect: async () => void (collections++, (used = 100)), usedBytes: () => used, maxGrowthBytes: Infinity });
  if (trim === undefined) throw new Error('no trim with a collection given');
  t.teardown(() => trim.stop());
  used = 200;
  await new Promise((r) => setTimeout(r, 150));
  t.equal(collections, 1, 'one collection, then nothing to collect');
  t.equal(trim.collections, 1);
});

t.test('nothing runs without a collection or without an interval', async (t) => {
  t.equal(startHeapTrim({ intervalMs: 0, collect: async () => {} }), undefined, 'interval 0: off');
  const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
  const probe = `import('./threads/heapTrim.ts').then((m) => console.log(m.startHeapTrim({ intervalMs: 1000 }) === undefined ? 'off' : 'on'))`;
  const run = (flags: string[]): string => execFileSync(process.execPath, [...flags, '--import', 'tsx', '-e', probe], { cwd: root, encoding: 'utf8' }).trim();
  t.equal(run([]), 'off', 'a process without --expose-gc');
  t.equal(run(['--expose-gc']), 'on', 'a process with --expose-gc');
});
