// Hostile input against every order-book read of the whole running service: query strings and path
// parameters sent as raw request lines (random keys, known and odd; values that are huge, negative,
// fractional, any Unicode, malformed percent-encodings, comma lists, real ids and cursors), and POST bodies
// (any JSON, batches with ill-typed items, history bodies with odd bounds, non-JSON bytes). Every answer
// must be below 500, every 4xx a JSON object with a string `error`, the server must keep serving, and the
// engine must not change: same state hash, same log position.
//
// PMX_HOSTILE_RUNS sets the number of requests of each kind (default 300).

import fc from 'fast-check';
import { queryPairArb, queryValueArb } from '../support/hostileQuery.js';
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import type { Market } from '../../engine/market.js';
import { buy, sell, units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { holdTimedCommands } from '../support/timedCommands.js';

const RUNS = Number(process.env.PMX_HOSTILE_RUNS ?? 300);

interface RawReply {
  status: number;
  type: string;
  body: string;
}

/** One request with the target exactly as given (no URL normalisation), on its own connection. */
function rawRequest(port: number, method: 'GET' | 'POST', target: string, body = ''): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    let done = false;
    const finish = (error?: Error, reply?: RawReply): void => {
      if (done) return;
      done = true;
      socket.destroy();
      if (error !== undefined) reject(error);
      else resolve(reply as RawReply);
    };
    const tryParse = (ended: boolean): void => {
      const headEnd = data.indexOf('\r\n\r\n');
      if (headEnd < 0) {
        if (ended) finish(new Error(`connection closed without a response to ${method} ${target.slice(0, 200)}`));
        return;
      }
      const [statusLine, ...lines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const length = headers['content-length'];
      const rest = data.subarray(headEnd + 4);
      if (length === undefined ? !ended : rest.length < Number(length) && !ended) return;
      const text = rest.subarray(0, length === undefined ? undefined : Number(length)).toString('utf8');
      finish(undefined, { status: Number(statusLine?.split(' ')[1]), type: headers['content-type'] ?? '', body: text });
    };
    socket.setTimeout(15_000, () => finish(new Error(`no answer within 15 s to ${method} ${target.slice(0, 200)}`)));
    socket.on('connect', () => {
      const bytes = Buffer.from(body, 'utf8');
      const head = `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n` + (method === 'POST' ? `Content-Type: application/json\r\nContent-Length: ${bytes.length}\r\n` : '') + '\r\n';
      socket.write(Buffer.concat([Buffer.from(head, 'latin1'), bytes]));
    });
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('error', (error) => finish(error));
  });
}

const svc = await startTestService();
t.teardown(() => svc.close());
const port = svc.service.port;
const host = svc.service.engine;

// A book and a trade, so that valid parameters reach real data.
const market = [...host.engine.markets()].find((m) => m.status === 'active' && m.params.takerFeeBps === 0 && m.params.tickSize === 10_000 && m.params.minSize <= units(5)) as Market | undefined;
if (market === undefined) throw new Error('no fee-free demo market in the engine');
const [T0, T1] = market.tokenIds;
const SELLER = '0x' + '5e'.repeat(20);
const BUYER = '0x' + 'b7'.repeat(20);
for (const a of [SELLER, BUYER]) await host.submit({ type: 'Deposit', account: a, amount: units(100) });
await host.submit({ type: 'Split', account: SELLER, conditionId: market.conditionId, amount: units(20) });
await host.submit(sell('0xh1', SELLER, T0, 10, 0.5));
await host.submit(buy('0xh2', BUYER, T0, 10, 0.5));
await host.submit(buy('0xh3', BUYER, T0, 5, 0.45));
await host.submit(sell('0xh4', SELLER, T0, 5, 0.55));
await host.idle();
await svc.service.projector.waitFor(host.position);

const GET_PATHS = [
  '/book', '/price', '/prices', '/midpoint', '/midpoints', '/spread', '/last-trade-price', '/tick-size', '/neg-risk', '/fee-rate', '/prices-history',
  '/markets', '/sampling-markets', '/simplified-markets', '/sampling-simplified-markets', '/markets/{x}', '/markets-by-token/{x}', '/clob-markets/{x}',
  '/', '/ok', '/time', '/version',
];
const POST_PATHS = ['/books', '/prices', '/midpoints', '/spreads', '/last-trades-prices', '/batch-prices-history'];
const KNOWN_KEYS = ['token_id', 'token_ids', 'side', 'sides', 'market', 'interval', 'startTs', 'endTs', 'fidelity', 'next_cursor'];
const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', 'TOKEN_ID', 'token_id[]', 'market[0]', 'limit'];
const ODD_VALUES = [
  '', ' ', '-0', '0', '-1', '1e309', 'Infinity', 'NaN', '0x10', '1e2', '1.5', '9007199254740993', '9'.repeat(80), '9'.repeat(400), '00000000001', '4294967296',
  '99999999999', '999999999999', 'true', 'null', '[]', '{}', "' OR 1=1 --", '\\', '\u0000', '\u202e', '😀', '\ud800', 'BUY', 'SELL', 'buy', 'MID',
  'max', 'all', '1m', '1w', '1d', '6h', '1h', '5y', 'MA==', 'LTE=', 'MTAw', 'NTAw', 'LTI=', 'MA', '====', T0, T1, `${T0},${T1}`, `${T0},${T0},x`,
  market.conditionId, market.conditionId.toUpperCase(), ',,,', ',', 'x'.repeat(5000),
];
const textArb = queryValueArb(ODD_VALUES);
const pairArb = queryPairArb(textArb, KNOWN_KEYS, ODD_KEYS);
const getArb = fc.record({
  prefixed: fc.boolean(),
  path: fc.constantFrom(...GET_PATHS),
  pathParam: textArb,
  pairs: fc.array(pairArb, { maxLength: 8 }),
  separator: fc.constantFrom('&', '&', '&', '&&', ';'),
});

/** Values of any JSON type, with the ids and words the endpoints care about. */
const jsonLeafArb = fc.oneof(
  fc.constantFrom<unknown>(T0, T1, market.conditionId, 'BUY', 'SELL', 'buy', 'x', '', '1h', 'max', '5y', null, true, 0, -1, 1.5, 2 ** 32, 1e308, Number.MAX_SAFE_INTEGER + 2, '99999999999', '-5'),
  fc.string({ maxLength: 30 }),
  fc.integer(),
  fc.double({ noNaN: true }),
);
const looseValueArb: fc.Arbitrary<unknown> = fc.oneof({ weight: 4, arbitrary: jsonLeafArb }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) });
const itemArb = fc.oneof(
  { weight: 4, arbitrary: fc.record({ token_id: looseValueArb, side: looseValueArb }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: looseValueArb },
);
const batchBodyArb = fc.oneof(
  { weight: 5, arbitrary: fc.array(itemArb, { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.array(fc.constant({ token_id: T0 }), { minLength: 495, maxLength: 505 }) },
);
const historyBodyArb = fc.record(
  {
    markets: fc.oneof(fc.array(jsonLeafArb, { maxLength: 25 }), looseValueArb),
    start_ts: looseValueArb,
    end_ts: looseValueArb,
    startTs: looseValueArb,
    endTs: looseValueArb,
    interval: looseValueArb,
    fidelity: looseValueArb,
  },
  { requiredKeys: [] },
);
const postArb = fc.record({
  prefixed: fc.boolean(),
  path: fc.constantFrom(...POST_PATHS),
  body: fc.oneof(
    { weight: 4, arbitrary: fc.oneof(batchBodyArb, historyBodyArb).map((b) => JSON.stringify(b)) },
    { weight: 1, arbitrary: fc.json({ maxDepth: 3 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
    { weight: 1, arbitrary: fc.constantFrom('', '{', '[', '[{]', 'null', '[null]', '{"markets":', '\u0000', '[{"token_id":"1"}]'.repeat(3)) },
  ),
});

function checkReply(t: Test, reply: RawReply, where: string): void {
  if (reply.status >= 500) t.fail(`5xx: ${where}`);
  if (reply.status >= 400) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(reply.body);
    } catch {
      t.fail(`4xx without a JSON body: ${where}`);
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || typeof (parsed as { error?: unknown }).error !== 'string') t.fail(`4xx without an error string: ${where}`);
    if (!reply.type.includes('application/json')) t.fail(`4xx not typed JSON: ${where}`);
  }
}

// Every request below must leave the engine as it was; the host's own timed commands are held from here on.
await holdTimedCommands(host);
const hashBefore = host.engine.stateHash();
const positionBefore = host.position;

t.test('hostile query strings and path parameters', async (t) => {
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(getArb, async (r) => {
      const path = r.path.replace('{x}', r.pathParam === '' ? 'x' : r.pathParam);
      const query = r.pairs.join(r.separator);
      const target = `${r.prefixed ? '/clob' : ''}${path === '/' && r.prefixed ? '' : path}${query === '' ? '' : `?${query}`}` || '/';
      const reply = await rawRequest(port, 'GET', target);
      seen.set(reply.status, (seen.get(reply.status) ?? 0) + 1);
      checkReply(t, reply, `${reply.status} for GET ${target.slice(0, 300)}: ${reply.body.slice(0, 300)}`);
      return reply.status < 500;
    }),
    { numRuns: RUNS },
  );
  t.ok((seen.get(200) ?? 0) > 0 && (seen.get(400) ?? 0) > 0, `both answers and refusals seen: ${JSON.stringify([...seen])}`);
});

t.test('hostile POST bodies', async (t) => {
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(postArb, async (r) => {
      const target = `${r.prefixed ? '/clob' : ''}${r.path}`;
      const reply = await rawRequest(port, 'POST', target, r.body);
      seen.set(reply.status, (seen.get(reply.status) ?? 0) + 1);
      checkReply(t, reply, `${reply.status} for POST ${target} ${r.body.slice(0, 300)}: ${reply.body.slice(0, 300)}`);
      return reply.status < 500;
    }),
    { numRuns: RUNS },
  );
  t.ok((seen.get(200) ?? 0) > 0 && (seen.get(400) ?? 0) > 0, `both answers and refusals seen: ${JSON.stringify([...seen])}`);
});

t.test('the server still serves and the engine did not change', async (t) => {
  const book = await rawRequest(port, 'GET', `/clob/book?token_id=${T0}`);
  t.equal(book.status, 200);
  t.equal(host.engine.stateHash(), hashBefore);
  t.equal(host.position, positionBefore);
});
