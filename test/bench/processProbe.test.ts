// The bench's per-thread CPU tells libuv's pool (where chDB runs its queries) from V8's platform threads, which
// carry the process's name too: nameThreadPool renames every thread of the pool, and only those.

import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { nameThreadPool, threadCpuMs } from '../../bench/processProbe.js';
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
