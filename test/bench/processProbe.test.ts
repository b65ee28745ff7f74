// The bench's per-thread CPU tells libuv's pool (where chDB runs its queries) from V8's platform threads, which
// carry the process's name too: nameThreadPool renames every thread of the pool, and only those.

import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { nameThreadPool, threadCpuMs } from '../../bench/processProbe.js';

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
  const named = await nameThreadPool('test-uv-pool');
  const after = names();
  const pool = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  t.equal(named, pool, `every thread of the pool (${pool}) is named`);
  const renamed = [...after].filter(([tid, name]) => name === 'test-uv-pool' && before.get(tid) !== 'test-uv-pool');
  t.equal(renamed.length, pool, 'and only those');
  t.equal(after.get(String(process.pid)), before.get(String(process.pid)), "the main thread's name is left alone");
  t.ok([...after.values()].some((name) => name !== 'test-uv-pool' && name === before.get(String(process.pid))), "other threads (V8's platform) keep the process's name");
  t.ok('test-uv-pool' in threadCpuMs(), 'threadCpuMs reports the pool under its name');
});
