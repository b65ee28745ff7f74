// Ordinary ClickHouse clients, unchanged, as the analyst: the official @clickhouse/client (npm) and Python's
// clickhouse-connect (PyPI, from the repo's Python tools venv). Each connects, queries with and without
// server-side parameters, lists tables, and gets ClickHouse's own errors for what the analyst may not do.

import t from 'tap';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createClient } from '@clickhouse/client';
import { startTestService, type TestService } from '../support/serviceFixture.js';
import { pythonTools } from '../support/pythonTools.js';

const PASSWORD = 'analyst-password';

let svc: TestService;
let port: number;
let db: string;
let secretPath: string;

t.before(async () => {
  svc = await startTestService({ clickhouseHttpPort: 0, analystPassword: PASSWORD });
  port = svc.service.clickhouseHttp?.port ?? 0;
  db = svc.service.config.clickhouseDatabase;
  secretPath = join(svc.service.config.dataDir, 'auth.secret');
});
t.teardown(() => svc.close());

t.test('@clickhouse/client', async (t) => {
  const client = createClient({ url: `http://127.0.0.1:${port}`, username: 'analyst', password: PASSWORD, database: db });
  t.teardown(() => client.close());
  t.equal((await client.ping()).success, true, 'ping');
  const counted = await client.query({ query: 'SELECT count() AS n FROM fills', format: 'JSONEachRow' });
  t.same(await counted.json(), [{ n: '0' }], 'JSONEachRow, 64-bit integers quoted as a server does by default');
  const bound = await client.query({ query: 'SELECT {a:UInt32} + {b:UInt32} AS s, {who:String} AS who', format: 'JSONEachRow', query_params: { a: 40, b: 2, who: "o'brien" } });
  t.same(await bound.json(), [{ s: 42, who: "o'brien" }], 'query_params');
  const markets = await client.query({ query: "SELECT name FROM system.tables WHERE database = {db:String} AND name = 'engine_markets'", format: 'JSONEachRow', query_params: { db } });
  t.same(await markets.json(), [{ name: 'engine_markets' }], 'system.tables');
  const compressed = createClient({ url: `http://127.0.0.1:${port}`, username: 'analyst', password: PASSWORD, database: db, compression: { response: true } });
  t.teardown(() => compressed.close());
  const numbers = await compressed.query({ query: 'SELECT number FROM numbers(1000)', format: 'JSONCompactEachRow' });
  t.equal(((await numbers.json()) as unknown[]).length, 1000, 'compressed responses (enable_http_compression)');

  for (const [sql, code] of [
    [`SELECT file('${secretPath}')`, '497'],
    ['INSERT INTO fills SELECT * FROM fills', '164'],
    ["SELECT * FROM url('http://127.0.0.1:1/', 'LineAsString')", '497'],
    ['SELECT * FROM system.query_log', '497'],
  ] as const) {
    await t.rejects(client.query({ query: sql, format: 'JSONEachRow' }), { code }, `refused with code ${code}: ${sql}`);
  }
  await t.rejects(client.command({ query: 'DROP TABLE fills' }), { code: '164' }, 'command() DDL is refused');
  const wrong = createClient({ url: `http://127.0.0.1:${port}`, username: 'analyst', password: 'not-the-password' });
  t.teardown(() => wrong.close());
  await t.rejects(wrong.query({ query: 'SELECT 1' }), { code: '516' }, 'a wrong password');
});

t.test('clickhouse-connect (Python)', async (t) => {
  const python = pythonTools();
  const script = new URL('./clickhouseConnect.py', import.meta.url).pathname;
  const { stdout } = await promisify(execFile)(python, [script, String(port), 'analyst', PASSWORD, db, secretPath], { encoding: 'utf8', timeout: 120_000 });
  const out = JSON.parse(stdout) as { server_version: string; count: number; params: number; rows: unknown[]; tables: string[]; command: number; refusals: Record<string, string> };
  t.match(out.server_version, /^\d+\.\d+/, 'connected (it reads version, timezone and system.settings at connect)');
  t.equal(out.count, 0);
  t.equal(out.params, 42, 'server-side parameters');
  t.same(out.rows, [[0, '0'], [1, '1'], [2, '2']], 'rows in Native format');
  t.ok(out.tables.includes('fills') && out.tables.includes('positions'), 'SHOW TABLES');
  t.equal(out.command, 42, 'command()');
  t.match(out.refusals.file, /Code: 497\..*ACCESS_DENIED/, 'file() refused');
  t.match(out.refusals.insert, /Code: 164\..*READONLY/, 'INSERT refused');
  t.match(out.refusals.url, /Code: 497\./, 'url() refused');
  t.match(out.refusals.other_db, /Code: 497\./, 'system.query_log refused');
});
