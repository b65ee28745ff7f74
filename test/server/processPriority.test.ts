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
