// server/chainAffinity.ts: the rule (ChainPlacement) on its own, and the watcher in a process of its own with
// real threads, /proc and taskset: a quiet chain is put on one CPU, a busy one back on every CPU, and only the
// chain's threads move.

import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestService } from '../support/serviceFixture.js';
import { CONTENDED_HOLD_OFF_MS, ChainPlacement, OTHERS_ABOVE, PIN_BELOW, SETTLE_MS, SPREAD_ABOVE, parseCpuList } from '../../server/chainAffinity.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

t.test('the rule: pinned after SETTLE_MS below PIN_BELOW, spread at the first sample above SPREAD_ABOVE', async (tt) => {
  const rule = new ChainPlacement();
  tt.equal(rule.placement, 'spread', 'it starts spread');
  const quiet = PIN_BELOW / 2;
  let moved: string | undefined;
  for (let ms = 250; ms < SETTLE_MS; ms += 250) moved ??= rule.observe(quiet, 0, 250);
  tt.equal(moved, undefined, 'not before SETTLE_MS of quiet');
  tt.equal(rule.observe(quiet, 0, 250), 'pinned', 'pinned once the quiet lasted SETTLE_MS');
  tt.equal(rule.observe(SPREAD_ABOVE, OTHERS_ABOVE, 250), undefined, 'a pinned chain stays at SPREAD_ABOVE and OTHERS_ABOVE exactly');
  tt.equal(rule.observe(SPREAD_ABOVE + 0.01, 0, 250), 'spread', 'and is spread at the first sample above it');
  tt.equal(rule.placement, 'spread');

  // A busy sample starts the quiet time again.
  for (let ms = 250; ms < SETTLE_MS; ms += 250) tt.equal(rule.observe(quiet, 0, 250), undefined);
  tt.equal(rule.observe(PIN_BELOW, 0, 250), undefined, 'a sample at PIN_BELOW is not quiet');
  for (let ms = 250; ms < SETTLE_MS; ms += 250) tt.equal(rule.observe(quiet, 0, 250), undefined, 'the quiet time counts again from there');
  tt.equal(rule.observe(quiet, 0, 250), 'pinned');

  // Pinned to a CPU others keep busy: spread at once, and not pinned again for CONTENDED_HOLD_OFF_MS however quiet.
  tt.equal(rule.observe(quiet, OTHERS_ABOVE + 0.01, 250), 'spread', 'a pinned chain whose CPU others keep busy is spread');
  let again: string | undefined;
  let waited = 0;
  while (again === undefined && waited < CONTENDED_HOLD_OFF_MS + 2 * SETTLE_MS) {
    again = rule.observe(quiet, 0, 250);
    waited += 250;
  }
  tt.equal(again, 'pinned', 'pinned again in the end');
  tt.ok(waited > CONTENDED_HOLD_OFF_MS + SETTLE_MS - 500, `only after the hold-off and SETTLE_MS of quiet at its end (${waited} ms)`);
});

t.test('CPU lists as the kernel writes them', async (tt) => {
  tt.same(parseCpuList('0-1'), [0, 1]);
  tt.same(parseCpuList('0'), [0]);
  tt.same(parseCpuList('0-2,4,6-7\n'), [0, 1, 2, 4, 6, 7]);
  tt.same(parseCpuList(''), []);
});

// In a process of its own: a worker named as the journal's writer is (the chain), one named as another thread is
// not. The process idles until the watcher pins the chain, spins its main thread until it is spread again, idles
// until it is pinned once more, then starts another process spinning on that CPU until the chain is spread again.
// Each step records every thread's allowed CPUs.
const script = `
import { Worker } from 'node:worker_threads';
import { readdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { watchChainAffinity } from './server/chainAffinity.ts';
const park = (name) => new Worker(\`Promise.all([import('node:fs'), import('node:worker_threads')]).then(([fs, wt]) => { fs.writeFileSync('/proc/thread-self/comm', '\${name}'); wt.parentPort.postMessage('named'); }); setInterval(() => {}, 1000);\`, { eval: true });
const workers = [park('pmx-journal'), park('other-pool')];
await Promise.all(workers.map((w) => new Promise((r) => w.once('message', r))));
const allowed = () => Object.fromEntries(readdirSync('/proc/self/task').map((tid) => {
  const comm = Number(tid) === process.pid ? 'main' : readFileSync('/proc/self/task/' + tid + '/comm', 'utf8').trim();
  return [comm, /Cpus_allowed_list:\\s*(\\S+)/.exec(readFileSync('/proc/self/task/' + tid + '/status', 'utf8'))[1]];
}));
const moves = [];
let next;
const chain = watchChainAffinity((placement, cpus) => { moves.push([placement, cpus]); next?.(); }, (error) => { console.log(JSON.stringify({ error: String(error) })); process.exit(0); });
const moved = () => new Promise((r) => { next = r; });
const start = allowed();
await moved();
const pinned = allowed();
const until = Date.now() + 400;
while (Date.now() < until) {}
await moved();
const spread = allowed();
await moved();
const hog = spawn('taskset', ['-c', moves[0][1], process.execPath, '-e', 'setTimeout(() => process.exit(0), 30000); for (let t = Date.now(); Date.now() - t < 30000; ) {}'], { stdio: 'ignore' });
process.on('exit', () => hog.kill());
await moved();
hog.kill();
const contended = allowed();
await chain.stop();
const stopped = allowed();
console.log(JSON.stringify({ moves, start, pinned, spread, contended, stopped }));
process.exit(0);
`;

const cpus = existsSync('/proc/self/status') ? parseCpuList(/Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '') : [];
const hasTaskset = spawnSync('taskset', ['-V']).status === 0;
const skip = cpus.length < 2 ? 'needs Linux with two CPUs or more for this process' : !hasTaskset ? 'needs taskset (util-linux)' : false;

t.test('a quiet chain runs on one CPU, a busy one on every CPU, other threads are not moved', { skip }, async (tt) => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS'));
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  const result = JSON.parse(out.trim().split('\n').pop() as string) as { error?: string; moves: [string, string][]; start: Record<string, string>; pinned: Record<string, string>; spread: Record<string, string>; contended: Record<string, string>; stopped: Record<string, string> };
  tt.equal(result.error, undefined, 'the watcher runs here (taskset, /proc)');
  const all = result.start.main as string;
  const first = String(parseCpuList(all)[0]);
  tt.same(result.moves, [['pinned', first], ['spread', all], ['pinned', first], ['spread', all]], 'pinned when quiet, spread when busy, pinned again, spread when another process takes its CPU');
  tt.same([result.start['main'], result.start['pmx-journal'], result.start['other-pool']], [all, all, all], 'every thread starts on every CPU');
  tt.same([result.pinned['main'], result.pinned['pmx-journal'], result.pinned['other-pool']], [first, first, all], 'the chain pinned, the other thread not');
  tt.same([result.spread['main'], result.spread['pmx-journal'], result.spread['other-pool']], [all, all, all], 'spread again under load');
  tt.same([result.contended['main'], result.contended['pmx-journal']], [all, all], 'spread when another process keeps its CPU busy');
  tt.same([result.stopped['main'], result.stopped['pmx-journal']], [all, all], 'and still spread after stop()');
});

/** The CPUs each thread of this process may run on, by its name (`main` for the main thread; the last of a name). */
function allowedByName(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const name = Number(tid) === process.pid ? 'main' : readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
      out[name] = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/self/task/${tid}/status`, 'utf8'))?.[1] ?? '';
    } catch {
      // ended since the listing
    }
  }
  return out;
}

t.test('a running service: once quiet its order path shares one CPU, the rest does not move, and close() spreads it', { skip }, async (tt) => {
  const all = allowedByName().main as string;
  const first = String(parseCpuList(all)[0]);
  const { baseUrl, close } = await startTestService({ chainAffinity: true });
  const gauge = async (): Promise<string | undefined> => /^order_chain_pinned (\d)$/m.exec(await (await fetch(`${baseUrl}/metrics`)).text())?.[1];
  tt.equal(await gauge(), '0', 'spread at start');
  const deadline = Date.now() + 30_000;
  while ((await gauge()) !== '1' && Date.now() < deadline) await sleep(250);
  tt.equal(await gauge(), '1', 'the gauge says pinned');
  const pinned = allowedByName();
  tt.same([pinned['main'], pinned['pmx-edge'], pinned['pmx-signatures'], pinned['pmx-journal']], [first, first, first, first], 'the request thread, the edge, the signature worker and the journal writer share one CPU');
  tt.same([pinned['pmx-projector'], pinned['pmx-snapshots']], [all, all], 'the projector and the snapshot thread are not moved');
  await close();
  tt.equal(allowedByName().main, all, 'after close the main thread runs on every CPU again');
});
