// The analyst's per-query limits (execution time, memory, result rows and bytes, threads) and the queue of
// analyst queries: at most N running, M waiting in arrival order, the rest refused at once.

import t from 'tap';
import { startTestService, type TestService } from '../support/serviceFixture.js';
import { chQuery } from './chHttp.js';

const ANALYST = { user: 'analyst', password: 'analyst-password' };

let svc: TestService;
let port: number;

t.before(async () => {
  svc = await startTestService({
    clickhouseHttpPort: 0,
    analystPassword: ANALYST.password,
    analystMaxExecutionSec: 1,
    analystMaxMemoryBytes: 64 * 1024 * 1024,
    analystMaxResultRows: 100,
    analystMaxResultBytes: 4096,
    analystMaxThreads: 1,
    analystMaxConcurrentQueries: 1,
    analystMaxQueuedQueries: 1,
  });
  port = svc.service.clickhouseHttp?.port ?? 0;
});
t.teardown(() => svc.close());

const ask = (query: string) => chQuery(port, query, ANALYST);
const code = (reply: { headers: Headers }) => reply.headers.get('x-clickhouse-exception-code');

t.test('each limit stops a query with ClickHouse’s error for it', async (t) => {
  const settings = await ask("SELECT getSetting('max_execution_time'), getSetting('max_memory_usage'), getSetting('max_result_rows'), getSetting('max_result_bytes'), getSetting('max_threads'), getSetting('readonly'), getSetting('os_thread_priority')");
  t.equal(settings.body, '1\t67108864\t100\t4096\t1\t1\t19\n', 'the session carries the configured limits, and analyst threads run at nice 19');
  const slow = await ask('SELECT count() FROM numbers(100000000000) WHERE NOT ignore(sipHash64(number))');
  t.equal(code(slow), '159', `execution time: TIMEOUT_EXCEEDED (${slow.body.trim()})`);
  t.equal(slow.status, 504);
  const big = await ask('SELECT length(groupArray(toString(number))) FROM numbers(50000000)');
  t.equal(code(big), '241', `memory: MEMORY_LIMIT_EXCEEDED (${big.body.trim()})`);
  t.equal(code(await ask('SELECT number FROM numbers(101)')), '396', 'result rows');
  t.equal((await ask('SELECT number FROM numbers(100)')).status, 200, 'at the row limit');
  t.equal(code(await ask("SELECT repeat('x', 1000) FROM numbers(90)")), '396', 'result bytes');
});

t.test('one query runs, one waits, the next is refused; the queue drains in order', async (t) => {
  const sleeper = 'SELECT sleep(0.5)';
  const order: number[] = [];
  const running = ask(sleeper).then((r) => (order.push(1), r));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const waiting = ask(sleeper).then((r) => (order.push(2), r));
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(svc.service.clickhouseHttp?.analystQueriesInFlight(), 2, 'one running, one waiting');
  const refused = await ask('SELECT 1');
  t.equal(code(refused), '202', `a third is refused at once: TOO_MANY_SIMULTANEOUS_QUERIES (${refused.body.trim()})`);
  t.equal(refused.status, 503);
  t.equal((await running).status, 200);
  t.equal((await waiting).status, 200);
  t.same(order, [1, 2], 'first come, first served');
  t.equal((await ask('SELECT 1')).status, 200, 'free again');
  t.equal(svc.service.clickhouseHttp?.analystQueriesInFlight(), 0);
});
