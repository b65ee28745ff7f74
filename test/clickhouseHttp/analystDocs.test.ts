// docs/analysts.md's examples run as shown: every ```sql block as the analyst over raw HTTP, and the Python
// block with clickhouse-connect (its port and password swapped for this run's), against a projected trading
// session with fills of every kind, positions, orders and price history.

import t from 'tap';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { startClickHouseHttp, type ClickHouseHttpServer } from '../../api/clickhouseHttp/clickhouseHttpServer.js';
import { Projector } from '../../projections/projector.js';
import { chdbPathOf } from '../../storage/clickhouse.js';
import { FEE_ACCOUNT, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';
import { pythonTools } from '../support/pythonTools.js';
import { chQuery } from './chHttp.js';

const doc = readFileSync(new URL('../../docs/analysts.md', import.meta.url), 'utf8');
const blocks = (lang: string): string[] => [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] ?? '');
const PASSWORD = 'a long analyst password';

let server: ClickHouseHttpServer;

t.before(async () => {
  const session = await loggedSession(sessionFor(101, 500));
  const { ch, db } = await freshDatabase();
  const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT });
  await projector.start();
  await projector.catchUp();
  await session.journal.close();
  server = await startClickHouseHttp({
    host: '127.0.0.1',
    port: 0,
    chdbPath: chdbPathOf(ch) ?? '',
    database: db,
    users: [{ name: 'analyst', password: PASSWORD, role: 'analyst' }],
    analystLimits: { maxExecutionSec: 30, maxMemoryBytes: 1 << 30, maxResultRows: 100_000, maxResultBytes: 64 << 20, maxThreads: 1, nice: 19 },
    analystConcurrentQueries: 1,
    analystQueuedQueries: 4,
  });
});
t.teardown(() => server.close());

t.test('every SQL example runs as shown and returns rows', async (t) => {
  const examples = blocks('sql');
  t.ok(examples.length >= 6, `${examples.length} SQL examples`);
  for (const sql of examples) {
    const reply = await chQuery(server.port, sql, { user: 'analyst', password: PASSWORD });
    t.equal(reply.status, 200, `${sql.split('\n')[0]} … (${reply.status === 200 ? 'ok' : reply.body.trim()})`);
    t.ok(reply.body.trim().split('\n').length >= 1 && reply.body.trim() !== '', `returns rows: ${sql.split('\n')[0]}`);
  }
});

t.test('the Python example runs as shown', async (t) => {
  const [python] = blocks('python');
  t.ok(python !== undefined && python.includes('clickhouse_connect'), 'the page has the Python example');
  const script = (python ?? '').replace('port=8124', `port=${server.port}`);
  const { stdout } = await promisify(execFile)(pythonTools(), ['-c', script], { encoding: 'utf8', timeout: 120_000 });
  const [kinds, count] = stdout.trim().split('\n');
  t.match(kinds ?? '', /^\[\('merge', \d+, [\d.]+\), \('mint', \d+, [\d.]+\), \('normal', \d+, [\d.]+\)\]$/, `fills by kind: ${kinds ?? ''}`);
  t.equal(count, '[(0,)]', 'a query with a parameter');
});
