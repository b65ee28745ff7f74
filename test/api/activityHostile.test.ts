// Hostile query strings against the activity and catalog endpoints of the whole running service: random
// keys (known parameters, prototype names, junk), random values (huge and odd numbers, any Unicode,
// malformed percent-encodings, commas, very long strings) and random path parameters, sent as raw HTTP
// request lines so nothing is normalised on the way. Every answer must be below 500, every 4xx a JSON
// object with a string `error` (typed `bad request` for a catalog 400), the server must keep serving, and
// the engine must not change: same state hash, same log position.
//
// PMX_HOSTILE_RUNS sets the number of requests (default 300).

import fc from 'fast-check';
import { queryPairArb, queryValueArb } from '../support/hostileQuery.js';
import { connect } from 'node:net';
import t from 'tap';
import { buy, sell, units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { holdTimedCommands } from '../support/timedCommands.js';

const RUNS = Number(process.env.PMX_HOSTILE_RUNS ?? 300);

interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One GET with the request target exactly as given (no URL normalisation), on its own connection. */
function rawGet(port: number, target: string): Promise<RawReply> {
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
        if (ended) finish(new Error(`connection closed without a response to ${target.slice(0, 200)}`));
        return;
      }
      const [statusLine, ...lines] = data.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const length = headers['content-length'];
      const body = data.subarray(headEnd + 4);
      if (length !== undefined && body.length < Number(length) && !ended) return;
      if (length === undefined && !ended) return;
      finish(undefined, { status: Number(statusLine?.split(' ')[1]), headers, body: body.subarray(0, length === undefined ? undefined : Number(length)).toString('utf8') });
    };
    socket.setTimeout(15_000, () => finish(new Error(`no answer within 15 s to ${target.slice(0, 200)}`)));
    socket.on('connect', () => socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, 'latin1'));
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

// A little data, so that reads with valid parameters return rows.
const market = [...host.engine.markets()].find((m) => m.status === 'active' && m.params.takerFeeBps === 0 && m.params.minSize <= units(5) && units(0.05) % m.params.tickSize === 0);
if (market === undefined) throw new Error('no fee-free demo market in the engine');
const SELLER = '0x' + '5e'.repeat(20);
const BUYER = '0x' + 'b7'.repeat(20);
for (const a of [SELLER, BUYER]) await host.submit({ type: 'Deposit', account: a, amount: units(100) });
await host.submit({ type: 'Split', account: SELLER, conditionId: market.conditionId, amount: units(20) });
await host.submit(sell('0xh1', SELLER, market.tokenIds[0], 10, 0.5));
await host.submit(buy('0xh2', BUYER, market.tokenIds[0], 10, 0.5));
await host.idle();
await svc.service.projector.waitFor(host.position);

const ACTIVITY_PATHS = [
  '/trades', '/positions', '/holders', '/activity', '/value', '/closed-positions', '/traded', '/oi', '/live-volume', '/v1/market-positions', '/v1/leaderboard',
  '/v1/builders/leaderboard', '/v1/builders/volume', '/v1/accounting/snapshot',
];
const CATALOG_PATHS = ['/markets', '/markets/{x}', '/markets/slug/{x}', '/events', '/events/{x}', '/events/slug/{x}', '/series', '/tags', '/public-search'];
const KNOWN_KEYS = [
  'limit', 'offset', 'takerOnly', 'filterType', 'filterAmount', 'market', 'user', 'side', 'sizeThreshold', 'redeemable', 'mergeable', 'sortBy',
  'sortDirection', 'title', 'minBalance', 'active', 'closed', 'archived', 'tag', 'tag_id', 'tag_slug', 'event_id', 'event_slug', 'eventSlug',
  'conditionId', 'condition_id', 'slug', 'order', 'ascending', 'creator', 'series_slug', 'q', 'limit_per_type', 'page', 'search_tags',
  'search_profiles', 'next_cursor', 'eventId', 'type', 'start', 'end', 'id', 'status', 'category', 'timePeriod', 'orderBy', 'userName',
];
const ODD_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', 'LIMIT', 'limit[]', 'user.name', 'market[0]'];
const ODD_VALUES = [
  '', ' ', '-0', '0', '-1', '1e309', '-1e309', 'Infinity', '-Infinity', 'NaN', '0x10', '1e2', '1.5', '9007199254740993', '9'.repeat(400), '00000000001',
  'true', 'TRUE', 'false', '1', 'yes', 'null', 'undefined', '[]', '{}', '[object Object]', "' OR 1=1 --", '"; DROP TABLE fills; --', '\\', '\u0000',
  '\u202e', '😀', '\ud800', 'CASH', 'tokens', 'BUY', 'sell', 'ASC', 'TITLE', market.conditionId, market.conditionId.toUpperCase(), SELLER, BUYER,
  `${market.conditionId},${market.conditionId}`, ',,,', ',', `${SELLER},`, 'x'.repeat(5000),
];
const textArb = queryValueArb(ODD_VALUES);
const pairArb = queryPairArb(textArb, KNOWN_KEYS, ODD_KEYS);
const requestArb = fc.record({
  surface: fc.constantFrom('activity', 'catalog'),
  prefixed: fc.boolean(),
  activityPath: fc.constantFrom(...ACTIVITY_PATHS),
  catalogPath: fc.constantFrom(...CATALOG_PATHS),
  pathParam: textArb,
  pairs: fc.array(pairArb, { maxLength: 8 }),
  separator: fc.constantFrom('&', '&', '&', '&&', ';'),
});

t.test('hostile query strings: no 5xx, JSON errors, no engine change', async (t) => {
  t.teardown(await holdTimedCommands(host));
  const hashBefore = host.engine.stateHash();
  const positionBefore = host.position;
  const seen = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(requestArb, async (r) => {
      const path = r.surface === 'activity' ? r.activityPath : r.catalogPath.replace('{x}', r.pathParam === '' ? 'x' : r.pathParam);
      const prefix = r.prefixed ? `/${r.surface}` : '';
      const query = r.pairs.join(r.separator);
      const target = `${prefix}${path}${query === '' ? '' : `?${query}`}`;
      const reply = await rawGet(port, target);
      seen.set(reply.status, (seen.get(reply.status) ?? 0) + 1);
      const where = `${reply.status} for GET ${target.slice(0, 300)}: ${reply.body.slice(0, 300)}`;
      if (!(reply.status >= 200 && reply.status < 500)) throw new Error(`status ${where}`);
      // The accounting snapshot answers a ZIP archive.
      if (reply.status === 200 && path === '/v1/accounting/snapshot' && reply.headers['content-type'] === 'application/zip') return;
      if (!/application\/json/.test(reply.headers['content-type'] ?? '')) throw new Error(`content type ${reply.headers['content-type']} of ${where}`);
      const body = JSON.parse(reply.body) as unknown;
      if (reply.status >= 400) {
        if (body === null || typeof body !== 'object' || Array.isArray(body) || typeof (body as { error?: unknown }).error !== 'string') throw new Error(`error body ${where}`);
        if (reply.status === 400 && r.surface === 'catalog' && r.prefixed && (body as { type?: unknown }).type !== 'bad request') throw new Error(`untyped catalog 400 ${where}`);
      }
    }),
    { numRuns: RUNS },
  );
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries([...seen].sort((a, b) => a[0] - b[0])))}`);
  t.ok((seen.get(200) ?? 0) > 0 && (seen.get(400) ?? 0) > 0, 'both answers and refusals were exercised');
  t.equal(host.engine.stateHash(), hashBefore, 'the engine state is unchanged');
  t.equal(host.position, positionBefore, 'nothing was appended to the log');
  t.equal(host.stopped, null);
  const after = await rawGet(port, `/trades?user=${BUYER}`);
  t.equal(after.status, 200, 'the server still serves');
  t.equal((JSON.parse(after.body) as unknown[]).length, 1);
});
