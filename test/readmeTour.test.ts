// The README's tour runs as shown: the service is started as the tour starts it (operator API and analyst
// endpoint on, demo traders trading, its own embedded ClickHouse with the `exchange` database), then every
// command block between the tour markers runs in one bash, in order, with only the addresses changed to this
// service's ports. Each block's output must show what the README says it shows.

import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parseConfig } from '../config/index.js';
import { startService } from '../server/service.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const tour = readme.slice(readme.indexOf('<!-- tour:start -->'), readme.indexOf('<!-- tour:end -->'));
const blocks = [...tour.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);

// The start command the tour gives, parsed as npm start would parse it.
const startLine = /^npm start -- (--operator-token .+)$/m.exec(readme)?.[1] ?? "";
const parsed = parseConfig(startLine.split(/\s+/), {});
if (parsed.kind !== 'config') throw new Error(`the tour's start command does not parse: ${JSON.stringify(parsed)}`);
const config = {
  ...parsed.config,
  dataDir: mkdtempSync(join(tmpdir(), 'tour-')),
  httpPort: 0,
  clickhouseHttpPort: 0,
  rateLimit: false,
  logLevel: 'silent' as const,
  demoTraderCycleMs: 300,
};
const service = await startService(config, pino({ level: 'silent' }));
t.teardown(() => service.close());
const base = `http://127.0.0.1:${service.port}`;
const analyst = `127.0.0.1:${service.clickhouseHttp?.port ?? 0}`;

t.test('the tour has its four blocks and its start command turns on what they use', async (t) => {
  t.equal(blocks.length, 4);
  t.equal(parsed.config.operatorToken, 'tour-operator-token');
  t.equal(parsed.config.clickhouseHttpPort, 8123);
  t.equal(parsed.config.analystPassword, 'analyst-secret');
});

t.test('every block of the tour runs as shown', async (t) => {
  // Let the demo traders print a few trades first, as a reader's first minute would.
  for (let i = 0; i < 100; i++) {
    const trades = (await fetch(`${base}/activity/trades?limit=5`).then((r) => r.json())) as unknown[];
    if (trades.length >= 2) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const script = ['set -euo pipefail', ...blocks.map((b, i) => `echo "--- block ${i + 1}"\n${b}`)].join('\n')
    .replaceAll('http://127.0.0.1:8080', base)
    .replaceAll('127.0.0.1:8123', analyst);
  // Asynchronously: the service answers from this process's event loop, which a synchronous spawn would block.
  const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd: new URL('..', import.meta.url).pathname, env: { ...process.env, PMX_URL: base } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
  t.equal(run.status, 0, `the tour exits 0\n${run.stderr}`);
  const out = run.stdout.split(/--- block \d\n/).slice(1);
  t.match(out[0], /"slug":"fed-no-change-december-2026"/, 'block 1: the market');
  t.match(out[0], /"bids":\[\{"price"/, 'block 1: its book has bids');
  t.match(out[0], /\{"mid":"0\.\d+"\}/, 'block 1: the midpoint');
  t.match(out[1], /resting bid: \{"success":true/, 'block 2: the bid rests');
  t.match(out[1], /market buy: +\{"success":true,.*"status":"matched"/, 'block 2: the market buy fills');
  t.match(out[2], /^book \d+ bids, \d+ asks, hash [0-9a-f]{40}/m, 'block 3: the book snapshot from the market channel');
  t.match(out[3], /fills.*usdc/s, 'block 4: the analyst query answers');
});
