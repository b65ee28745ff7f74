// The analyst on ClickHouse's HTTP interface of a running service (raw HTTP, as curl sends it): what the
// protocol offers works, and everything outside the exchange database is refused with ClickHouse's own
// error, above all the host's files (the master secret of API keys) and the network.

import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { startTestService, type TestService } from '../support/serviceFixture.js';
import { chQuery, type ChAsk } from './chHttp.js';

const ANALYST = { user: 'analyst', password: 'analyst-password' };
const SERVICE = { user: 'service', password: 'service-password-0123' };

let svc: TestService;
let port: number;
let db: string;
let secretPath: string;
let secret: string;

t.before(async () => {
  svc = await startTestService({ clickhouseHttpPort: 0, analystPassword: ANALYST.password, clickhouseServicePassword: SERVICE.password });
  port = svc.service.clickhouseHttp?.port ?? 0;
  db = svc.service.config.clickhouseDatabase;
  secretPath = join(svc.service.config.dataDir, 'auth.secret');
  secret = readFileSync(secretPath, 'utf8').trim();
});
t.teardown(() => svc.close());

const asAnalyst = (query: string, ask: ChAsk = {}) => chQuery(port, query, { ...ANALYST, ...ask });

t.test('the protocol: ping, query in URL or body, formats, parameters, settings, query_id, gzip', async (t) => {
  const ping = await fetch(`http://127.0.0.1:${port}/ping`);
  t.equal(ping.status, 200);
  t.equal(await ping.text(), 'Ok.\n');

  const get = await asAnalyst('SELECT 1 + 1', { method: 'GET' });
  t.equal(get.status, 200);
  t.equal(get.body, '2\n', 'GET with the query in the URL; TabSeparated by default');
  t.equal(get.headers.get('x-clickhouse-format'), 'TabSeparated');

  const json = await asAnalyst('SELECT {n:UInt32} * 2 AS doubled, {s:String} AS s', { url: { param_n: '21', param_s: "it's", default_format: 'JSONEachRow' } });
  t.equal(json.status, 200);
  t.same(JSON.parse(json.body), { doubled: 42, s: "it's" }, 'param_* query parameters and default_format');
  t.match(json.headers.get('content-type') ?? '', /application\/json/);

  const own = await asAnalyst('SELECT 7 AS x FORMAT CSVWithNames', { url: { default_format: 'JSON' } });
  t.equal(own.body, '"x"\n7\n', "the statement's own FORMAT wins over default_format");

  const tables = await asAnalyst('SHOW TABLES', { url: { database: db } });
  t.match(tables.body, /^fills$/m, 'SHOW TABLES in the exchange database (the database parameter names it)');
  const described = await asAnalyst('DESCRIBE TABLE fills FORMAT TSVRaw');
  t.match(described.body, /^fill_id\t/m, 'DESCRIBE');
  const explained = await asAnalyst('EXPLAIN SELECT count() FROM fills');
  t.equal(explained.status, 200, 'EXPLAIN');
  const counted = await asAnalyst(`SELECT count() FROM ${db}.fills`);
  t.equal(counted.body, '0\n', 'database-qualified names');
  const meta = await asAnalyst("SELECT name FROM system.settings WHERE name = 'readonly'");
  t.equal(meta.body, 'readonly\n', 'the system tables clients read at connect');

  const same = await asAnalyst("SELECT getSetting('readonly')", { url: { readonly: '1' } });
  t.equal(same.body, '1\n', 'a URL setting equal to the value in force is accepted, as a server does');
  const shaped = await asAnalyst('SELECT toUInt64(1) AS n FORMAT JSONEachRow', { url: { output_format_json_quote_64bit_integers: '1' } });
  t.equal(shaped.body, '{"n":"1"}\n', 'output-format settings are the analyst’s to choose');

  const id = await asAnalyst('SELECT 1', { url: { query_id: 'my-query-1' } });
  t.equal(id.headers.get('x-clickhouse-query-id'), 'my-query-1');
  t.ok(JSON.parse(id.headers.get('x-clickhouse-summary') ?? '{}').read_rows !== undefined, 'X-ClickHouse-Summary');

  const url = new URL(`http://127.0.0.1:${port}/?enable_http_compression=1`);
  const zipped = await fetch(url, { method: 'POST', body: 'SELECT number FROM numbers(3)', headers: { 'X-ClickHouse-User': ANALYST.user, 'X-ClickHouse-Key': ANALYST.password, 'Accept-Encoding': 'gzip' } });
  t.equal(zipped.headers.get('content-encoding'), 'gzip');
  t.equal(await zipped.text(), '0\n1\n2\n', 'gzip when asked (fetch decompresses)');
  const raw = await new Promise<Buffer>((resolve, reject) => {
    import('node:http').then(({ request }) => {
      const req = request(url, { method: 'POST', headers: { 'X-ClickHouse-User': ANALYST.user, 'X-ClickHouse-Key': ANALYST.password, 'Accept-Encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks)));
      });
      req.on('error', reject);
      req.end('SELECT 5');
    }, reject);
  });
  t.equal(gunzipSync(raw).toString(), '5\n', 'the body on the wire is gzip');
  const plain = await asAnalyst('SELECT 5', { headers: { 'Accept-Encoding': 'gzip' } });
  t.equal(plain.headers.get('content-encoding'), null, 'no compression unless enable_http_compression=1');

  const basic = await chQuery(port, 'SELECT 3', { headers: { Authorization: `Basic ${Buffer.from(`${ANALYST.user}:${ANALYST.password}`).toString('base64')}` } });
  t.equal(basic.body, '3\n', 'basic auth');
  const inUrl = await chQuery(port, 'SELECT 4', { url: { user: ANALYST.user, password: ANALYST.password } });
  t.equal(inUrl.body, '4\n', 'user and password as URL parameters');
});

t.test('query parameters read as a server reads them (Escaped text), and cannot inject SQL', async (t) => {
  const q = (sql: string, params: Record<string, string>) => asAnalyst(sql, { url: Object.fromEntries(Object.entries(params).map(([k, v]) => [`param_${k}`, v])) });
  t.equal((await q('SELECT {s:String}', { s: 'tab\\there\\\\' })).body, 'tab\\there\\\\\n', 'String: escapes are read (and TSV output escapes again)');
  t.equal((await q('SELECT length({s:String})', { s: 'a\\tb' })).body, '3\n', 'an escaped tab is one character');
  t.equal((await q('SELECT {a:Array(String)}', { a: "['x\\'y','z']" })).body, "['x\\'y','z']\n", 'Array(String) in its own text form');
  t.equal((await q('SELECT {a:Array(UInt32)}', { a: '[1,2,3]' })).body, '[1,2,3]\n');
  t.equal((await q('SELECT isNull({n:Nullable(UInt8)})', { n: '\\N' })).body, '1\n', '\\N is NULL');
  t.equal((await q('SELECT count() FROM {t:Identifier}', { t: 'fills' })).body, '0\n', 'Identifier');
  t.equal((await q("SELECT '{x:String}'", {})).body, '{x:String}\n', 'a placeholder inside a string literal is text');
  const injected = await q('SELECT {s:String} FORMAT TSVRaw', { s: "x'), file('/etc/passwd" });
  t.equal(injected.body, "x'), file('/etc/passwd\n", 'a value is a value, never SQL');
  const identifier = await q('SELECT * FROM {t:Identifier}', { t: 'system.query_log' });
  t.equal(identifier.headers.get('x-clickhouse-exception-code'), '497', 'an Identifier value (db.table, as on a server) goes through the same checks');
  const missing = await q('SELECT {absent:UInt8}', {});
  t.equal(missing.headers.get('x-clickhouse-exception-code'), '456', 'a placeholder without a value');
});

t.test('errors come as ClickHouse sends them', async (t) => {
  for (const [name, reply] of [
    ['wrong password', await chQuery(port, 'SELECT 1', { user: ANALYST.user, password: 'nope' })],
    ['unknown user', await chQuery(port, 'SELECT 1', { user: 'root', password: ANALYST.password })],
    ['no credentials', await chQuery(port, 'SELECT 1')],
  ] as const) {
    t.equal(reply.status, 401, name);
    t.equal(reply.headers.get('x-clickhouse-exception-code'), '516', name);
    t.match(reply.body, /^Code: 516\. DB::Exception: .*\(AUTHENTICATION_FAILED\) \(version [\d.]+\)\n$/, name);
  }
  const syntax = await asAnalyst('SELEC 1');
  t.equal(syntax.status, 400);
  t.match(syntax.body, /^Code: 62\. DB::Exception: .*\(SYNTAX_ERROR\)/);
  const unknown = await asAnalyst('SELECT * FROM no_such_table');
  t.equal(unknown.status, 404);
  t.match(unknown.body, /^Code: 60\. .*\(UNKNOWN_TABLE\)/);
  const empty = await asAnalyst('');
  t.equal(empty.status, 400);
  const rows = await asAnalyst('SELECT number FROM numbers(2000000)');
  t.match(rows.body, /^Code: 396\. .*\(TOO_MANY_ROWS_OR_BYTES\)/, 'max_result_rows: an error, never a cut result');
  const nothere = await fetch(`http://127.0.0.1:${port}/play`);
  t.equal(nothere.status, 404);
});

/** What the analyst may not do, each with the error code ClickHouse gives it. */
const REFUSED: ReadonlyArray<readonly [string, () => string, number]> = [
  ['INSERT', () => 'INSERT INTO fills SELECT * FROM fills', 164],
  ['INSERT VALUES', () => 'INSERT INTO engine_markets (market) VALUES (1)', 164],
  ['CREATE TABLE', () => 'CREATE TABLE t (a Int8) ENGINE = Memory', 164],
  ['CREATE TEMPORARY TABLE', () => 'CREATE TEMPORARY TABLE t (a Int8)', 164],
  ['DROP TABLE', () => 'DROP TABLE fills', 164],
  ['TRUNCATE', () => 'TRUNCATE TABLE fills', 164],
  ['ALTER DELETE', () => 'ALTER TABLE fills DELETE WHERE 1', 164],
  ['OPTIMIZE', () => 'OPTIMIZE TABLE fills FINAL', 164],
  ['RENAME', () => 'RENAME TABLE fills TO f2', 164],
  ['SET', () => 'SET max_execution_time = 0', 164],
  ['SYSTEM', () => 'SYSTEM DROP MARK CACHE', 164],
  ['KILL QUERY', () => 'KILL QUERY WHERE 1', 164],
  ['SHOW PROCESSLIST', () => 'SHOW PROCESSLIST', 164],
  ['SHOW GRANTS', () => 'SHOW GRANTS', 164],
  ['EXPLAIN of an INSERT', () => 'EXPLAIN AST INSERT INTO fills SELECT * FROM fills', 164],
  ['CREATE DICTIONARY with a file source', () => "CREATE DICTIONARY d (k UInt64, v String) PRIMARY KEY k SOURCE(FILE(path '/etc/passwd' format 'TabSeparated')) LAYOUT(FLAT()) LIFETIME(0)", 164],
  ['a query SETTINGS clause that lifts readonly', () => 'SELECT 1 SETTINGS readonly = 0', 164],
  ['a query SETTINGS clause that lifts a limit', () => 'SELECT 1 SETTINGS max_result_rows = 0', 164],
  ['two statements', () => 'SELECT 1; SELECT 2', 62],
  ['the file() function on the master secret', () => `SELECT file('${secretPath}')`, 497],
  ['the file() function, upper case', () => `SELECT FILE('${secretPath}')`, 497],
  ['the file() table function', () => `SELECT * FROM file('${secretPath}', 'LineAsString')`, 497],
  ['file() inside view()', () => `SELECT * FROM view(SELECT file('${secretPath}') AS s)`, 497],
  ['file() in a lambda', () => `SELECT arrayMap(p -> file(p), ['${secretPath}'])`, 497],
  ['file() in a subquery', () => `SELECT count() FROM fills WHERE fill_id IN (SELECT file('${secretPath}'))`, 497],
  ['url()', () => "SELECT * FROM url('http://127.0.0.1:1/', 'LineAsString')", 497],
  ['s3()', () => "SELECT * FROM s3('http://127.0.0.1:1/bucket/key.csv', 'LineAsString')", 497],
  ['remote()', () => "SELECT * FROM remote('127.0.0.1:9000', system.one)", 497],
  ['remoteSecure()', () => "SELECT * FROM remoteSecure('127.0.0.1:9440', system.one)", 497],
  ['cluster()', () => "SELECT * FROM cluster('default', system.one)", 497],
  ['executable()', () => "SELECT * FROM executable('cat /etc/passwd', 'LineAsString', 'l String')", 497],
  ['mysql()', () => "SELECT * FROM mysql('127.0.0.1:3306', 'db', 't', 'u', 'p')", 497],
  ['postgresql()', () => "SELECT * FROM postgresql('127.0.0.1:5432', 'db', 't', 'u', 'p')", 497],
  ['hdfs()', () => "SELECT * FROM hdfs('hdfs://127.0.0.1:9000/x', 'TSV', 'a String')", 497],
  ['sqlite()', () => "SELECT * FROM sqlite('/etc/passwd', 't')", 497],
  ['dictionary()', () => "SELECT * FROM dictionary('d')", 497],
  ['dictGet()', () => "SELECT dictGet('d', 'v', toUInt64(1))", 497],
  ['joinGet()', () => "SELECT joinGet('default.j', 'v', 1)", 497],
  ['merge() over other databases', () => "SELECT * FROM merge('system', '^query_log$')", 497],
  ['INTO OUTFILE', () => "SELECT 1 INTO OUTFILE '/tmp/pmx-analyst-outfile.txt'", 497],
  ['EXPLAIN ... INTO OUTFILE', () => "EXPLAIN SELECT 1 INTO OUTFILE '/tmp/pmx-analyst-outfile.txt'", 497],
  ['FROM INFILE', () => `INSERT INTO fills FROM INFILE '${secretPath}' FORMAT LineAsString`, 497],
  ['another database', () => 'SELECT * FROM default.anything', 497],
  ['another database in IN', () => 'SELECT 1 WHERE 1 IN default.anything', 497],
  ['SHOW TABLES of another database', () => 'SHOW TABLES FROM default', 497],
  ['DESCRIBE in another database', () => 'DESCRIBE TABLE default.anything', 497],
  ['SHOW CREATE TABLE of a system table not on the list', () => 'SHOW CREATE TABLE system.query_log', 497],
  ['EXISTS in another database', () => 'EXISTS TABLE default.anything', 497],
  ['SHOW COLUMNS of another database', () => 'SHOW COLUMNS FROM anything FROM default', 497],
  ['a system table not on the list', () => 'SELECT query FROM system.query_log', 497],
  ['system.processes', () => 'SELECT query FROM system.processes', 497],
  ['system.disks (host paths)', () => 'SELECT path FROM system.disks', 497],
  ['system.users', () => 'SELECT * FROM system.users', 497],
];

t.test('every refusal, with ClickHouse’s code, and nothing of the host leaks', async (t) => {
  t.ok(secret.length >= 32, 'the service has a master secret on disk');
  for (const [name, sql, code] of REFUSED) {
    const reply = await asAnalyst(sql());
    t.equal(reply.headers.get('x-clickhouse-exception-code'), String(code), `${name}: code ${code} (${reply.body.trim()})`);
    t.ok(reply.status >= 400, `${name}: an error status`);
    t.notOk(reply.body.includes(secret), `${name}: the reply does not carry the master secret`);
  }
  t.notOk(existsSync('/tmp/pmx-analyst-outfile.txt'), 'INTO OUTFILE wrote nothing');

  const viaUrl = await asAnalyst('SELECT 1', { url: { readonly: '0' } });
  t.equal(viaUrl.headers.get('x-clickhouse-exception-code'), '164', 'readonly=0 as a URL setting is refused');
  const limitViaUrl = await asAnalyst('SELECT 1', { url: { max_execution_time: '0' } });
  t.equal(limitViaUrl.headers.get('x-clickhouse-exception-code'), '164', 'a limit lifted by URL setting is refused');
  const injected = await asAnalyst('SELECT 1', { url: { output_format_csv_crlf_end_of_line: "1'; SET readonly = 0; SELECT '" } });
  t.equal(injected.headers.get('x-clickhouse-exception-code'), '36', 'a setting value with a quote is refused before it reaches SQL');
  for (const [name, value] of [
    ['output_format_schema', '/tmp/pmx-analyst-schema.proto'],
    ['format_schema', `${secretPath}:Message`],
    ['format_template_resultset', secretPath],
  ] as const) {
    const reply = await asAnalyst('SELECT 1', { url: { [name]: value } });
    t.equal(reply.headers.get('x-clickhouse-exception-code'), '164', `${name}, a setting that names a file, is refused`);
    t.notOk(reply.body.includes(secret), `${name}: no secret in the reply`);
  }
  t.notOk(existsSync('/tmp/pmx-analyst-schema.proto'), 'no schema file was written');
  const otherDb = await asAnalyst('SELECT 1', { url: { database: 'default' } });
  t.equal(otherDb.headers.get('x-clickhouse-exception-code'), '497', 'the database parameter cannot name another database');
  const anon = await chQuery(port, `SELECT file('${secretPath}')`, { user: SERVICE.user, password: 'wrong-password-0123' });
  t.equal(anon.status, 401);

  const after = await asAnalyst('SELECT count() FROM fills');
  t.equal(after.body, '0\n', 'nothing was written');
  const tables = await asAnalyst("SELECT count() FROM system.tables WHERE database = currentDatabase() AND name IN ('t', 'f2', 'd')");
  t.equal(tables.body, '0\n', 'nothing was created');
});

t.test('the read-write service user writes, the analyst still cannot', async (t) => {
  const create = await chQuery(port, 'CREATE TABLE svc_scratch (a UInt8) ENGINE = MergeTree ORDER BY a', SERVICE);
  t.equal(create.status, 200, create.body);
  const insert = await chQuery(port, '1\n2\n', { ...SERVICE, url: { query: 'INSERT INTO svc_scratch FORMAT TSV' } });
  t.equal(insert.status, 200, 'INSERT with its data in the body');
  t.equal((await chQuery(port, 'SELECT sum(a) FROM svc_scratch', SERVICE)).body, '3\n');
  t.equal((await asAnalyst('SELECT sum(a) FROM svc_scratch')).body, '3\n', 'the analyst reads what the service wrote');
  t.equal((await asAnalyst('DROP TABLE svc_scratch')).headers.get('x-clickhouse-exception-code'), '164');
  t.equal((await chQuery(port, 'DROP TABLE svc_scratch', SERVICE)).status, 200);
});
