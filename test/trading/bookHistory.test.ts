// The book history is exact to the event: a trading session over HTTP (orders resting and crossing, partial
// and full fills, cancels, a GTD expiry, a resolution, a restart of the service on the same data) records
// GET /book of two tokens after every step; afterwards GET /book?at=<each recorded timestamp> answers every
// recorded book byte for byte (hash included), /orderbook-history lists one book per change whose levels
// and fields are those recorded, and a replay of the log into a fresh projection gives the same history.

import t from 'tap';
import { Wallet } from 'ethers';
import { pino } from 'pino';
import type { Config } from '../../config/index.js';
import type { Market } from '../../engine/market.js';
import { Projector } from '../../projections/projector.js';
import { startService, type RunningService } from '../../server/service.js';
import type { ClickHouseClient } from '../../storage/clickhouse.js';
import { bookHash, type BookSnapshot } from '../../api/clob/bookView.js';
import { units } from '../engine/scenario.js';
import { freshDatabase } from '../support/projectionFixtures.js';
import { testConfig } from '../support/serviceFixture.js';
import { holdTimedCommands } from '../support/timedCommands.js';
import { Trader } from '../support/tradingClient.js';

const { ch, db } = await freshDatabase();
const config: Config = testConfig({ clickhouseDatabase: db, gtdSecurityMarginSec: 0 });

async function start(): Promise<{ service: RunningService; base: string }> {
  const service = await startService(config, pino({ level: process.env.PMX_TEST_LOG ?? 'silent' }), { clickhouse: ch as ClickHouseClient });
  return { service, base: `http://127.0.0.1:${service.port}` };
}

let { service, base } = await start();
t.teardown(() => service.close());
const market = [...service.engine.engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5)) as Market;
const other = [...service.engine.engine.markets()].find((m) => m !== market && m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5)) as Market;
const [YES, NO] = market.tokenIds;

let maker = new Trader(base, Wallet.createRandom() as unknown as Wallet);
let taker = new Trader(base, Wallet.createRandom() as unknown as Wallet);

/** The same wallet and credentials against the restarted service's port. */
function again(who: Trader): Trader {
  const moved = new Trader(base, who.wallet);
  moved.creds = who.creds;
  return moved;
}
for (const who of [maker, taker]) {
  await who.signIn();
  await service.engine.submit({ type: 'Deposit', account: who.account, amount: units(1000) });
}
await service.engine.submit({ type: 'Split', account: maker.account, conditionId: market.conditionId, amount: units(200) });

const recorded: BookSnapshot[] = [];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** GET /book of both tokens, kept; a few ms apart from the next command so that no command shares their millisecond. */
async function record(): Promise<void> {
  await sleep(3);
  for (const token of [YES, NO]) recorded.push((await (await fetch(`${base}/book?token_id=${token}`)).json()) as BookSnapshot);
  await sleep(3);
}

async function order(who: Trader, side: 'BUY' | 'SELL', price: number, size: number, extra: { expiration?: number; orderType?: 'GTC' | 'GTD' | 'FAK' } = {}): Promise<string> {
  const cash = Math.round(price * size * 1_000_000);
  const signed = await who.signOrder({ side, tokenId: YES, makerAmount: side === 'BUY' ? cash : units(size), takerAmount: side === 'BUY' ? units(size) : cash, ...(extra.expiration === undefined ? {} : { expiration: extra.expiration }) });
  const res = await who.postOrder(signed, extra.orderType ?? 'GTC');
  if (res.status !== 200) throw new Error(`POST /order: ${res.status} ${res.text}`);
  await record();
  return (res.body as { orderID: string }).orderID;
}

await record();
const asks = [await order(maker, 'SELL', 0.6, 10), await order(maker, 'SELL', 0.62, 20), await order(maker, 'SELL', 0.6, 5)];
const bids = [await order(maker, 'BUY', 0.4, 10), await order(maker, 'BUY', 0.41, 7)];
await order(taker, 'BUY', 0.6, 12, { orderType: 'FAK' }); // fills the 0.6 level fully and nothing more
await order(taker, 'SELL', 0.41, 5); // partial fill of the 0.41 bid
const gtd = await order(maker, 'BUY', 0.3, 5, { expiration: Math.floor(Date.now() / 1000) + 2, orderType: 'GTD' });
void gtd;
const cancelled = await maker.l2('DELETE', '/order', { orderID: bids[0] });
if (cancelled.status !== 200) throw new Error(`DELETE /order: ${cancelled.status}`);
await record();
await sleep(2500); // the GTD order's time comes; it leaves the book at the next command
await service.engine.submit({ type: 'Deposit', account: taker.account, amount: units(1) });
await record();

// A restart on the same journal and database.
await service.close();
({ service, base } = await start());
maker = again(maker);
taker = again(taker);
await record();
await order(maker, 'SELL', 0.7, 5);
await order(taker, 'BUY', 0.62, 20); // takes the whole 0.62 level
await service.engine.submit({ type: 'ResolveMarket', conditionId: market.conditionId, winningOutcome: 0 });
await record();
void asks;
void other;
// The checks below are of the history's content. A read waits READ_WAIT_MS for the projector to hold every
// acknowledged record and answers 503 after; so that a loaded machine does not turn them into checks of the
// projector's lag, they start once it holds every record, and the host's own AdvanceTime (the rewards
// sampler's minute) is held until the end.
await holdTimedCommands(service.engine);
await service.projector.waitFor(service.engine.position, 60_000);

t.test('GET /book?at=<recorded timestamp> answers every recorded book byte for byte', async (t) => {
  for (const book of recorded) {
    const res = await fetch(`${base}/book?token_id=${book.asset_id}&at=${book.timestamp}`);
    t.equal(res.status, 200, `GET /book?at=${book.timestamp}: 200`);
    t.same(await res.json(), book, `${book.asset_id === YES ? 'YES' : 'NO'} at ${book.timestamp}: ${book.bids.length} bids, ${book.asks.length} asks, hash ${book.hash.slice(0, 8)}`);
  }
  const before = await fetch(`${base}/book?token_id=${YES}&at=1000`);
  t.equal(before.status, 404, 'before the market was listed: no book');
});

t.test('/orderbook-history: one book per change, each what GET /book showed until the next', async (t) => {
  const first = Number(recorded[0]?.timestamp);
  const last = Number(recorded[recorded.length - 1]?.timestamp);
  for (const token of [YES, NO]) {
    const page = (await (await fetch(`${base}/orderbook-history?asset_id=${token}&startTs=0&endTs=${last}&limit=1000`)).json()) as { count: number; data: BookSnapshot[] };
    t.equal(page.data.length, page.count, 'one page holds the whole window');
    t.ok(page.count >= 12, `${page.count} changes`);
    for (const b of page.data) t.equal(b.hash, bookHash(b), 'each book is hashed as GET /book hashes');
    const times = page.data.map((b) => Number(b.timestamp));
    t.same(times, [...times].sort((a, b) => a - b), 'oldest first');
    for (const book of recorded.filter((r) => r.asset_id === token)) {
      const at = Number(book.timestamp);
      const shown = [...page.data].reverse().find((b) => Number(b.timestamp) <= at);
      t.same(shown === undefined ? undefined : { ...shown, timestamp: book.timestamp, hash: '' }, { ...book, hash: '' }, `the change before ${at} is what GET /book showed then`);
    }
    const paged = (await (await fetch(`${base}/orderbook-history?asset_id=${token}&startTs=${first}&endTs=${last}&limit=3&offset=2`)).json()) as { count: number; data: BookSnapshot[] };
    const all = (await (await fetch(`${base}/orderbook-history?asset_id=${token}&startTs=${first}&endTs=${last}&limit=1000`)).json()) as { count: number; data: BookSnapshot[] };
    t.same(paged, { count: all.count, data: all.data.slice(2, 5) }, 'limit and offset page through the same list');
    const step = 1000;
    const sampled = (await (await fetch(`${base}/orderbook-history?asset_id=${token}&startTs=${first}&endTs=${last}&interval=${step}&limit=1000`)).json()) as { count: number; data: BookSnapshot[] };
    t.equal(sampled.count, Math.floor((last - first) / step) + 1, 'interval: one book per interval');
    for (const b of sampled.data) {
      const at = await (await fetch(`${base}/book?token_id=${token}&at=${b.timestamp}`)).json();
      t.same(b, at, `the book at ${b.timestamp} is GET /book?at=`);
    }
  }
  for (const bad of ['asset_id=abc', 'asset_id=1&limit=0', 'asset_id=1&limit=1001', 'asset_id=1&startTs=-1', 'asset_id=1&interval=0', '']) {
    const res = await fetch(`${base}/orderbook-history?${bad}`);
    t.equal(res.status, 400, `${bad || 'no asset_id'}: 400`);
  }
});

t.test('a replay of the log into a fresh projection gives the same history', async (t) => {
  await service.engine.idle();
  await service.projector.waitFor(service.engine.position);
  const fresh = await freshDatabase();
  const replay = new Projector(fresh.ch, fresh.db, service.engineService.log, { feeAccount: config.feeAccount, maxBatch: 7 });
  await replay.start();
  await replay.catchUp();
  const dump = async (c: ClickHouseClient, d: string, table: string): Promise<string> => {
    const result = await c.query({ query: `SELECT * EXCEPT (pos) FROM ${d}.${table} ORDER BY ALL`, format: 'JSONEachRow' });
    return JSON.stringify(await result.json());
  };
  for (const table of ['book_level_changes', 'book_changes', 'book_snapshots']) {
    t.equal(await dump(fresh.ch as ClickHouseClient, fresh.db, table), await dump(ch as ClickHouseClient, db, table), `${table}: the same rows`);
  }
});
