// server/processPriority.ts in a process of its own: every thread, those running when the nice value is set
// and those started after, ends up at that value. Linux only (the nice value per thread is read from /proc).

import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

// Starts a worker before and one after setProcessNice(7), then prints {set, nices}: how many threads were set,
// and the nice value of every thread of the process (field 19 of /proc/self/task/<tid>/stat).
const script = `
import { Worker } from 'node:worker_threads';
import { readdirSync, readFileSync } from 'node:fs';
import { setProcessNice } from './server/processPriority.ts';
const park = () => new Worker('setInterval(() => {}, 1000)', { eval: true });
const before = park();
await new Promise((r) => before.once('online', r));
const set = setProcessNice(7);
const after = park();
await new Promise((r) => after.once('online', r));
const nices = readdirSync('/proc/self/task').map((tid) => Number(readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').split(') ')[1].split(' ')[16]));
console.log(JSON.stringify({ set, nices }));
process.exit(0);
`;

t.test('every thread of the process runs at the nice value set, the threads started later included', { skip: existsSync('/proc/self/task') ? false : 'needs /proc (Linux)' }, async (tt) => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS'));
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, env, encoding: 'utf8' });
  const { set, nices } = JSON.parse(out.trim().split('\n').pop() as string) as { set: number; nices: number[] };
  tt.ok(set >= 2, `the main thread and the worker running then were set (${set} threads)`);
  tt.ok(nices.length > set, 'threads were started after it');
  tt.same([...new Set(nices)], [7], 'every thread runs at nice 7');
});

// ForeignThreadNice in a process of its own: a worker that names itself as a library's thread would (here
// "LibPool", like the embedded ClickHouse's pools) is set to the value; the main thread, Node's own threads
// ("node") and the service's (pmx-*) are not; a foreign thread its library set to another value is left as
// it is; a thread named later is set by the next call.
const foreignScript = `
import { Worker } from 'node:worker_threads';
import { readdirSync, readFileSync } from 'node:fs';
import { ForeignThreadNice } from './server/processPriority.ts';
const named = (name, nice) => {
  const w = new Worker(\`
  import { writeFileSync } from 'node:fs';
  import { setPriority } from 'node:os';
  import { parentPort } from 'node:worker_threads';
  parentPort.once('message', () => {
    writeFileSync('/proc/thread-self/comm', '\${name}');
    if (\${nice} !== 0) setPriority(0, \${nice});
    parentPort.postMessage('named');
  });
  setInterval(() => {}, 1000);\`, { eval: true });
  w.online = new Promise((r) => w.once('online', r));
  return w;
};
const start = async (w) => { await w.online; w.postMessage('go'); await new Promise((r) => w.once('message', r)); };
const threads = () => Object.fromEntries(readdirSync('/proc/self/task').map((tid) => [readFileSync('/proc/self/task/' + tid + '/comm', 'utf8').trim() + (tid === String(process.pid) ? '(main)' : ''), Number(readFileSync('/proc/self/task/' + tid + '/stat', 'utf8').split(') ')[1].split(' ')[16])]));
const lib = named('LibPool', 0);
const own = named('pmx-own', 0);
const chosen = named('LibChosen', 3);
const late = named('LibLate', 0);
await start(lib); await start(own); await start(chosen);
await late.online;
const nicer = new ForeignThreadNice(9);
const first = nicer.apply();
const afterFirst = threads();
await start(late);
const second = nicer.apply();
const third = nicer.apply();
console.log(JSON.stringify({ first, second, third, afterFirst, afterSecond: threads() }));
process.exit(0);
`;

t.test("a library's threads are set to the value, the service's own are not", { skip: existsSync('/proc/self/task') ? false : 'needs /proc (Linux)' }, async (tt) => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS'));
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', foreignScript], { cwd: root, env, encoding: 'utf8' });
  const r = JSON.parse(out.trim().split('\n').pop() as string) as { first: number; second: number; third: number; afterFirst: Record<string, number>; afterSecond: Record<string, number> };
  tt.equal(r.first, 1, 'the first call sets the one foreign thread at the process value');
  tt.equal(r.afterFirst.LibPool, 9, "the library's thread runs at nice 9");
  tt.equal(r.afterFirst.LibChosen, 3, 'a thread its library set to another value keeps it');
  tt.equal(r.afterFirst['pmx-own'], 0, "the service's named thread is not set");
  tt.equal(r.afterFirst['node(main)'], 0, 'the main thread is not set');
  tt.equal(r.afterFirst.node, 0, "Node's own threads are not set");
  tt.equal(r.second, 1, 'a thread that took a foreign name since is set by the next call');
  tt.equal(r.afterSecond.LibLate, 9);
  tt.equal(r.third, 0, 'a call with nothing new sets nothing');
});

t.test('keepForeignThreadsNiced reports a failure once and stops, instead of throwing from its timer', { skip: existsSync('/proc/self/task') ? false : 'needs /proc (Linux)' }, async (tt) => {
  const { keepForeignThreadsNiced } = await import('../../server/processPriority.js');
  const { Worker } = await import('node:worker_threads');
  // A foreign thread in this process, and a value setpriority() refuses: every apply() would throw.
  const lib = new Worker("require('node:fs').writeFileSync('/proc/thread-self/comm', 'LibPool'); require('node:worker_threads').parentPort.postMessage('named'); setInterval(() => {}, 1000);", { eval: true });
  await new Promise((r) => lib.once('message', r));
  const errors: unknown[] = [];
  const kept = keepForeignThreadsNiced(Number.NaN, (error) => errors.push(error), 5);
  await new Promise((r) => setTimeout(r, 60));
  kept.stop();
  await lib.terminate();
  tt.equal(errors.length, 1, 'one failure reported, then no more tries');
  tt.match(String(errors[0]), /nice|priority|range|NaN/i, 'the failure is the one setpriority() raised');
});
