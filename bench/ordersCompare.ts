// `npm run bench:orders:compare`: bench:orders on this build and on an older one in the same run, under the
// same harness and load (this build's ordersBench drives both servers; BENCH_SERVER_DIR points it at the other
// build's), alternating A B A B so that a drift of the machine falls on both. The older build is a git
// worktree of BENCH_BASELINE (default 1dad35b, the order path before the WebSocket channels and the in-memory
// reads) under .bench-baseline/<commit>, made, installed and built on first use and kept.
//
// Every BENCH_* setting of bench:orders applies to both (BENCH_RATE=400 BENCH_ORDERS=24000 compares them at a
// steady rate). Prints each run's figures, then the medians side by side and their ratio; the last line is one
// JSON object: {bench: 'orders-compare', baseline, rounds, current: {...medians}, baselineFigures: {...medians},
// ratio: {ordersPerSec, serverCpuUsPerOrder, serverMainThreadCpuUsPerOrder, p99Ms}, runs: [...]}. Each run's
// hypervisor steal (bench/machineSteal.ts) is printed after the medians.
//
// Env: BENCH_BASELINE (1dad35b), BENCH_ROUNDS (2).

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BASELINE = process.env.BENCH_BASELINE ?? '1dad35b';
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));

const here = fileURLToPath(import.meta.url);
const root = resolve(here, '..', '..', '..');
const benchDir = resolve(here, '..');

interface Figures {
  readonly ordersPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly serverCpuUsPerOrder: number;
  readonly serverMainThreadCpuUsPerOrder: number;
  readonly rejected: number;
  /** The hypervisor's steal over the window (bench/machineSteal.ts); null off Linux. */
  readonly stealPct?: number | null;
}

function sh(command: string, args: readonly string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

/** The baseline's built dist/bench, made on first use. */
function baselineBench(): { dir: string; commit: string } {
  const commit = sh('git', ['rev-parse', '--short', `${BASELINE}^{commit}`], root).trim();
  const tree = join(root, '.bench-baseline', commit);
  const dist = join(tree, 'dist', 'bench');
  if (!existsSync(join(dist, 'orders', 'ordersServer.js'))) {
    console.log(`building the baseline ${commit} in ${tree} (once)...`);
    mkdirSync(join(root, '.bench-baseline'), { recursive: true });
    if (!existsSync(join(tree, 'package.json'))) sh('git', ['worktree', 'add', '--detach', tree, commit], root);
    sh('npm', ['install', '--no-audit', '--no-fund', '--silent'], tree);
    sh('npm', ['run', 'build', '--silent'], tree);
  }
  return { dir: dist, commit };
}

function runOnce(serverDir: string | undefined): Promise<Figures> {
  return new Promise((done, fail) => {
    const env = { ...process.env };
    if (serverDir === undefined) delete env.BENCH_SERVER_DIR;
    else env.BENCH_SERVER_DIR = serverDir;
    const child = spawn(process.execPath, [join(benchDir, 'ordersBench.js')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      process.stdout.write(chunk);
    });
    child.on('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      try {
        const figures = JSON.parse(last) as Figures;
        done(figures);
      } catch {
        fail(new Error(`bench:orders exited with ${code} without its JSON line`));
      }
    });
  });
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

const baseline = baselineBench();
const runs: { build: 'current' | 'baseline'; figures: Figures }[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  for (const build of ['current', 'baseline'] as const) {
    console.log(`\n== round ${round}: ${build === 'current' ? 'this build' : `baseline ${baseline.commit}`}`);
    runs.push({ build, figures: await runOnce(build === 'current' ? undefined : baseline.dir) });
  }
}

const KEYS = ['ordersPerSec', 'p50Ms', 'p99Ms', 'serverCpuUsPerOrder', 'serverMainThreadCpuUsPerOrder'] as const;
const medians = (build: 'current' | 'baseline'): Record<(typeof KEYS)[number], number> => {
  const mine = runs.filter((r) => r.build === build).map((r) => r.figures);
  return Object.fromEntries(KEYS.map((k) => [k, median(mine.map((f) => f[k]))])) as Record<(typeof KEYS)[number], number>;
};
const current = medians('current');
const base = medians('baseline');
const ratio = Object.fromEntries(KEYS.map((k) => [k, Math.round((current[k] / base[k]) * 100) / 100]));

console.log(`\nmedians of ${ROUNDS} run(s) each, alternating (this build / baseline ${baseline.commit} / ratio):`);
console.log('| figure | this build | baseline | ratio |');
console.log('|---|---|---|---|');
for (const k of KEYS) console.log(`| ${k} | ${current[k]} | ${base[k]} | ${ratio[k]} |`);
// The machine's state beside them: on a VM the same work costs more while the host is busy (machineSteal.ts).
const steals = runs.map((r) => `${r.build === 'current' ? 'this build' : 'baseline'} ${r.figures.stealPct ?? '?'}%`);
console.log(`steal over each window, in run order: ${steals.join(', ')}`);
console.log(JSON.stringify({ bench: 'orders-compare', baseline: baseline.commit, rounds: ROUNDS, current, baselineFigures: base, ratio, runs }));
