// The order-book read routes without a server: each handler is called through the steps the HTTP core
// takes (query coercion and validation, body parsing and validation, the handler, fast-json-stringify of
// the 200 body), on a real engine with books, trades and markets in every state, and a catalog index
// built from Gamma-shaped objects. Every 200 body must survive serialisation unchanged (the response
// schema names every field), and no read may change the engine.

import { deepStrictEqual } from 'node:assert';
import { createHash } from 'node:crypto';
import t from 'tap';
import { ApiError, errorBody } from '../../api/http/apiErrors.js';
import type { Method, Reply, RouteDef } from '../../api/http/apiTypes.js';
import { checkBody, checkParams, checkQuery, compileRoute, type CompiledRoute } from '../../api/http/schemas.js';
import { bookRoutes } from '../../api/clob/bookRoutes.js';
import { bookSnapshot } from '../../api/clob/bookView.js';
import { clobReadRoutes } from '../../api/clob/clobReadRoutes.js';
import { PAGE_SIZE } from '../../api/clob/marketRoutes.js';
import { REWARD_ASSET } from '../../api/rewards/rewardViews.js';
import { indexedMarketOf, type IndexedMarket } from '../../catalog/marketIndex.js';
import { Engine, type Command } from '../../engine/index.js';
import { ReadModelInputError } from '../../projections/readModel/errors.js';
import type { ReadContext } from '../../projections/readModel/index.js';
import { buy, deposit, sell, split, T0, units } from '../engine/scenario.js';

const cid = (c: string): string => '0x' + c.repeat(64);
const A = cid('a');
const B = cid('b');
const C = cid('c');
const D = cid('d');
const [A0, A1, B0, B1, C0, C1, D0, D1] = ['1001', '1002', '2001', '2002', '3001', '3002', '4001', '4002'] as const;
const NOW = 1_767_225_600_123;

function list(conditionId: string, tokenIds: [string, string], over: Partial<Command> = {}): Command {
  return { type: 'ListMarket', time: T0, conditionId, tokenIds, tickSize: 10_000, minSize: units(5), makerFeeBps: 0, takerFeeBps: 0, negRisk: false, ...over } as Command;
}

function applyAll(engine: Engine, commands: readonly Command[]): void {
  for (const command of commands) {
    const refused = engine.apply(command).filter((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected');
    if (refused.length > 0) throw new Error(`${command.type} refused: ${JSON.stringify(refused)}`);
  }
}

/**
 * Market A (min size 1): a trade (taker buys A0 at 0.52), then resting A0 bids 0.40×10, 0.45×5, 0.47×1 and asks
 * 0.55×7, 0.60×3. B: listed, neg risk, tick 0.001, fees 100/200 bps, empty. C: paused. D: resolved to
 * outcome 1.
 */
function buildEngine(): Engine {
  const engine = new Engine();
  const S = '0x' + '5'.repeat(40);
  const Bu = '0x' + '6'.repeat(40);
  applyAll(engine, [
    list(A, [A0, A1], { minSize: units(1) }),
    list(B, [B0, B1], { negRisk: true, tickSize: 1_000, makerFeeBps: 100, takerFeeBps: 200 }),
    list(C, [C0, C1]),
    list(D, [D0, D1]),
    deposit(S, 1000),
    deposit(Bu, 1000),
    split(S, 100, A),
    sell('0xs1', S, A0, 2, 0.52),
    buy('0xb1', Bu, A0, 2, 0.52),
    buy('0xb2', Bu, A0, 10, 0.4),
    buy('0xb3', Bu, A0, 5, 0.45),
    buy('0xb4', Bu, A0, 1, 0.47),
    sell('0xs2', S, A0, 7, 0.55),
    sell('0xs3', S, A0, 3, 0.6),
    // The engine's rewards programs (what the forms show and sampling lists): A, B closed in the catalog, C paused.
    ...[A, B, C].map((conditionId): Command => ({ type: 'SetMarketRewards', time: T0, conditionId, dailyRate: units(25), maxSpread: 35_000, minSize: units(50) })),
    { type: 'PauseMarket', time: T0, conditionId: C },
    { type: 'ResolveMarket', time: T0, conditionId: D, winningOutcome: 1 },
  ]);
  return engine;
}

const CATALOG_A = indexedMarketOf(
  '512',
  {
    conditionId: A.toUpperCase().replace('0X', '0x'), question: 'Will A happen?', questionID: cid('e'), description: 'About A.', slug: 'will-a-happen', icon: 'https://x/i.png', image: 'https://x/m.png',
    endDate: '2027-01-01T00:00:00Z', outcomes: '["Up", "Down"]', clobTokenIds: `["${A0}", "${A1}"]`, active: true, closed: false, archived: false, negRisk: false,
    negRiskMarketID: '', marketMakerAddress: '0xfp', acceptingOrdersTimestamp: '2026-01-01T00:00:00Z', rewardsMinSize: 50, rewardsMaxSpread: 3.5,
    clobRewards: [{ assetAddress: '0xusdc', rewardsDailyRate: 25 }], groupItemTitle: 'A', resolutionSource: 'https://source',
  },
  { id: '77', slug: 'event-a', title: 'Event A', ticker: 'event-a', description: 'Event about A.' },
  ['Politics', 'World'],
);
const CATALOG_B = indexedMarketOf('513', { conditionId: B, question: 'B?', slug: 'b', active: true, closed: true, clobTokenIds: `["${B0}", "${B1}"]` }, undefined, []);
const CATALOG = new Map<string, IndexedMarket>([[A, CATALOG_A], [B, CATALOG_B]]);
const lookup = { get: (id: string) => CATALOG.get(id.toLowerCase()) };

interface Answer {
  status: number;
  body: unknown;
}

/** Calls a route the way httpServer.ts does, checking that a 200 body serialises without loss. */
function invoker(routes: readonly RouteDef[]) {
  const compiled = new Map<string, CompiledRoute>(routes.map((r) => [`${r.method} ${r.path}`, compileRoute(r)]));
  return async (method: Method, path: string, opts: { query?: string; params?: Record<string, string>; body?: string } = {}): Promise<Answer> => {
    const route = compiled.get(`${method} ${path}`);
    if (route === undefined) throw new Error(`no route ${method} ${path}`);
    const rawQuery = new URLSearchParams(opts.query ?? '');
    try {
      checkParams(route, opts.params ?? {});
      const query = checkQuery(route, rawQuery);
      const body = checkBody(route, opts.body ?? '');
      const reply = await route.def.handler({ method, path, params: opts.params ?? {}, query, rawQuery, body, rawBody: opts.body ?? '', headers: {}, ip: '127.0.0.1', receivedAt: NOW });
      const text = route.stringify(reply.body);
      if (route.textBody) return { status: reply.status, body: text };
      const parsed: unknown = JSON.parse(text);
      deepStrictEqual(parsed, JSON.parse(JSON.stringify(reply.body)), `${method} ${path}: the response schema drops or changes fields`);
      return { status: reply.status, body: parsed };
    } catch (error) {
      if (error instanceof ApiError) return { status: error.status, body: errorBody('clob', error) };
      if (error instanceof ReadModelInputError) return { status: 400, body: { error: error.message } };
      throw error;
    }
  };
}

/** Token lists the history reads asked ClickHouse for. */
const historyCalls: string[][] = [];
/** Price history is a ClickHouse read; here a client that answers one mark per token. */
const fakeHistory = {
  ch: {
    query: async (q: { query_params: { tokens: string[] } }) => {
      historyCalls.push(q.query_params.tokens);
      return { json: async () => q.query_params.tokens.map((token) => ({ token_id: token, m: 1_767_225_000, p: 420_000 })) };
    },
  },
  db: 'exchange',
  metadata: () => new Map(),
  now: () => NOW,
  feeAccount: 'fees',
} as unknown as ReadContext;

const engine = buildEngine();
const hashBefore = engine.stateHash();
const call = invoker(clobReadRoutes({ engine, markets: lookup, history: fakeHistory, clock: () => NOW }));

t.test('GET /book: levels best last, hash of the snapshot, mirrored for outcome 1', async (t) => {
  const a0 = await call('GET', '/book', { query: `token_id=${A0}` });
  t.equal(a0.status, 200);
  t.same(a0.body, {
    market: A, asset_id: A0, timestamp: String(NOW), hash: (a0.body as { hash: string }).hash,
    bids: [{ price: '0.4', size: '10' }, { price: '0.45', size: '5' }, { price: '0.47', size: '1' }],
    asks: [{ price: '0.6', size: '3' }, { price: '0.55', size: '7' }],
    min_order_size: '1', tick_size: '0.01', neg_risk: false, last_trade_price: '0.52',
  });
  t.strictSame(Object.keys(a0.body as object), ['market', 'asset_id', 'timestamp', 'hash', 'bids', 'asks', 'min_order_size', 'tick_size', 'neg_risk', 'last_trade_price'], 'key order of the hash');
  const unhashed = JSON.stringify({ ...(a0.body as object), hash: '' });
  t.equal((a0.body as { hash: string }).hash, createHash('sha1').update(unhashed).digest('hex'));

  const a1 = await call('GET', '/book', { query: `token_id=${A1}` });
  t.match(a1.body, {
    asset_id: A1,
    bids: [{ price: '0.4', size: '3' }, { price: '0.45', size: '7' }],
    asks: [{ price: '0.6', size: '10' }, { price: '0.55', size: '5' }, { price: '0.53', size: '1' }],
    last_trade_price: '0.48',
  });
  t.match((await call('GET', '/book', { query: `token_id=${B0}` })).body, { bids: [], asks: [], tick_size: '0.001', neg_risk: true, last_trade_price: '' });
  t.match((await call('GET', '/book', { query: `token_id=${D1}` })).body, { bids: [], asks: [] }, 'a resolved market keeps an (empty) book');
});

t.test('GET /book errors', async (t) => {
  for (const query of ['', 'token_id=', 'token_id=abc', 'token_id=0x12', `token_id=${'1'.repeat(79)}`, 'token_id=-1', 'token_id=1.5']) {
    t.same(await call('GET', '/book', { query }), { status: 400, body: { error: 'Invalid token id' } }, query);
  }
  t.same(await call('GET', '/book', { query: 'token_id=999' }), { status: 404, body: { error: 'No orderbook exists for the requested token id' } });
});

t.test('GET /book from its cache: the bytes the schema serialiser writes, the snapshot of the moment, new after a command or a millisecond', async (t) => {
  const own = buildEngine();
  let now = NOW;
  const route = compileRoute(bookRoutes({ engine: own, clock: () => now }).find((r) => r.path === '/book') as RouteDef);
  const get = async (tokenId: string): Promise<Reply> =>
    route.def.handler({ method: 'GET', path: '/book', params: {}, query: { token_id: tokenId }, rawQuery: new URLSearchParams(), body: undefined, rawBody: '', headers: {}, ip: '127.0.0.1', receivedAt: now });
  const check = async (label: string): Promise<void> => {
    for (const token of [A0, A1, B0, D1]) {
      const reply = await get(token);
      t.equal(reply.encoded, route.stringify(reply.body), `${label} ${token}: the cached body is the serialiser's`);
      t.equal(reply.encoded, JSON.stringify(reply.body), `${label} ${token}: compact JSON`);
      t.strictSame(reply.body, bookSnapshot(own, token, now), `${label} ${token}: the snapshot of now`);
    }
  };
  await check('first read');
  const first = await get(A0);
  t.equal(await get(A0), first, 'the same millisecond and no command: the same reply');
  now += 1;
  await check('next millisecond');
  t.not((await get(A0)).encoded, first.encoded, 'a new timestamp and hash');
  applyAll(own, [buy('0xb9', '0x' + '6'.repeat(40), A0, 4, 0.5)]);
  await check('after a command');
  t.match((await get(A0)).body, { bids: [{ price: '0.4' }, { price: '0.45' }, { price: '0.47' }, { price: '0.5', size: '4' }] });
});

t.test('POST /books: known tokens in request order, without repeats', async (t) => {
  const res = await call('POST', '/books', { body: JSON.stringify([{ token_id: A1 }, { token_id: '999' }, { token_id: A0, side: 'BUY' }, { token_id: A1 }]) });
  t.equal(res.status, 200);
  t.same((res.body as { asset_id: string }[]).map((b) => b.asset_id), [A1, A0]);
  t.same((await call('POST', '/books', { body: '[]' })).body, []);
  for (const body of ['', 'not json', '{}', '[1]', '[{"side":"BUY"}]', '[{"token_id":1001}]', 'null']) {
    t.same(await call('POST', '/books', { body }), { status: 400, body: { error: 'Invalid payload' } }, body);
  }
  t.same(await call('POST', '/books', { body: '[{"token_id":"x"}]' }), { status: 400, body: { error: 'Invalid token id' } });
  const many = JSON.stringify(Array.from({ length: 501 }, () => ({ token_id: A0 })));
  t.same(await call('POST', '/books', { body: many }), { status: 400, body: { error: 'Payload exceeds the limit' } });
});

t.test('prices: BUY is the best bid, SELL the best ask; midpoint, spread; "" when a side is empty', async (t) => {
  t.same((await call('GET', '/price', { query: `token_id=${A0}&side=BUY` })).body, { price: '0.47' });
  t.same((await call('GET', '/price', { query: `token_id=${A0}&side=sell` })).body, { price: '0.55' });
  t.same((await call('GET', '/price', { query: `token_id=${A1}&side=BUY` })).body, { price: '0.45' });
  t.same((await call('GET', '/price', { query: `token_id=${A1}&side=SELL` })).body, { price: '0.53' });
  t.same((await call('GET', '/price', { query: `token_id=${B0}&side=SELL` })).body, { price: '' });
  t.same(await call('GET', '/price', { query: `token_id=${A0}&side=HOLD` }), { status: 400, body: { error: 'Invalid side' } });
  t.same(await call('GET', '/price', { query: `token_id=${A0}` }), { status: 400, body: { error: 'Invalid side' } });
  t.same(await call('GET', '/price', { query: 'token_id=x&side=BUY' }), { status: 400, body: { error: 'Invalid token id' } });
  t.same(await call('GET', '/price', { query: 'token_id=5&side=BUY' }), { status: 404, body: { error: 'No orderbook exists for the requested token id' } });

  t.same((await call('GET', '/midpoint', { query: `token_id=${A0}` })).body, { mid: '0.51' });
  t.same((await call('GET', '/midpoint', { query: `token_id=${A1}` })).body, { mid: '0.49' });
  t.same((await call('GET', '/midpoint', { query: `token_id=${B0}` })).body, { mid: '' });
  t.same((await call('GET', '/spread', { query: `token_id=${A0}` })).body, { spread: '0.08' });
  t.same((await call('GET', '/spread', { query: `token_id=${A1}` })).body, { spread: '0.08' });
  t.same((await call('GET', '/spread', { query: `token_id=${B1}` })).body, { spread: '' });
  t.equal((await call('GET', '/spread', { query: 'token_id=7' })).status, 404);
});

t.test('batch prices: partial maps, unknown tokens left out', async (t) => {
  t.same((await call('GET', '/prices', { query: `token_ids=${A0},${A1},${B0}&sides=BUY,SELL,BUY` })).body, { [A0]: { BUY: '0.47' }, [A1]: { SELL: '0.53' }, [B0]: {} });
  t.same((await call('GET', '/prices', { query: `token_ids=${A0},999` })).body, { [A0]: { BUY: '0.47', SELL: '0.55' } });
  t.same((await call('GET', '/prices', { query: `token_ids=${A0}&sides=BUY,SELL` })).body, { [A0]: { BUY: '0.47' } }, 'sides past the last token id are ignored');
  t.same((await call('GET', '/prices', { query: `token_ids=${A0},${A1}&sides=SELL` })).body, { [A0]: { SELL: '0.55' }, [A1]: { BUY: '0.45', SELL: '0.53' } }, 'a token id without a side gets both');
  t.same(await call('GET', '/prices', { query: `token_ids=${A0}&sides=UP` }), { status: 400, body: { error: 'Invalid side' } });
  t.same(await call('GET', '/prices', { query: '' }), { status: 400, body: { error: 'Invalid token id' } });
  t.same((await call('POST', '/prices', { body: JSON.stringify([{ token_id: A0, side: 'BUY' }, { token_id: A0, side: 'SELL' }, { token_id: A1 }]) })).body, { [A0]: { BUY: '0.47', SELL: '0.55' }, [A1]: { BUY: '0.45', SELL: '0.53' } });
  t.same(await call('POST', '/prices', { body: JSON.stringify([{ token_id: A0, side: 'MID' }]) }), { status: 400, body: { error: 'Invalid side' } });

  t.same((await call('GET', '/midpoints', { query: `token_ids=${A0},${A1},${B0},999` })).body, { [A0]: '0.51', [A1]: '0.49' });
  t.same((await call('POST', '/midpoints', { body: JSON.stringify([{ token_id: A1 }]) })).body, { [A1]: '0.49' });
  t.same((await call('POST', '/spreads', { body: JSON.stringify([{ token_id: A0 }, { token_id: B0 }]) })).body, { [A0]: '0.08' });
  t.same(await call('GET', '/midpoints', { query: `token_ids=${Array.from({ length: 501 }, () => A0).join(',')}` }), { status: 400, body: { error: 'Payload exceeds the limit' } });
});

t.test('last trade: price and taker side in each token\'s terms', async (t) => {
  t.same((await call('GET', '/last-trade-price', { query: `token_id=${A0}` })).body, { price: '0.52', side: 'BUY' });
  t.same((await call('GET', '/last-trade-price', { query: `token_id=${A1}` })).body, { price: '0.48', side: 'SELL' });
  t.same((await call('GET', '/last-trade-price', { query: `token_id=${B0}` })).body, { price: '', side: '' });
  t.same((await call('POST', '/last-trades-prices', { body: JSON.stringify([{ token_id: A1 }, { token_id: B0 }, { token_id: A0 }]) })).body, [
    { token_id: A1, price: '0.48', side: 'SELL' },
    { token_id: A0, price: '0.52', side: 'BUY' },
  ]);
});

t.test('tick size, neg risk, fee rate', async (t) => {
  t.same((await call('GET', '/tick-size', { query: `token_id=${B1}` })).body, { minimum_tick_size: 0.001 });
  t.same((await call('GET', '/tick-size', { query: `token_id=${A0}` })).body, { minimum_tick_size: 0.01 });
  t.same((await call('GET', '/neg-risk', { query: `token_id=${B1}` })).body, { neg_risk: true });
  t.same((await call('GET', '/fee-rate', { query: `token_id=${B0}` })).body, { base_fee: 200 });
  t.equal((await call('GET', '/fee-rate', { query: 'token_id=1' })).status, 404);
  t.equal((await call('GET', '/neg-risk', { query: 'token_id=' })).status, 400);
});

t.test('market forms: catalog fields joined, flags from engine status and catalog', async (t) => {
  const a = (await call('GET', '/markets/{id}', { params: { id: A } })).body as Record<string, unknown>;
  t.match(a, {
    enable_order_book: true, active: true, closed: false, archived: false, accepting_orders: true, accepting_order_timestamp: '2026-01-01T00:00:00Z',
    minimum_order_size: 1, minimum_tick_size: 0.01, condition_id: A, question_id: cid('e'), question: 'Will A happen?', description: 'About A.',
    market_slug: 'will-a-happen', end_date_iso: '2027-01-01T00:00:00Z', game_start_time: '', seconds_delay: 0, fpmm: '0xfp', maker_base_fee: 0, taker_base_fee: 0,
    neg_risk: false, icon: 'https://x/i.png', image: 'https://x/m.png', rewards: { rates: [{ asset_address: REWARD_ASSET, rewards_daily_rate: 25 }], min_size: 50, max_spread: 3.5 },
    tokens: [{ token_id: A0, outcome: 'Up', price: 0.51, winner: false }, { token_id: A1, outcome: 'Down', price: 0.49, winner: false }],
    tags: ['Politics', 'World'], status: 'active', market_id: 512, slug: 'will-a-happen', assets_ids: [A0, A1], outcomes: ['Up', 'Down'],
    event: { id: '77', slug: 'event-a', title: 'Event A', ticker: 'event-a', description: 'Event about A.' },
    raw_metadata: { id: '512', groupItemTitle: 'A', resolutionSource: 'https://source' },
  });
  t.equal((await call('GET', '/markets/{id}', { params: { id: A.toUpperCase().replace('0X', '0x') } })).status, 200, 'any letter case');

  const b = (await call('GET', '/markets/{id}', { params: { id: B } })).body as Record<string, unknown>;
  t.match(b, { accepting_orders: true, closed: true, active: true, neg_risk: true, maker_base_fee: 100, taker_base_fee: 200, minimum_tick_size: 0.001, tokens: [{ price: 0 }, { price: 0 }] });
  const c = (await call('GET', '/markets/{id}', { params: { id: C } })).body as Record<string, unknown>;
  t.match(c, { status: 'paused', accepting_orders: false, closed: false, active: true, question: '', market_id: 0, outcomes: ['Yes', 'No'], event: { id: '' }, raw_metadata: {} });
  const d = (await call('GET', '/markets/{id}', { params: { id: D } })).body as Record<string, unknown>;
  t.match(d, { status: 'resolved', accepting_orders: false, closed: true, tokens: [{ price: 0, winner: false }, { price: 1, winner: true }] });

  t.same(await call('GET', '/markets/{id}', { params: { id: '0x12' } }), { status: 400, body: { error: 'Invalid market' } });
  t.same(await call('GET', '/markets/{id}', { params: { id: '12345' } }), { status: 400, body: { error: 'Invalid market' } });
  t.same(await call('GET', '/markets/{id}', { params: { id: cid('f') } }), { status: 404, body: { error: 'market not found' } });
});

t.test('lists: every market or the sampling ones, by condition id', async (t) => {
  const all = (await call('GET', '/markets', { query: 'next_cursor=MA==' })).body as { limit: number; count: number; next_cursor: string; data: Record<string, unknown>[] };
  t.same({ limit: all.limit, count: all.count, next_cursor: all.next_cursor }, { limit: PAGE_SIZE, count: 4, next_cursor: 'LTE=' });
  t.same(all.data.map((m) => m.condition_id), [A, B, C, D]);
  t.match(all.data[0], { itode: false, taker_order_delay_ms: 0, order_age_seconds: 0, blockaid_check_enabled: false });
  t.notOk('status' in (all.data[0] as object), 'the list form has no status');
  t.same(((await call('GET', '/markets', {})).body as { count: number }).count, 4, 'no cursor = first page');

  const sampling = (await call('GET', '/sampling-markets', {})).body as { data: Record<string, unknown>[] };
  t.same(sampling.data.map((m) => m.condition_id), [A], 'rewarded and trading: B is closed in the catalog, C paused, D resolved without a program');
  t.ok('raw_metadata' in (sampling.data[0] as object), 'full form');
  const simplified = (await call('GET', '/simplified-markets', {})).body as { data: Record<string, unknown>[] };
  t.same(simplified.data.map((m) => m.condition_id), [A, B, C, D]);
  t.same(Object.keys(simplified.data[0] as object), ['condition_id', 'status', 'question', 'slug', 'neg_risk', 'active', 'closed', 'archived', 'accepting_orders', 'market_id', 'tokens', 'rewards', 'assets_ids', 'outcomes']);
  t.same(((await call('GET', '/sampling-simplified-markets', {})).body as { data: { condition_id: string }[] }).data.map((m) => m.condition_id), [A]);

  t.same((await call('GET', '/markets', { query: 'next_cursor=LTE=' })).body, { limit: PAGE_SIZE, count: 0, next_cursor: 'LTE=', data: [] });
  t.same((await call('GET', '/markets', { query: 'next_cursor=MTAw' })).body, { limit: PAGE_SIZE, count: 0, next_cursor: 'LTE=', data: [] }, 'past the end');
  for (const cursor of ['abc', 'LTE', 'MA', '-1', 'LTI=']) t.equal((await call('GET', '/markets', { query: `next_cursor=${cursor}` })).status, 400, cursor);
});

t.test('cursors walk every page to LTE=', async (t) => {
  const big = new Engine();
  const total = PAGE_SIZE * 2 + 37;
  const ids = Array.from({ length: total }, (_, i) => '0x' + createHash('sha256').update(String(i)).digest('hex'));
  applyAll(big, ids.map((id, i) => list(id, [String(10_000 + 2 * i), String(10_001 + 2 * i)])));
  applyAll(big, ids.map((conditionId): Command => ({ type: 'SetMarketRewards', time: T0, conditionId, dailyRate: units(1), maxSpread: 10_000, minSize: 0 })));
  const callBig = invoker(clobReadRoutes({ engine: big, markets: { get: () => undefined }, history: fakeHistory, clock: () => NOW }));
  for (const path of ['/markets', '/simplified-markets', '/sampling-markets', '/sampling-simplified-markets']) {
    const seen: string[] = [];
    const cursors: string[] = [];
    let cursor = 'MA==';
    while (cursor !== 'LTE=') {
      const page = (await callBig('GET', path, { query: `next_cursor=${encodeURIComponent(cursor)}` })).body as { count: number; next_cursor: string; data: { condition_id: string }[] };
      t.equal(page.count, page.data.length);
      seen.push(...page.data.map((m) => m.condition_id));
      cursor = page.next_cursor;
      cursors.push(cursor);
    }
    t.same(cursors, [Buffer.from(String(PAGE_SIZE)).toString('base64'), Buffer.from(String(2 * PAGE_SIZE)).toString('base64'), 'LTE='], `${path} cursors`);
    t.equal(seen.length, total, `${path}: every market once`);
    t.same(seen, [...seen].sort(), `${path}: by condition id`);
    t.equal(new Set(seen).size, total);
  }
});

t.test('V2 client lookups: markets-by-token and the compact form', async (t) => {
  t.same((await call('GET', '/markets-by-token/{token_id}', { params: { token_id: A1 } })).body, { condition_id: A });
  t.same(await call('GET', '/markets-by-token/{token_id}', { params: { token_id: 'x1' } }), { status: 400, body: { error: 'Invalid token id' } });
  t.same(await call('GET', '/markets-by-token/{token_id}', { params: { token_id: '77' } }), { status: 404, body: { error: 'No orderbook exists for the requested token id' } });
  t.same((await call('GET', '/clob-markets/{condition_id}', { params: { condition_id: A } })).body, {
    c: A, t: [{ t: A0, o: 'Up' }, { t: A1, o: 'Down' }], mts: 0.01, nr: false, fd: { r: 0, e: 0, to: true }, mbf: 0, tbf: 0, r: { mi: 50, ma: 3.5 },
    ao: true, mos: 1, sd: 0, aot: '2026-01-01T00:00:00Z', itode: false, ibce: false, rfqe: false,
  });
  t.match((await call('GET', '/clob-markets/{condition_id}', { params: { condition_id: C } })).body, { c: C, t: [{ t: C0, o: 'Yes' }, { t: C1, o: 'No' }], r: { mi: 50, ma: 3.5 }, ao: false });
  t.match((await call('GET', '/clob-markets/{condition_id}', { params: { condition_id: D } })).body, { c: D, r: null, ao: false }, 'no rewards program');
  t.same(await call('GET', '/clob-markets/{condition_id}', { params: { condition_id: 'abc' } }), { status: 400, body: { error: 'Invalid market' } });
  t.same(await call('GET', '/clob-markets/{condition_id}', { params: { condition_id: cid('9') } }), { status: 404, body: { error: 'market not found' } });
});

t.test('price history: token ids checked, bounds checked, the read model answers', async (t) => {
  historyCalls.length = 0;
  const one = (await call('GET', '/prices-history', { query: `market=${A0}&interval=1h&fidelity=5` })).body as { history: { t: number; p: number }[] };
  t.same(one.history.slice(0, 2), [{ t: 1_767_225_000, p: 0.42 }, { t: 1_767_225_300, p: 0.42 }], 'buckets of 5 minutes from the mark on');
  t.same(historyCalls, [[A0]]);
  t.same(await call('GET', '/prices-history', { query: 'market=0xabc&interval=1h' }), { status: 400, body: { error: 'Invalid token id' } });
  t.same(await call('GET', '/prices-history', { query: 'interval=1h' }), { status: 400, body: { error: 'Invalid token id' } });
  t.same(await call('GET', '/prices-history', { query: `market=${A0}&startTs=99999999999` }), { status: 400, body: { error: 'startTs: must be a Unix timestamp in seconds' } });
  t.same(await call('GET', '/prices-history', { query: `market=${A0}&interval=2y` }), { status: 400, body: { error: 'interval: must be one of max, all, 1m, 1w, 1d, 6h, 1h' } });
  t.equal((await call('GET', '/prices-history', { query: `market=${A0}&interval=1d&startTs=5` })).status, 200, 'an interval and a start: the later of the two starts the range');
  t.equal((await call('GET', '/prices-history', { query: `market=${A0}&fidelity=abc` })).status, 400);

  historyCalls.length = 0;
  const batch = await call('POST', '/batch-prices-history', { body: JSON.stringify({ markets: [A0, A1, A0], start_ts: 1_767_225_000, end_ts: '1767225120', fidelity: 1 }) });
  t.same(batch.body, { history: { [A0]: [{ t: 1_767_225_000, p: 0.42 }, { t: 1_767_225_060, p: 0.42 }], [A1]: [{ t: 1_767_225_000, p: 0.42 }, { t: 1_767_225_060, p: 0.42 }] } });
  t.same(historyCalls, [[A0, A1]], 'each token once');
  t.equal((await call('POST', '/batch-prices-history', { body: JSON.stringify({ markets: [A0], startTs: 1_767_225_000, endTs: 1_767_225_060 }) })).status, 200, 'camelCase bounds too');
  t.same(await call('POST', '/batch-prices-history', { body: JSON.stringify({ markets: Array.from({ length: 21 }, (_, i) => String(i + 1)) }) }), { status: 400, body: { error: 'Payload exceeds the limit' } });
  t.same(await call('POST', '/batch-prices-history', { body: JSON.stringify({ markets: [] }) }), { status: 400, body: { error: 'Invalid payload' } });
  t.same(await call('POST', '/batch-prices-history', { body: JSON.stringify({ markets: 'x' }) }), { status: 400, body: { error: 'Invalid payload' } });
  t.same(await call('POST', '/batch-prices-history', { body: JSON.stringify({ markets: ['0xab'] }) }), { status: 400, body: { error: 'Invalid token id' } });
  t.same(await call('POST', '/batch-prices-history', { body: JSON.stringify({ markets: [A0], end_ts: 2 ** 32 }) }), { status: 400, body: { error: 'end_ts: must be a Unix timestamp in seconds' } });
});

t.test('service info', async (t) => {
  t.same(await call('GET', '/'), { status: 200, body: 'OK' });
  t.same(await call('GET', '/ok'), { status: 200, body: 'OK' });
  t.same(await call('GET', '/time'), { status: 200, body: Math.floor(NOW / 1000) });
  t.same(await call('GET', '/version'), { status: 200, body: { version: 2 } });
});

t.test('reads change nothing in the engine', async (t) => {
  t.equal(engine.stateHash(), hashBefore);
  t.same(engine.checkInvariants(), []);
});
