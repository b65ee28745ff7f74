// An analyst's query sees every command the service acknowledged before the query arrived, however far apart
// the projector spaces its light-load commits: the endpoint waits for the projector to reach that position
// first (server/service.ts, ClickHouseHttpOptions.caughtUp).

import t from 'tap';
import { startTestService, type TestService } from '../support/serviceFixture.js';
import { chQuery } from './chHttp.js';

const ANALYST = { user: 'analyst', password: 'analyst-password' };
const OPERATOR = 'operator-token-read-your-writes';

let svc: TestService;
let port: number;
let db: string;

t.before(async () => {
  // A minute between light-load commits: without the wait, a deposit would reach the tables a minute later.
  svc = await startTestService({ clickhouseHttpPort: 0, analystPassword: ANALYST.password, operatorToken: OPERATOR, projectionLightLoadMs: 60_000 });
  port = svc.service.clickhouseHttp?.port ?? 0;
  db = svc.service.config.clickhouseDatabase;
});
t.teardown(() => svc.close());

async function deposit(address: string, amount: string): Promise<void> {
  const res = await fetch(`${svc.baseUrl}/operator/deposit`, { method: 'POST', headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' }, body: JSON.stringify({ address, amount }) });
  if (res.status !== 200) throw new Error(`deposit: ${res.status} ${await res.text()}`);
}

const depositsOf = async (address: string): Promise<string> =>
  (await chQuery(port, `SELECT count() FROM ${db}.ledger_events WHERE account = {a:String} AND kind = 'deposit'`, { ...ANALYST, url: { param_a: address } })).body;

t.test('a deposit acknowledged before the query is in the answer at once', async (t) => {
  const address = '0x' + 'ab'.repeat(20);
  t.equal(await depositsOf(address), '0\n', 'none before');
  for (let i = 1; i <= 3; i++) {
    await deposit(address, '10');
    const started = performance.now();
    t.equal(await depositsOf(address), `${i}\n`, `deposit ${i} is counted by the next query`);
    t.ok(performance.now() - started < 5_000, 'within the wait, not after the light-load pause');
  }
});
