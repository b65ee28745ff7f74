// The schema-driven fuzzer (schemathesis, from scripts/python/requirements.txt) with every one of its checks
// (`--checks all`) over every operation of /openapi.json, the operator API's included, against the whole
// service through its header edge: each request signed as a funded trader (L1/L2 headers) or as the operator,
// real token, condition and order ids and freshly signed orders mixed into the requests the document admits
// (test/fuzz/pmx_fuzz_hooks.py). It fails on any failure: a 5xx, a dropped connection, a status, content type,
// header or body the document does not list, a request the document admits that is refused (other than by the
// engine's judgement of the state it finds), a request it refuses that is accepted, an undocumented method not
// answered 405 with Allow, and a refused request that changed the engine's state. test/fuzz/schemathesis.toml
// holds the run's configuration.
//
// A fixed seed and a bounded number of examples per operation keep the run short; PMX_FUZZ_EXAMPLES and
// PMX_FUZZ_SEED make a larger or different one (docs/testing.md: `PMX_FUZZ_EXAMPLES=40 PMX_FUZZ_SEED=7331 npx
// tap test/api/openapiFuzz.test.ts`); PMX_FUZZ_REPORT_DIR=<dir> keeps a HAR file of every exchange and the
// schemathesis output (schemathesis.txt).

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Wallet } from 'ethers';
import t from 'tap';
import { exportSnapshot, restoreSnapshot, type EngineSnapshot } from '../../engine/index.js';
import type { Market } from '../../engine/market.js';
import { startTestService } from '../support/serviceFixture.js';
import { pythonTools } from '../support/pythonTools.js';
import { Trader } from '../support/tradingClient.js';

const EXAMPLES = Number(process.env.PMX_FUZZ_EXAMPLES ?? 8);
const SEED = Number(process.env.PMX_FUZZ_SEED ?? 20261124);
/** Where to write a HAR file of every request and response (for looking into a run). */
const REPORT_DIR = process.env.PMX_FUZZ_REPORT_DIR;
const HOOKS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'fuzz');
const OPERATOR_TOKEN = 'fuzz-operator-token-0123456789';
const units = (n: number): number => Math.round(n * 1_000_000);

t.test('schemathesis over every operation of /openapi.json: no 5xx, nothing undocumented, no state change on refusal', async (t) => {
  const python = pythonTools();
  // A heartbeat session the fuzzer starts must not end (and cancel the trader's orders) in the middle of the run.
  const svc = await startTestService({ operatorToken: OPERATOR_TOKEN, heartbeatTimeoutSec: 3600 });
  t.teardown(() => svc.close());
  const host = svc.service.engine;
  const engine = host.engine;

  const markets = [...engine.markets()].filter((m: Market) => m.status === 'active' && !m.params.negRisk).slice(0, 3);
  if (markets.length === 0) throw new Error('the demo catalog needs an active market');
  const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet);
  // POST /auth/api-key and GET /auth/derive-api-key are signed by a wallet of their own with a new nonce each
  // time, so that each finds its slot free (a taken slot is a 400 no document can foresee).
  const keyMaker = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet);
  let keyNonce = 0;
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

  // The engine's state without its event counter and clock (an engine rejection is an event too), and apart
  // from what time changes whatever command comes: the memories of finished orders and applied signed requests
  // forget entries (so a request may only not add to them, checked against the mark before it), and the
  // liquidity rewards are sampled every minute (the host's timer: only their terms count here).
  const stateOf = (snapshot: EngineSnapshot): { hash: string; memory: Set<string> } => {
    const { seq: _seq, now: _now, done, requests, ordersForgottenThrough: _o, requestsForgottenThrough: _r, rewards, ...rest } = snapshot;
    const held = { ...rest, rewardTerms: rewards?.terms };
    const memory = new Set([...(done ?? []).map((d) => `done:${JSON.stringify(d)}`), ...(requests ?? []).map((r) => `request:${JSON.stringify(r)}`)]);
    return { hash: createHash('sha256').update(JSON.stringify(held)).digest('hex'), memory };
  };
  // The state at the mark moved to the engine's time now by time alone (AdvanceTime on a copy): what falls due
  // as time passes (GTD orders, heartbeat sessions, a resolved market's rewards program ending at its next
  // sample) happens at the first command past it, which may be the refused request or the host's timer while
  // it was in flight. A refused request must leave the state as time alone would have.
  const byTimeAlone = (mark: EngineSnapshot, now: number): { hash: string; memory: Set<string> } => {
    const copy = restoreSnapshot(mark);
    copy.apply({ type: 'AdvanceTime', time: now });
    return stateOf(exportSnapshot(copy));
  };
  let marked = new Set<string>();
  let markedHash = '';
  let markedSnapshot: EngineSnapshot | undefined;

  const side = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const input = chunks.length === 0 ? {} : (JSON.parse(Buffer.concat(chunks).toString()) as { method?: string; path?: string; body?: string });
        let out: unknown;
        switch (req.url) {
          case '/fixtures':
            out = {
              tokenIds: markets.flatMap((m) => m.tokenIds), firstTokenIds: markets.map((m) => m.tokenIds[0]), conditionIds: markets.map((m) => m.conditionId),
              orderIds, address: trader.address, apiKey: trader.requireCreds().apiKey,
            };
            break;
          case '/mark': {
            await host.idle();
            markedSnapshot = exportSnapshot(engine);
            const now = stateOf(markedSnapshot);
            marked = now.memory;
            markedHash = now.hash;
            out = { hash: now.hash, seq: engine.seq };
            break;
          }
          case '/state': {
            await host.idle();
            const now = stateOf(exportSnapshot(engine));
            let added = [...now.memory].filter((m) => !marked.has(m));
            let hash = now.hash;
            if ((hash !== markedHash || added.length > 0) && markedSnapshot !== undefined) {
              // The state differs from the mark: it counts as unchanged if time alone made the difference.
              const timed = byTimeAlone(markedSnapshot, engine.now);
              if (timed.hash === now.hash) hash = markedHash;
              added = added.filter((m) => !timed.memory.has(m));
            }
            out = { hash, seq: engine.seq, added: added.slice(0, 5) };
            break;
          }
          case '/order': {
            // A small BUY of a fixture token, valid in every way but the engine's judgement (funds, fills).
            const { n = 0, orderType = 'GTC' } = input as { n?: number; orderType?: string };
            const m = markets[n % markets.length] as Market;
            const tick = m.params.tickSize / 1_000_000;
            const price = tick * (1 + (n % 5));
            const size = Math.max(10, Math.ceil(m.params.minSize / 1_000_000));
            const gtd = orderType.toUpperCase() === 'GTD';
            const order = await trader.signOrder({
              tokenId: m.tokenIds[n % 2] as string, side: 'BUY', makerAmount: Math.round(price * size * 1_000_000), takerAmount: units(size),
              ...(gtd ? { expiration: Math.floor(Date.now() / 1000) + 7200 } : {}),
            });
            out = { order, owner: trader.requireCreds().apiKey };
            break;
          }
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
            if (path.startsWith('/operator/')) out = { authorization: `Bearer ${OPERATOR_TOKEN}` };
            else if (relative === undefined) out = {};
            else if ((method === 'POST' && relative === '/auth/api-key') || (method === 'GET' && relative === '/auth/derive-api-key')) out = await keyMaker.l1Headers((keyNonce += 1));
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
    '--config-file', join(HOOKS_DIR, 'schemathesis.toml'),
    'run', `${svc.baseUrl}/openapi.json`,
    '--checks', 'all',
    '--phases', 'examples,coverage,fuzzing',
    '--max-examples', String(EXAMPLES),
    '--seed', String(SEED),
    '--workers', '1',
    '--no-shrink',
    '--request-timeout', '20',
    '--suppress-health-check', 'all',
    '--output-sanitize', 'false',
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
  if (REPORT_DIR !== undefined) writeFileSync(join(REPORT_DIR, 'schemathesis.txt'), output);
  const summary = output.trim().split('\n').slice(-12).join('\n');
  t.comment(`schemathesis: ${EXAMPLES} examples per operation, seed ${SEED}, ${Math.round((Date.now() - started) / 1000)} s\n${summary}`);
  t.equal(code, 0, code === 0 ? 'no failure' : output.slice(-20_000));
  t.match(output, /\d+ passed/, 'operations were tested');
  t.same(engine.checkInvariants(), [], 'the engine invariants hold after the run');
  t.equal(svc.service.edge?.stats.internalErrors ?? 0, 0, 'the header edge never failed');
});
