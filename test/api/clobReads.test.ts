// Every order-book read of the whole running service over HTTP (engine host, journal, projector, chDB, demo
// catalog, uWebSockets.js), under /clob and at the root: books (ordering, hash recomputed here), prices,
// market lists and forms (catalog fields joined, paused and resolved flags), cursors walked to LTE=, price
// history from ClickHouse, service info, every error row, and the official V2 client's read calls. Reads
// leave the engine unchanged.

import { ClobClient } from '@polymarket/clob-client-v2';
import { createHash } from 'node:crypto';
import t from 'tap';
import { PAGE_SIZE } from '../../api/clob/marketRoutes.js';
import type { Market } from '../../engine/market.js';
import { buy, sell, units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { holdTimedCommands } from '../support/timedCommands.js';

const svc = await startTestService();
t.teardown(() => svc.close());
const base = svc.baseUrl;
const host = svc.service.engine;
const engine = host.engine;

const tradable = [...engine.markets()].filter((m) => m.status === 'active' && m.params.takerFeeBps === 0 && m.params.makerFeeBps === 0 && m.params.tickSize === 10_000 && m.params.minSize <= units(5));
if (tradable.length < 3) throw new Error('the demo catalog needs three fee-free markets with tick 0.01 in the engine');
const M = tradable[0] as Market;
const PAUSED = tradable[1] as Market;
const RESOLVED = tradable[2] as Market;
const [T0, T1] = M.tokenIds;
const SELLER = '0x' + '5e'.repeat(20);
const BUYER = '0x' + 'b7'.repeat(20);

async function must(command: Parameters<typeof host.submit>[0]): Promise<void> {
  const events = await host.submit(command);
  const refused = events.find((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected');
  if (refused !== undefined) throw new Error(`${command.type} refused: ${JSON.stringify(refused)}`);
}

// A trade (taker buys T0 at 0.52), then bids 0.40×10, 0.45×5, 0.47×5 and asks 0.55×7, 0.60×6 on T0.
for (const a of [SELLER, BUYER]) await must({ type: 'Deposit', account: a, amount: units(1000) });
await must({ type: 'Split', account: SELLER, conditionId: M.conditionId, amount: units(100) });
await must(sell('0xe1', SELLER, T0, 5, 0.52));
await must(buy('0xe2', BUYER, T0, 5, 0.52));
await must(buy('0xe3', BUYER, T0, 10, 0.4));
await must(buy('0xe4', BUYER, T0, 5, 0.45));
await must(buy('0xe5', BUYER, T0, 5, 0.47));
await must(sell('0xe6', SELLER, T0, 7, 0.55));
await must(sell('0xe7', SELLER, T0, 6, 0.6));
// Rewards programs on the three (sampling markets are the rewarded ones that trade now).
for (const m of [M, PAUSED, RESOLVED]) await must({ type: 'SetMarketRewards', conditionId: m.conditionId, dailyRate: units(20), maxSpread: 30_000, minSize: units(10) });
await must({ type: 'PauseMarket', conditionId: PAUSED.conditionId });
await must({ type: 'ResolveMarket', conditionId: RESOLVED.conditionId, winningOutcome: 1 });
// Enough markets for three pages: engine-only markets (the catalog does not know them).
const EXTRA = PAGE_SIZE + 40;
await Promise.all(
  Array.from({ length: EXTRA }, (_, i) =>
    must({ type: 'ListMarket', conditionId: '0x' + createHash('sha256').update(`extra-${i}`).digest('hex'), tokenIds: [String(7_000_000 + 2 * i), String(7_000_001 + 2 * i)], tickSize: 10_000, minSize: units(5), makerFeeBps: 0, takerFeeBps: 0, negRisk: false }),
  ),
);
await host.idle();
await svc.service.projector.waitFor(host.position);

interface Got {
  status: number;
  type: string;
  text: string;
  body: unknown;
}

async function get(path: string): Promise<Got> {
  const res = await fetch(base + path);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // text bodies stay text
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, body };
}

async function post(path: string, payload: unknown): Promise<Got> {
  const res = await fetch(base + path, { method: 'POST', body: typeof payload === 'string' ? payload : JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', text, body: JSON.parse(text) };
}

// Reads must leave the engine as it was; the host's own timed commands are held from here on.
await holdTimedCommands(host);
const hashBefore = engine.stateHash();
const positionBefore = host.position;

t.test('GET /book: best last, hash recomputed from the wire, same at the root and under /clob', async (t) => {
  for (const prefix of ['/clob', '']) {
    const res = await get(`${prefix}/book?token_id=${T0}`);
    t.equal(res.status, 200);
    t.match(res.type, /application\/json/);
    const book = res.body as Record<string, unknown>;
    t.match(book, {
      market: M.conditionId, asset_id: T0,
      bids: [{ price: '0.4', size: '10' }, { price: '0.45', size: '5' }, { price: '0.47', size: '5' }],
      asks: [{ price: '0.6', size: '6' }, { price: '0.55', size: '7' }],
      min_order_size: '5', tick_size: '0.01', neg_risk: M.params.negRisk, last_trade_price: '0.52',
    });
    t.equal((book.bids as unknown[]).length, 3);
    t.equal((book.asks as unknown[]).length, 2);
    t.ok(Math.abs(Number(book.timestamp) - Date.now()) < 60_000, 'timestamp in ms');
    t.equal(res.text, JSON.stringify(book), 'compact JSON, keys in the hash order');
    const expected = createHash('sha1').update(JSON.stringify({ ...book, hash: '' })).digest('hex');
    t.equal(book.hash, expected);
    t.match(book.hash, /^[0-9a-f]{40}$/);
  }
  const mirrored = (await get(`/clob/book?token_id=${T1}`)).body;
  t.match(mirrored, {
    asset_id: T1,
    bids: [{ price: '0.4', size: '6' }, { price: '0.45', size: '7' }],
    asks: [{ price: '0.6', size: '10' }, { price: '0.55', size: '5' }, { price: '0.53', size: '5' }],
    last_trade_price: '0.48',
  });
});

t.test('POST /books', async (t) => {
  const res = await post('/clob/books', [{ token_id: T1 }, { token_id: '1' }, { token_id: T0, side: 'BUY' }]);
  t.equal(res.status, 200);
  t.same((res.body as { asset_id: string }[]).map((b) => b.asset_id), [T1, T0]);
  for (const b of res.body as Record<string, unknown>[]) t.equal(b.hash, createHash('sha1').update(JSON.stringify({ ...b, hash: '' })).digest('hex'));
  t.same((await post('/books', [])).body, []);
});

t.test('prices, midpoints, spreads, last trades, tick size, neg risk, fee rate', async (t) => {
  t.same((await get(`/clob/price?token_id=${T0}&side=BUY`)).body, { price: '0.47' });
  t.same((await get(`/price?token_id=${T0}&side=SELL`)).body, { price: '0.55' });
  t.same((await get(`/clob/price?token_id=${T1}&side=SELL`)).body, { price: '0.53' });
  t.same((await get(`/clob/prices?token_ids=${T0},${T1}&sides=BUY,SELL`)).body, { [T0]: { BUY: '0.47' }, [T1]: { SELL: '0.53' } });
  t.same((await post('/clob/prices', [{ token_id: T0, side: 'BUY' }, { token_id: T0, side: 'SELL' }])).body, { [T0]: { BUY: '0.47', SELL: '0.55' } });
  t.same((await get(`/clob/midpoint?token_id=${T0}`)).body, { mid: '0.51' });
  t.same((await get(`/midpoints?token_ids=${T0},${T1}`)).body, { [T0]: '0.51', [T1]: '0.49' });
  t.same((await post('/clob/midpoints', [{ token_id: T1 }])).body, { [T1]: '0.49' });
  t.same((await get(`/clob/spread?token_id=${T1}`)).body, { spread: '0.08' });
  t.same((await post('/clob/spreads', [{ token_id: T0 }, { token_id: T1 }])).body, { [T0]: '0.08', [T1]: '0.08' });
  t.same((await get(`/clob/last-trade-price?token_id=${T0}`)).body, { price: '0.52', side: 'BUY' });
  t.same((await get(`/clob/last-trade-price?token_id=${T1}`)).body, { price: '0.48', side: 'SELL' });
  t.same((await get(`/clob/last-trade-price?token_id=${PAUSED.tokenIds[0]}`)).body, { price: '', side: '' });
  t.same((await post('/clob/last-trades-prices', [{ token_id: T1 }, { token_id: PAUSED.tokenIds[0] }])).body, [{ token_id: T1, price: '0.48', side: 'SELL' }]);
  t.same((await get(`/clob/tick-size?token_id=${T0}`)).body, { minimum_tick_size: 0.01 });
  t.same((await get(`/neg-risk?token_id=${T0}`)).body, { neg_risk: M.params.negRisk });
  t.same((await get(`/clob/fee-rate?token_id=${T0}`)).body, { base_fee: 0 });
});

t.test('market forms: catalog joined, paused and resolved flags', async (t) => {
  const info = svc.service.markets.get(M.conditionId);
  t.ok(info, 'the demo market is in the catalog index');
  for (const path of [`/markets/${M.conditionId}`, `/clob/markets/${M.conditionId}`]) {
    const res = await get(path);
    t.equal(res.status, 200, path);
    t.match(res.body, {
      condition_id: M.conditionId, question: info?.question, market_slug: info?.slug, slug: info?.slug, market_id: info?.marketId, status: 'active',
      enable_order_book: true, active: true, closed: false, accepting_orders: true, minimum_tick_size: 0.01, minimum_order_size: 5,
      tokens: [{ token_id: T0, price: 0.51, winner: false }, { token_id: T1, price: 0.49, winner: false }], assets_ids: [T0, T1],
      event: { id: info?.event?.id ?? '', slug: info?.event?.slug ?? '' }, tags: info?.tags,
    });
  }
  t.match((await get(`/clob/markets/${PAUSED.conditionId}`)).body, { status: 'paused', accepting_orders: false, closed: false, active: true });
  t.match((await get(`/markets/${RESOLVED.conditionId}`)).body, { status: 'resolved', accepting_orders: false, closed: true, tokens: [{ price: 0, winner: false }, { price: 1, winner: true }] });
  const engineOnly = (await get(`/clob/markets/0x${createHash('sha256').update('extra-0').digest('hex')}`)).body;
  t.match(engineOnly, { question: '', market_id: 0, outcomes: ['Yes', 'No'], accepting_orders: true }, 'an engine market the catalog lacks');
  t.same((await get(`/clob/markets-by-token/${T1}`)).body, { condition_id: M.conditionId });
  t.match((await get(`/clob-markets/${M.conditionId}`)).body, { c: M.conditionId, t: [{ t: T0 }, { t: T1 }], mts: 0.01, nr: M.params.negRisk, mos: 5, ao: true, fd: { r: 0 } });
});

t.test('lists: every page to LTE=, sampling = rewarded and trading now', async (t) => {
  const total = [...engine.markets()].length;
  t.ok(total > PAGE_SIZE * 1, 'more than one page');
  for (const path of ['/clob/markets', '/markets', '/clob/simplified-markets', '/sampling-markets', '/clob/sampling-simplified-markets']) {
    const ids: string[] = [];
    let cursor = 'MA==';
    let pages = 0;
    while (cursor !== 'LTE=') {
      const res = await get(`${path}?next_cursor=${encodeURIComponent(cursor)}`);
      t.equal(res.status, 200, `${path} ${cursor}`);
      const page = res.body as { limit: number; count: number; next_cursor: string; data: { condition_id: string; accepting_orders: boolean; closed: boolean }[] };
      t.equal(page.limit, PAGE_SIZE);
      t.equal(page.count, page.data.length);
      if (page.next_cursor !== 'LTE=') t.equal(Buffer.from(page.next_cursor, 'base64').toString(), String(ids.length + page.count), 'base64 offset');
      ids.push(...page.data.map((m) => m.condition_id));
      if (path.includes('sampling')) t.ok(page.data.every((m) => m.accepting_orders && !m.closed), 'sampling markets trade');
      cursor = page.next_cursor;
      pages += 1;
    }
    t.same(ids, [...ids].sort(), `${path} by condition id`);
    t.equal(new Set(ids).size, ids.length);
    if (path.includes('sampling')) {
      t.notOk(ids.includes(PAUSED.conditionId));
      t.notOk(ids.includes(RESOLVED.conditionId));
      t.ok(ids.includes(M.conditionId));
      const programs = engine.rewardTerms();
      t.ok(ids.every((id) => programs.has(id)), `${path}: every sampling market has a rewards program`);
    } else {
      t.equal(ids.length, total, `${path}: every market`);
      t.equal(pages, Math.ceil(total / PAGE_SIZE));
    }
  }
  t.same((await get('/clob/markets?next_cursor=LTE=')).body, { limit: PAGE_SIZE, count: 0, next_cursor: 'LTE=', data: [] });
  const catalogList = (await get('/markets')).body as Record<string, unknown>[];
  t.ok(Array.isArray(catalogList) && typeof catalogList[0]?.conditionId === 'string', 'without next_cursor the root /markets is the catalog list');
});

t.test('price history from ClickHouse', async (t) => {
  const one = (await get(`/clob/prices-history?market=${T0}&interval=1d`)).body as { history: { t: number; p: number }[] };
  t.ok(one.history.length > 0, 'points');
  t.equal(one.history.at(-1)?.p, 0.51, 'the latest mark is the midpoint');
  t.ok(one.history.every((pt) => Number.isInteger(pt.t) && pt.t < Date.now() / 1000 + 60), 't in seconds');
  const now = Math.floor(Date.now() / 1000);
  const ranged = (await get(`/prices-history?market=${T1}&startTs=${now - 3600}&endTs=${now + 60}&fidelity=60`)).body as { history: { p: number }[] };
  t.equal(ranged.history.at(-1)?.p, 0.49);
  const batch = (await post('/clob/batch-prices-history', { markets: [T0, T1, '123'], interval: '1h', fidelity: 5 })).body as { history: Record<string, { p: number }[]> };
  t.same(Object.keys(batch.history).sort(), ['123', T0, T1].sort());
  t.same(batch.history['123'], []);
  t.equal(batch.history[T1]?.at(-1)?.p, 0.49);
});

t.test('service info', async (t) => {
  for (const path of ['/clob', '/clob/ok', '/ok']) {
    const res = await get(path);
    t.equal(res.status, 200, path);
    t.equal(res.text, 'OK', path);
    t.match(res.type, /text\/plain/);
  }
  const time = (await get('/time')).body as number;
  t.ok(Number.isInteger(time) && Math.abs(time - Date.now() / 1000) < 60);
  t.same((await get('/clob/version')).body, { version: 2 });
});

t.test('every error row', async (t) => {
  const rows: [string, Promise<Got>, number, string][] = [
    ['book without token', get('/clob/book'), 400, 'Invalid token id'],
    ['book, hex token', get('/book?token_id=0xabc'), 400, 'Invalid token id'],
    ['book, unknown token', get('/book?token_id=42'), 404, 'No orderbook exists for the requested token id'],
    ['price, bad side', get(`/clob/price?token_id=${T0}&side=MID`), 400, 'Invalid side'],
    ['price, unknown token', get('/clob/price?token_id=42&side=BUY'), 404, 'No orderbook exists for the requested token id'],
    ['midpoint, bad token', get('/midpoint?token_id=x'), 400, 'Invalid token id'],
    ['spread, unknown', get('/clob/spread?token_id=42'), 404, 'No orderbook exists for the requested token id'],
    ['last trade, unknown', get('/clob/last-trade-price?token_id=42'), 404, 'No orderbook exists for the requested token id'],
    ['tick size, unknown', get('/clob/tick-size?token_id=42'), 404, 'No orderbook exists for the requested token id'],
    ['neg risk, bad token', get('/clob/neg-risk?token_id=-1'), 400, 'Invalid token id'],
    ['fee rate, unknown', get('/clob/fee-rate?token_id=42'), 404, 'No orderbook exists for the requested token id'],
    ['prices, bad side', get(`/clob/prices?token_ids=${T0}&sides=X`), 400, 'Invalid side'],
    ['market, malformed', get('/clob/markets/0x1234'), 400, 'Invalid market'],
    ['market, unknown', get(`/markets/0x${'0'.repeat(64)}`), 404, 'market not found'],
    ['compact, malformed', get('/clob/clob-markets/nope'), 400, 'Invalid market'],
    ['compact, unknown', get(`/clob/clob-markets/0x${'0'.repeat(64)}`), 404, 'market not found'],
    ['by token, malformed', get('/clob/markets-by-token/abc'), 400, 'Invalid token id'],
    ['by token, unknown', get('/clob/markets-by-token/42'), 404, 'No orderbook exists for the requested token id'],
    ['books, not json', post('/clob/books', '{'), 400, 'Invalid payload'],
    ['books, not an array', post('/clob/books', { token_id: T0 }), 400, 'Invalid payload'],
    ['books, bad token', post('/books', [{ token_id: 'abc' }]), 400, 'Invalid token id'],
    ['books, too many', post('/clob/books', Array.from({ length: 501 }, () => ({ token_id: T0 }))), 400, 'Payload exceeds the limit'],
    ['prices, bad side', post('/clob/prices', [{ token_id: T0, side: 'up' }]), 400, 'Invalid side'],
    ['midpoints, too many', post('/clob/midpoints', Array.from({ length: 501 }, () => ({ token_id: T0 }))), 400, 'Payload exceeds the limit'],
    ['spreads, payload', post('/clob/spreads', [{}]), 400, 'Invalid payload'],
    ['last trades, payload', post('/clob/last-trades-prices', 'null'), 400, 'Invalid payload'],
    ['history, bad token', get(`/clob/prices-history?market=${M.conditionId}&interval=1d`), 400, 'Invalid token id'],
    ['history, bad interval', get(`/clob/prices-history?market=${T0}&interval=5y`), 400, 'interval: must be one of max, all, 1m, 1w, 1d, 6h, 1h'],
    ['batch history, too many', post('/clob/batch-prices-history', { markets: Array.from({ length: 21 }, (_, i) => String(i + 1)) }), 400, 'Payload exceeds the limit'],
    ['batch history, payload', post('/clob/batch-prices-history', { tokens: [T0] }), 400, 'Invalid payload'],
    ['markets, bad cursor', get('/clob/markets?next_cursor=zzz'), 400, 'next_cursor: is not a cursor this service issued'],
  ];
  for (const [name, pending, status, error] of rows) {
    const res = await pending;
    t.equal(res.status, status, name);
    t.match(res.type, /application\/json/, name);
    t.same(res.body, { error }, name);
  }
});

t.test('the official V2 client reads', async (t) => {
  const client = new ClobClient({ host: base, chain: 137, throwOnError: true });
  t.equal(await client.getOk(), 'OK');
  t.equal(await client.getVersion(), 2);
  t.ok(Number.isInteger(await client.getServerTime()));
  const book = await client.getOrderBook(T0);
  t.equal(book.asset_id, T0);
  const served = book.hash;
  t.equal(await client.getOrderBookHash({ ...book }), served, 'the client computes the same hash');
  t.same((await client.getOrderBooks([{ token_id: T0, side: 'BUY' as never }])).map((b) => b.asset_id), [T0]);
  t.same(await client.getPrice(T0, 'BUY'), { price: '0.47' });
  t.same(await client.getMidpoint(T1), { mid: '0.49' });
  t.same(await client.getSpread(T0), { spread: '0.08' });
  t.same(await client.getLastTradePrice(T0), { price: '0.52', side: 'BUY' });
  t.equal(await client.getTickSize(T0), '0.01');
  t.equal(await client.getNegRisk(T0), M.params.negRisk);
  t.equal(await client.getFeeRateBps(T0), 0);
  t.match(await client.getMarket(M.conditionId), { condition_id: M.conditionId });
  t.match(await client.getMarkets(), { limit: PAGE_SIZE, next_cursor: Buffer.from(String(PAGE_SIZE)).toString('base64') });
  t.match(await client.getSamplingSimplifiedMarkets(), { limit: PAGE_SIZE });
  t.match(await client.getClobMarketInfo(M.conditionId), { c: M.conditionId, mts: 0.01 });
  t.equal(await client.getFeeExponent(T1), 0, 'markets-by-token and clob-markets');
  const history = await client.getPricesHistory({ market: T0, interval: '1d' as never });
  t.ok(Array.isArray((history as unknown as { history: unknown[] }).history ?? history));
});

t.test('reads changed nothing in the engine', async (t) => {
  t.equal(engine.stateHash(), hashBefore);
  t.equal(host.position, positionBefore);
});
