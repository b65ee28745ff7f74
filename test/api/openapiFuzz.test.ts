// The schema-driven fuzzer (schemathesis, from scripts/python/requirements.txt) over every operation of
// /openapi.json, against the whole service through its header edge, with a funded trader whose valid L1/L2
// headers sign each request and with real token, condition and order ids mixed into the generated data
// (test/fuzz/pmx_fuzz_hooks.py). It fails on a 5xx, a dropped connection, a status, content type or body
// the document does not list, an undocumented method not answered 405 with Allow, and a refused request
// that changed the engine's state.
//
// A fixed seed and a bounded number of examples per operation keep the run short; PMX_FUZZ_EXAMPLES and
// PMX_FUZZ_SEED make a larger or different one (`PMX_FUZZ_EXAMPLES=200 npx tap test/api/openapiFuzz.test.ts`);
// PMX_FUZZ_REPORT_DIR=<dir> keeps a HAR file of every exchange.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Wallet } from 'ethers';
import t from 'tap';
import { exportSnapshot } from '../../engine/index.js';
import type { Market } from '../../engine/market.js';
import { startTestService } from '../support/serviceFixture.js';
import { pythonTools } from '../support/pythonTools.js';
import { Trader } from '../support/tradingClient.js';

const EXAMPLES = Number(process.env.PMX_FUZZ_EXAMPLES ?? 8);
const SEED = Number(process.env.PMX_FUZZ_SEED ?? 20261124);
/** Where to write a HAR file of every request and response (for looking into a run). */
const REPORT_DIR = process.env.PMX_FUZZ_REPORT_DIR;
const HOOKS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fuzz');
const units = (n: number): number => Math.round(n * 1_000_000);

t.test('schemathesis over every operation of /openapi.json: no 5xx, nothing undocumented, no state change on refusal', async (t) => {
  const python = pythonTools();
  const svc = await startTestService();
  t.teardown(() => svc.close());
  const host = svc.service.engine;
  const engine = host.engine;

  const markets = [...engine.markets()].filter((m: Market) => m.status === 'active' && !m.params.negRisk).slice(0, 3);
  if (markets.length === 0) throw new Error('the demo catalog needs an active market');
  const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet);
  let nonce = 0;
  await trader.signIn(nonce);
  await host.submit({ type: 'Deposit', account: trader.account, amount: units(10_000) });
  const market = markets[0] as Market;
  await host.submit({ type: 'Split', account: trader.account, conditionId: market.conditionId, amount: units(100) });
  const orderIds: string[] = [];
  for (const price of [0.1, 0.11, 0.12]) {
    const tick = market.params.tickSize / 1_000_000;
    const p = Math.max(tick, Math.round(price / tick) * tick);
    const size = Math.max(10, Math.ceil(market.params.minSize / 1_000_000));
    const order = await trader.signOrder({ tokenId: market.tokenIds[0], side: 'BUY', makerAmount: Math.round(p * size * 1_000_000), takerAmount: units(size) });
    const placed = await trader.postOrder(order);
    const id = (placed.body as { orderID?: string }).orderID;
    if (placed.status !== 200 || id === undefined) throw new Error(`placing a fixture order failed: ${placed.status} ${placed.text}`);
    orderIds.push(id);
  }

  const stateHash = (): string => {
    // The engine's state without its event counter and clock: an engine rejection is an event too.
    const { seq: _seq, now: _now, ...held } = exportSnapshot(engine);
    return createHash('sha256').update(JSON.stringify(held)).digest('hex');
  };

  const side = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const input = chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString()) as { method?: string; path?: string; body?: string });
        let out: unknown;
        switch (req.url) {
          case '/fixtures':
            out = { tokenIds: markets.flatMap((m) => m.tokenIds), conditionIds: markets.map((m) => m.conditionId), orderIds, address: trader.address, apiKey: trader.requireCreds().apiKey };
            break;
          case '/state':
            await host.idle();
            out = { hash: stateHash() };
            break;
          case '/rotate':
            nonce += 1;
            await trader.signIn(nonce);
            out = {};
            break;
          case '/sign': {
            const path = input.path ?? '/';
            const method = input.method ?? 'GET';
            const body = Buffer.from(input.body ?? '', 'base64').toString('utf8');
            const relative = path.startsWith('/clob/') ? path.slice('/clob'.length) : undefined;
            if (relative === undefined) out = {};
            else if ((method === 'POST' && relative === '/auth/api-key') || (method === 'GET' && relative === '/auth/derive-api-key')) out = await trader.l1Headers(nonce);
            else out = trader.l2Headers(method, relative, body);
            break;
          }
          default:
            res.writeHead(404).end();
            return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
      })().catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => side.listen(0, '127.0.0.1', resolve));
  t.teardown(() => side.close());
  const sidePort = (side.address() as { port: number }).port;

  const args = [
    'run', `${svc.baseUrl}/openapi.json`,
    '--checks', 'all',
    '--phases', 'examples,coverage,fuzzing',
    '--max-examples', String(EXAMPLES),
    '--seed', String(SEED),
    '--workers', '1',
    '--no-shrink',
    '--request-timeout', '20',
    '--suppress-health-check', 'all',
    ...(REPORT_DIR === undefined ? [] : ['--report', 'har', '--report-dir', REPORT_DIR]),
  ];
  const env = { ...process.env, SCHEMATHESIS_HOOKS: 'pmx_fuzz_hooks', PYTHONPATH: HOOKS_DIR, PMX_FUZZ_SIDE: `http://127.0.0.1:${sidePort}`, NO_COLOR: '1' };
  const started = Date.now();
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(join(dirname(python), 'schemathesis'), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.stderr.on('data', (d: Buffer) => (text += d.toString()));
    child.on('close', (c) => resolve({ code: c, output: text }));
  });
  const summary = output.trim().split('\n').slice(-12).join('\n');
  t.comment(`schemathesis: ${EXAMPLES} examples per operation, seed ${SEED}, ${Math.round((Date.now() - started) / 1000)} s\n${summary}`);
  t.equal(code, 0, code === 0 ? 'no failure' : output.slice(-20_000));
  t.match(output, /\d+ passed/, 'operations were tested');
  t.same(engine.checkInvariants(), [], 'the engine invariants hold after the run');
  t.equal(svc.service.edge?.stats.internalErrors ?? 0, 0, 'the header edge never failed');
});
