// What the engine's state shows is read at a durable state (reliability.md, promise 6): while a batch applied
// to the engine is still being appended, GET /book, the prices and every route marked `engineState` wait for
// that append, and answer the state with the batch once it is durable; an engine that stops with the batch
// applied answers them 503, and never shows it. The engine host's whenDurable under them runs a waiting read
// after the batch's consumers have had it and before the next batch is applied. Real uWS, a real engine host
// over the embedded journal, held and failed through the scripted log wrapper.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { bookRoutes } from '../../api/clob/bookRoutes.js';
import { priceRoutes } from '../../api/clob/priceRoutes.js';
import { createHttpServer } from '../../api/http/httpServer.js';
import { IpAllowlist } from '../../api/http/ipAllowlist.js';
import { ROOT_RULES } from '../../api/http/rootRules.js';
import { loadUws } from '../../api/http/uwsLoader.js';
import { Engine } from '../../engine/index.js';
import { durableState } from '../../host/commandGateway.js';
import { EngineHost, EngineStoppedError, type Submission } from '../../host/engineHost.js';
import type { LogRecord } from '../../log/eventLog.js';
import { Journal } from '../../log/journal/journal.js';
import { ScriptedLog } from '../support/logWrappers.js';
import { sessionCommands } from '../support/records.js';

const { uws } = loadUws(false);
let clock = 1_700_000_000_000;
const tick = (): number => (clock += 1);

/** The session's market, two deposits and `orders` resting bids, as submissions. */
function submissions(orders: number): Submission[] {
  return sessionCommands(3 + orders).map(({ time: _time, ...rest }) => rest as Submission);
}

/** A resting bid on token 101 at 0.30, below every bid of the session (0.40 and up). */
const LOW_BID: Submission = {
  type: 'PlaceOrder', orderId: `0x${'f'.repeat(64)}`, account: '0xa', owner: 'k', tokenId: '101', side: 'BUY',
  makerAmount: 3_000_000, takerAmount: 10_000_000, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: 1_800_000_000_000,
};

async function setup(t: Test, onDurable?: (records: readonly LogRecord[]) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'durable-reads-'));
  const journal = await Journal.open({ dir: join(dir, 'journal'), segmentBytes: 1 << 20 });
  const log = new ScriptedLog(journal);
  const host = new EngineHost(new Engine(), log, { maxBatch: 100, clock: tick, appendAttempts: 1, ...(onDurable === undefined ? {} : { onDurable }) });
  for (const s of submissions(4)) await host.submit(s);
  const server = createHttpServer({
    uws,
    routes: [...bookRoutes({ engine: host.engine, clock: tick }), ...priceRoutes({ engine: host.engine })],
    rootRules: ROOT_RULES,
    limiter: undefined,
    activityAllowlist: new IpAllowlist(['0.0.0.0/0', '::/0']),
    clock: Date.now,
    durable: host,
  });
  const port = await server.listen('127.0.0.1', 0);
  t.teardown(async () => {
    server.stopListening();
    await journal.close();
  });
  return { host, log, journal, base: `http://127.0.0.1:${port}` };
}

/** The request's answer, or 'pending' when none came within `ms`. */
async function within(answer: Promise<Response>, ms: number): Promise<Response | 'pending'> {
  return Promise.race([answer, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);
}

function hasBidAt(book: { bids: { price: string }[] }, price: string): boolean {
  return book.bids.some((level) => level.price === price);
}

t.test('a read of the engine waits while a batch is being appended, and then shows it', async (t) => {
  const { host, log, base } = await setup(t);
  const before = (await (await fetch(`${base}/book?token_id=101`)).json()) as { bids: { price: string }[] };
  t.notOk(hasBidAt(before, '0.3'), 'no bid at 0.30 yet');
  t.ok(host.atDurableState, 'at rest, the engine is at a durable state');

  log.hold();
  const placed = host.submit(LOW_BID);
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.notOk(host.atDurableState, 'the bid is applied and its append is held: the engine is ahead of the log');
  const book = fetch(`${base}/book?token_id=101`);
  const books = fetch(`${base}/books`, { method: 'POST', body: JSON.stringify([{ token_id: '101' }]) });
  const price = fetch(`${base}/price?token_id=101&side=BUY`);
  const spread = fetch(`${base}/spread?token_id=101`);
  t.equal(await within(book, 150), 'pending', 'GET /book does not answer while the append is held');
  t.equal(await within(books, 10), 'pending', 'nor POST /books');
  t.equal(await within(price, 10), 'pending', 'nor GET /price');
  t.equal(await within(spread, 10), 'pending', 'nor GET /spread');
  const unmarked = await within(fetch(`${base}/fees/builder-fees/0x${'0'.repeat(64)}`), 1000);
  t.ok(unmarked !== 'pending' && unmarked.status === 200, 'a route that shows nothing of the engine answers meanwhile');

  log.release();
  t.notOk((await placed).some((e) => e.type === 'OrderRejected'), 'the bid was accepted');
  const shown = (await (await book).json()) as { bids: { price: string }[] };
  t.ok(hasBidAt(shown, '0.3'), 'once durable, GET /book answers with the bid');
  const [first] = (await (await books).json()) as { bids: { price: string }[] }[];
  t.ok(first !== undefined && hasBidAt(first, '0.3'), 'and POST /books');
  t.equal((await price).status, 200, 'GET /price answers');
  t.equal((await spread).status, 200, 'GET /spread answers');
});

t.test('an engine that stops with a batch applied never shows it: its reads answer 503', async (t) => {
  const { host, log, base } = await setup(t);
  log.script = ['fatal'];
  log.hold();
  const placed = host.submit(LOW_BID).catch((error: unknown) => error);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const book = fetch(`${base}/book?token_id=101`);
  t.equal(await within(book, 100), 'pending', 'GET /book waits for the held append');
  log.release();
  t.type(await placed, EngineStoppedError, 'the append failed for good: the engine stopped');
  const refused = await book;
  t.equal(refused.status, 503, 'the waiting read answers 503');
  t.match(await refused.json(), { error: /engine is stopped/ }, "in the CLOB's error shape");
  const later = await fetch(`${base}/midpoint?token_id=101`);
  t.equal(later.status, 503, 'and so does every later read of the engine: its state holds a batch that is not durable');
  t.notOk(host.atDurableState, 'the engine is not at a durable state');
});

t.test('whenDurable: a waiting read runs after the batch is published and before the next batch is applied', async (t) => {
  const published: number[] = [];
  const { host, log } = await setup(t, (records) => published.push((records[records.length - 1] as LogRecord).pos));
  const start = host.position;
  log.hold();
  const first = host.submit(LOW_BID);
  await new Promise((resolve) => setTimeout(resolve, 20));
  // Queued behind the held append: the next batch, applied only after the first is durable.
  const second = host.submit({ ...LOW_BID, orderId: `0x${'e'.repeat(64)}` });
  let seen: { seq: number; published: number; position: number } | undefined;
  host.whenDurable(() => (seen = { seq: host.engine.seq, published: published[published.length - 1] ?? 0, position: host.position }), (error) => t.fail(error.message));
  const read = durableState(host).then(() => host.engine.seq);
  t.equal(seen, undefined, 'nothing runs while the append is held');
  const seqAhead = host.engine.seq;
  log.release();
  await Promise.all([first, second]);
  t.same(seen, { seq: seqAhead, published: start + 1, position: start + 1 }, "it ran at the first batch's end, once its consumers had it, before the second was applied");
  t.equal(await read, seqAhead, 'durableState() resolves at the same point, with no later batch applied');
  let now = false;
  host.whenDurable(() => (now = true), (error) => t.fail(error.message));
  t.ok(now, 'at rest, a read runs at once');
});
