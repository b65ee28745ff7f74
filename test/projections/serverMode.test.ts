// The projection and read-model suites again, in server mode (--clickhouse-mode server), against a ClickHouse
// server: the service itself, in another process, serving its embedded ClickHouse over ClickHouse's HTTP
// interface to its read-write service user (no ClickHouse server can be installed on these machines; this
// is the real engine behind the real protocol). It covers the server-mode code path: inserts through
// client.insert() with their deduplication tokens as settings, settings and query parameters per request.
// Each suite file runs as its own process with PMX_TEST_CLICKHOUSE_URL set (projectionFixtures.ts
// freshDatabase() then opens the server), and must pass whole.

import t from 'tap';
import { execFile } from 'node:child_process';
import { CLICKHOUSE_SERVICE_PASSWORD, startClickHouseHost } from '../support/serviceProcess.js';

/** Every suite that takes its ClickHouse from freshDatabase(), except insertTogether.test.ts, which tests the
 * embedded path's several statements in one chDB call (a server takes one statement per request). */
const SUITES = [
  'projector',
  'projectorDerived',
  'projectorOffer',
  'projectorRecovery',
  'projectorReads',
  'bulkInsert',
  'readModelActivity',
  'readModelOrders',
  'readModelPositions',
  'readModelPriceHistory',
  'readModelSession',
  'readModelTrades',
];
// Twelve suites take about two minutes alone, more beside the rest of a full tap run: past .taprc's 300 s.
t.setTimeout(900_000);
const root = new URL('../../', import.meta.url).pathname;

function runSuite(file: string, url: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    // Without tap's own variables: the suite runs as a plain TAP producer, not as a child of this tap run.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('TAP') && !name.startsWith('_TAPJS')));
    const env = { ...inherited, TAP_TIMEOUT: '300', PMX_TEST_CLICKHOUSE_URL: url, PMX_TEST_CLICKHOUSE_USER: 'service', PMX_TEST_CLICKHOUSE_PASSWORD: CLICKHOUSE_SERVICE_PASSWORD };
    execFile(process.execPath, ['--import', 'tsx', file], { cwd: root, env, maxBuffer: 64 << 20, timeout: 240_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, output: stdout + stderr });
    });
  });
}

t.test('the projection and read-model suites pass in server mode against the service as ClickHouse server', async (t) => {
  const host = await startClickHouseHost();
  t.teardown(async () => {
    await host.process.kill('SIGTERM');
  });
  // Two suites at a time: the machine has two cores, and the host process does the ClickHouse work.
  const queue = [...SUITES];
  const results = new Map<string, { code: number; output: string }>();
  await Promise.all(
    [0, 1].map(async () => {
      for (let suite = queue.shift(); suite !== undefined; suite = queue.shift()) results.set(suite, await runSuite(`test/projections/${suite}.test.ts`, host.url));
    }),
  );
  for (const suite of SUITES) {
    const result = results.get(suite) ?? { code: -1, output: '' };
    const summary = /^# \{ total: (\d+), pass: (\d+)(?:, fail: (\d+))?/m.exec(result.output);
    const failing = result.output.split('\n').filter((line) => /^\s*not ok/.test(line));
    t.equal(result.code, 0, `${suite}: exit status 0${failing.length > 0 ? `; failing: ${failing.slice(0, 5).join(' | ')}` : ''}`);
    t.ok(summary !== null && Number(summary[2]) > 0 && summary[3] === undefined, `${suite}: ${summary?.[0] ?? 'no summary'}`);
  }
});
