// The public Data API reads beyond /trades, /positions and /holders, end to end: the whole service in this
// process, a session made by submitting commands to the engine host, every route read over HTTP. Each body
// is compared with what the ClickHouse read model returns for the same parameters (the in-memory model serves
// most of them: the answers must be the same), and the figures are checked against each other and against the
// engine: /value = Σ /positions currentValue, realised + unrealised PnL = the cash the wallet made + /value,
// open interest = the engine's locked collateral, leaderboard volume = Σ the wallet's fills. The session is
// test/support/dataApiSession.ts's: every fill kind, splits, merges, a resolution and redemptions on three
// demo markets M1, M2, M3.

import t from 'tap';
import { activity, type Activity } from '../../projections/readModel/activity.js';
import { closedPositions, traded, value, type ClosedPosition } from '../../projections/readModel/portfolio.js';
import { marketPositions, openInterest, eventVolume, type MarketPositionGroup } from '../../projections/readModel/marketStats.js';
import { leaderboard, type LeaderboardEntry, type LeaderboardParams } from '../../projections/readModel/leaderboard.js';
import { LeaderboardBoards } from '../../projections/readModel/leaderboardBoards.js';
import { builderLeaderboard, builderVolume } from '../../projections/readModel/builderBoard.js';
import { positions, type ActivityTrade, type Position } from '../../projections/readModel/index.js';
import { startTestService } from '../support/serviceFixture.js';
import { get } from '../support/httpGet.js';
import { zipEntries } from '../support/zipEntries.js';
import { ALICE, BOB, CAROL, CODE, DAVE, NOBODY, playDataApiSession } from '../support/dataApiSession.js';

const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const base6 = (x: number): number => Math.round(x * 1_000_000);
const upper = (s: string): string => '0x' + s.slice(2).toUpperCase();

// Leaderboards as of the projector's position at every read (the service keeps them 30 s by default).
const svc = await startTestService({ leaderboardMaxAgeMs: 0 });
t.teardown(() => svc.close());
const base = svc.baseUrl;
const host = svc.service.engine;
const reads = svc.service.reads;
const catalog = svc.service.markets;
/** The leaderboard as the ClickHouse read model computes it now. */
const board = (params: LeaderboardParams, markets?: readonly string[]): Promise<LeaderboardEntry[]> => leaderboard(params, new LeaderboardBoards(reads, () => svc.service.projector.position, 0).board, markets);

const { M1, M2, M3, EVENT1, deposits } = await playDataApiSession(svc);

t.test('live reads serve (the in-memory model is on)', async (t) => {
  t.equal(svc.service.live?.ready, true);
});

t.test('GET /activity', async (t) => {
  const brief = (rows: unknown): string[] => (rows as Activity[]).map((r) => `${r.type} ${r.side}${r.side === '' ? '' : ' '}${r.asset === '' ? r.conditionId.slice(0, 6) : r.asset.slice(-2)} ${r.size}/${r.usdcSize}`);

  t.test("a wallet's timeline, newest first; every field; equal to ClickHouse's", async (t) => {
    const got = await get(base, `/activity?user=${BOB}`);
    t.equal(got.status, 200);
    t.strictSame(got.body, wire(await activity(reads, { user: BOB })), 'the body is what the ClickHouse read model returns');
    t.strictSame((await get(base, `/activity/activity?user=${upper(BOB)}`)).body, got.body, 'under /activity too, any case');
    t.strictSame(brief(got.body), [
      `REDEEM ${M2.slice(0, 6)} 15/5`, 'TRADE SELL :0 5/1.25', `SPLIT ${M2.slice(0, 6)} 10/10`, `MERGE ${M1.slice(0, 6)} 20/20`, 'TRADE SELL :0 10/4', `SPLIT ${M1.slice(0, 6)} 100/100`,
    ]);
    const rows = got.body as Activity[];
    t.strictSame(Object.keys(rows[0] ?? {}).sort(), [
      'asset', 'bio', 'conditionId', 'eventSlug', 'icon', 'name', 'outcome', 'outcomeIndex', 'price', 'profileImage', 'profileImageOptimized',
      'proxyWallet', 'pseudonym', 'side', 'size', 'slug', 'timestamp', 'title', 'transactionHash', 'type', 'usdcSize',
    ], "every field of upstream's Activity");
    const meta = (await reads.metadata([M2])).get(M2);
    t.match(rows[0], { proxyWallet: BOB, conditionId: M2, type: 'REDEEM', price: 0, asset: '', side: '', outcomeIndex: 999, outcome: '', title: meta?.title, slug: meta?.slug });
    t.match(rows[1], { type: 'TRADE', side: 'SELL', asset: `${M2}:0`, price: 0.25, outcomeIndex: 0, outcome: meta?.outcomes[0] });
    for (const r of rows) t.match(r.transactionHash, /^0x[0-9a-f]{64}$/);
    const trades = (await get(base, `/trades?user=${BOB}&takerOnly=false`)).body as ActivityTrade[];
    t.strictSame(rows.filter((r) => r.type === 'TRADE').map((r) => r.transactionHash), trades.map((r) => r.transactionHash), 'trades carry the hashes /trades shows');
  });

  t.test('every fill kind: normal, mint and merge fills, both roles', async (t) => {
    const got = (await get(base, `/activity?user=${ALICE}&market=${M1}`)).body;
    t.strictSame(brief(got), ['TRADE SELL :0 5/2.5', 'TRADE SELL :0 5/3', 'TRADE BUY :0 10/4.5', 'TRADE BUY :0 10/4']);
    t.strictSame(brief((await get(base, `/activity?user=${CAROL}&market=${M1}`)).body), ['TRADE SELL :1 5/2.5', 'TRADE BUY :1 10/5.5'], 'the NO sides of the mint and merge fills');
  });

  t.test('type, side, market, eventId, start and end; sorts; limit and offset', async (t) => {
    const cases: [string, Record<string, unknown>][] = [
      [`user=${BOB}&type=SPLIT,MERGE`, { user: BOB, type: ['SPLIT', 'MERGE'] }],
      [`user=${BOB}&type=redeem`, { user: BOB, type: ['REDEEM'] }],
      [`user=${BOB}&type=REWARD,MAKER_REBATE,CONVERSION`, { user: BOB, type: ['REWARD', 'MAKER_REBATE', 'CONVERSION'] }],
      [`user=${ALICE}&side=BUY`, { user: ALICE, side: 'BUY' }],
      [`user=${BOB}&side=sell&type=TRADE,SPLIT`, { user: BOB, side: 'SELL', type: ['TRADE', 'SPLIT'] }],
      [`user=${BOB}&market=${upper(M2)}`, { user: BOB, market: [M2] }],
      [`user=${ALICE}&sortBy=TOKENS`, { user: ALICE, sortBy: 'TOKENS' }],
      [`user=${ALICE}&sortBy=cash&sortDirection=ASC`, { user: ALICE, sortBy: 'CASH', sortDirection: 'ASC' }],
      [`user=${BOB}&sortDirection=asc`, { user: BOB, sortDirection: 'ASC' }],
      [`user=${ALICE}&limit=2&offset=1`, { user: ALICE, limit: 2, offset: 1 }],
      [`user=${ALICE}&limit=0`, { user: ALICE, limit: 0 }],
      [`user=${ALICE}&offset=10000`, { user: ALICE, offset: 10000 }],
      [`user=${NOBODY}`, { user: NOBODY }],
    ];
    for (const [q, params] of cases) t.strictSame((await get(base, `/activity?${q}`)).body, wire(await activity(reads, params as unknown as Parameters<typeof activity>[1])), q);
    t.equal(((await get(base, `/activity?user=${BOB}&type=SPLIT,MERGE`)).body as unknown[]).length, 3);
    t.strictSame((await get(base, `/activity?user=${BOB}&type=REWARD`)).body, [], 'no rewards program in this session: no REWARD rows');
    const all = (await get(base, `/activity?user=${ALICE}`)).body as Activity[];
    const newest = all[0]?.timestamp as number;
    const oldest = all[all.length - 1]?.timestamp as number;
    t.strictSame((await get(base, `/activity?user=${ALICE}&start=${newest}`)).body, all.filter((r) => r.timestamp >= newest), 'start is inclusive');
    t.strictSame((await get(base, `/activity?user=${ALICE}&end=${oldest}`)).body, all.filter((r) => r.timestamp <= oldest), 'end is inclusive');
    const byEvent = (await get(base, `/activity?user=${ALICE}&eventId=${EVENT1}`)).body as Activity[];
    const eventMarkets = new Set(catalog.conditionIdsOfEvents([EVENT1]));
    t.ok(byEvent.length > 0 && byEvent.every((r) => eventMarkets.has(r.conditionId)), "eventId: the event's markets");
    t.strictSame(byEvent, all.filter((r) => eventMarkets.has(r.conditionId)));
  });
});

t.test('eventId on /positions and /trades, mutually exclusive with market', async (t) => {
  const eventMarkets = new Set(catalog.conditionIdsOfEvents([EVENT1]));
  const pos = (await get(base, `/positions?user=${BOB}&eventId=${EVENT1}&sizeThreshold=0`)).body as Position[];
  t.strictSame(pos, wire(await positions(reads, { user: BOB, market: [...eventMarkets], sizeThreshold: 0 })));
  t.ok(pos.length > 0 && pos.every((p) => eventMarkets.has(p.conditionId)));
  const trades = (await get(base, `/trades?eventId=${EVENT1}&takerOnly=false`)).body as ActivityTrade[];
  t.ok(trades.length > 0 && trades.every((r) => eventMarkets.has(r.conditionId)));
  t.strictSame((await get(base, `/trades?eventId=999999999`)).body, [], 'an event the catalog does not know has no markets');
  for (const path of [`/positions?user=${BOB}&eventId=${EVENT1}&market=${M1}`, `/trades?eventId=${EVENT1}&market=${M1}`, `/activity?user=${BOB}&eventId=${EVENT1}&market=${M1}`, `/closed-positions?user=${BOB}&eventId=1&market=${M1}`]) {
    const got = await get(base, path);
    t.equal(got.status, 400, path);
    t.strictSame(got.body, { error: 'market and eventId are mutually exclusive' }, path);
  }
});

/** Σ of money fields in base units (each is a whole number of base units). */
const sum6 = (xs: readonly number[]): number => xs.reduce((n, x) => n + base6(x), 0);

t.test('GET /value: Σ /positions currentValue', async (t) => {
  for (const user of [ALICE, BOB, CAROL, DAVE, NOBODY]) {
    const got = await get(base, `/value?user=${user}`);
    t.strictSame(got.body, wire(await value(reads, { user })), user);
    const held = (await get(base, `/positions?user=${user}&sizeThreshold=0&limit=500`)).body as Position[];
    t.equal(base6((got.body as { value: number }[])[0]?.value ?? NaN), sum6(held.map((p) => p.currentValue)), `${user}: value = Σ currentValue`);
  }
  t.strictSame((await get(base, `/value?user=${BOB}&market=${M2}`)).body, wire(await value(reads, { user: BOB, market: [M2] })));
  t.strictSame((await get(base, `/value?user=${NOBODY}`)).body, [{ user: NOBODY, value: 0 }]);
});

t.test('GET /closed-positions', async (t) => {
  const got = await get(base, `/closed-positions?user=${ALICE}`);
  t.strictSame(got.body, wire(await closedPositions(reads, { user: ALICE })));
  const [closed] = got.body as ClosedPosition[];
  const meta = (await reads.metadata([M3])).get(M3);
  t.strictSame(closed, {
    proxyWallet: ALICE, asset: `${M3}:0`, conditionId: M3, avgPrice: 0.5, totalBought: 10, realizedPnl: 2, curPrice: closed?.curPrice, timestamp: closed?.timestamp,
    title: meta?.title, slug: meta?.slug, icon: meta?.icon, eventSlug: meta?.eventSlug, outcome: meta?.outcomes[0], outcomeIndex: 0,
    oppositeOutcome: meta?.outcomes[1], oppositeAsset: `${M3}:1`, endDate: meta?.endDate,
  }, "every field of upstream's ClosedPosition");
  const redeemed = (await get(base, `/closed-positions?user=${CAROL}`)).body as ClosedPosition[];
  t.ok(redeemed.some((p) => p.conditionId === M2 && p.curPrice === 1 && p.realizedPnl === 3.75), 'a redeemed position: bought 5 at 0.25, redeemed for 5');
  for (const q of ['sortBy=TITLE', 'sortBy=price&sortDirection=ASC', 'sortBy=AVGPRICE', 'sortBy=TIMESTAMP', 'limit=1&offset=1', 'limit=0', `market=${M2}`, 'title=zzzz']) {
    const params = Object.fromEntries(new URLSearchParams(q));
    const p = { user: BOB, ...params, ...(params.limit === undefined ? {} : { limit: Number(params.limit) }), ...(params.offset === undefined ? {} : { offset: Number(params.offset) }), ...(params.market === undefined ? {} : { market: [params.market] }) };
    t.strictSame((await get(base, `/closed-positions?user=${BOB}&${q}`)).body, wire(await closedPositions(reads, p)), q);
  }
});

t.test('realised + unrealised PnL = the cash the wallet made trading + /value', async (t) => {
  for (const user of [ALICE, BOB, CAROL, DAVE]) {
    const open = (await get(base, `/positions?user=${user}&sizeThreshold=0&limit=500`)).body as Position[];
    const closed = (await get(base, `/closed-positions?user=${user}&limit=50`)).body as ClosedPosition[];
    const worth = (await get(base, `/value?user=${user}`)).body as { value: number }[];
    const b = host.engine.balances(user);
    const cash = (b?.free ?? 0) + (b?.reserved ?? 0) - (deposits.get(user) ?? 0);
    const pnl = sum6(closed.map((p) => p.realizedPnl)) + sum6(open.map((p) => p.realizedPnl)) + sum6(open.map((p) => p.cashPnl));
    t.equal(pnl, cash + base6(worth[0]?.value ?? 0), `${user}: ${pnl} = ${cash} + value`);
  }
});

t.test('GET /traded', async (t) => {
  for (const [user, n] of [[ALICE, 2], [BOB, 2], [CAROL, 3], [DAVE, 2], [NOBODY, 0]] as const) {
    const got = await get(base, `/traded?user=${user}`);
    t.strictSame(got.body, { user, traded: n }, user);
    t.strictSame(got.body, wire(await traded(reads, { user })));
  }
});

t.test('GET /oi: the collateral locked in full sets, as the engine holds it', async (t) => {
  const got = await get(base, `/oi?market=${M1},${upper(M2)},${M3},0x${'00'.repeat(32)}`);
  t.strictSame(got.body, wire(await openInterest(reads, { market: [M1, M2, M3, `0x${'00'.repeat(32)}`] })));
  t.strictSame(got.body, [M1, M2, M3].map((m) => ({ market: m, value: (host.engine.market(m)?.locked ?? NaN) / 1_000_000 })), 'each equals the engine\'s locked collateral; unknown markets are left out');
  t.strictSame(got.body, [{ market: M1, value: 85 }, { market: M2, value: 0 }, { market: M3, value: 20 }], 'M1: 100 split + 10 minted - 5 merged by a fill - 20 merged');
  const all = (await get(base, '/oi')).body as { market: string; value: number }[];
  t.strictSame(all, wire(await openInterest(reads, {})));
  t.strictSame(all.map((r) => r.market), [...all.map((r) => r.market)].sort(), 'every market, by condition id');
  for (const r of all) t.equal(r.value, (host.engine.market(r.market)?.locked ?? NaN) / 1_000_000, r.market);
});

t.test('GET /live-volume: an event\'s markets, Σ usdcSize of their taker trades', async (t) => {
  const got = await get(base, `/live-volume?id=${EVENT1}`);
  const markets = catalog.conditionIdsOfEvents([EVENT1]);
  t.strictSame(got.body, wire(await eventVolume(reads, markets)));
  const [v] = got.body as { total: number; markets: { market: string; value: number }[] }[];
  t.strictSame(v?.markets.map((m) => m.market), markets);
  for (const m of v?.markets ?? []) {
    const trades = (await get(base, `/trades?market=${m.market}&limit=10000`)).body as ActivityTrade[];
    t.equal(base6(m.value), sum6(trades.map((r) => r.usdcSize)), m.market);
  }
  t.equal(base6(v?.total ?? NaN), sum6(v?.markets.map((m) => m.value) ?? []));
  t.strictSame((await get(base, '/live-volume?id=999999999')).body, [{ total: 0, markets: [] }]);
});

t.test('GET /v1/market-positions', async (t) => {
  const got = await get(base, `/v1/market-positions?market=${M1}`);
  t.strictSame(got.body, wire(await marketPositions(reads, { market: M1 })));
  const groups = got.body as MarketPositionGroup[];
  t.strictSame(groups.map((g) => g.token), [`${M1}:0`, `${M1}:1`]);
  const yes = groups[0]?.positions ?? [];
  t.strictSame(yes.map((p) => p.proxyWallet).sort(), [ALICE, BOB, DAVE].sort(), 'every wallet that held YES');
  for (const p of yes) t.equal(base6(p.totalPnl), base6(p.cashPnl) + base6(p.realizedPnl));
  const cases = ['status=OPEN', 'status=closed', 'sortBy=TOKENS&sortDirection=ASC', 'sortBy=CASH_PNL', 'sortBy=REALIZED_PNL', 'limit=1&offset=1', `user=${upper(ALICE)}`, 'limit=0'];
  for (const q of cases) {
    const params = Object.fromEntries(new URLSearchParams(q));
    const p = { market: M1, ...params, ...(params.limit === undefined ? {} : { limit: Number(params.limit) }), ...(params.offset === undefined ? {} : { offset: Number(params.offset) }), ...(params.user === undefined ? {} : { user: params.user.toLowerCase() }) };
    t.strictSame((await get(base, `/v1/market-positions?market=${M1}&${q}`)).body, wire(await marketPositions(reads, p)), q);
  }
  t.strictSame((await get(base, `/v1/market-positions?market=0x${'00'.repeat(32)}`)).body, []);
});

t.test('GET /v1/leaderboard', async (t) => {
  const fetched = async (q: string): Promise<LeaderboardEntry[]> => (await get(base, `/v1/leaderboard?${q}`)).body as LeaderboardEntry[];
  const vol = await fetched('timePeriod=ALL&orderBy=VOL');
  t.strictSame(vol, wire(await board({ timePeriod: 'ALL', orderBy: 'VOL' })));
  t.strictSame(vol.map((e) => e.rank), vol.map((_, i) => String(i + 1)));
  for (const e of vol) {
    const fills = (await get(base, `/activity?user=${e.proxyWallet}&type=TRADE&limit=500`)).body as Activity[];
    t.equal(base6(e.vol), sum6(fills.map((r) => r.usdcSize)), `${e.proxyWallet}: vol = Σ its fills`);
  }
  const pnl = await fetched('timePeriod=ALL');
  t.strictSame(pnl, wire(await board({ timePeriod: 'ALL' })));
  for (const e of pnl) {
    const open = (await get(base, `/positions?user=${e.proxyWallet}&sizeThreshold=0&limit=500`)).body as Position[];
    const closed = (await get(base, `/closed-positions?user=${e.proxyWallet}&limit=50`)).body as ClosedPosition[];
    t.equal(base6(e.pnl), sum6(closed.map((p) => p.realizedPnl)) + sum6(open.map((p) => p.realizedPnl + p.cashPnl)), `${e.proxyWallet}: pnl = realised + unrealised`);
  }
  t.ok(pnl.every((e, i) => i === 0 || (pnl[i - 1] as LeaderboardEntry).pnl >= e.pnl), 'PnL descending');
  t.strictSame(Object.keys(pnl[0] ?? {}).sort(), ['pnl', 'profileImage', 'proxyWallet', 'rank', 'userName', 'verifiedBadge', 'vol', 'xUsername']);
  for (const e of pnl) t.strictSame(await fetched(`timePeriod=ALL&user=${upper(e.proxyWallet)}`), [e], `${e.proxyWallet}'s own standing`);
  for (const e of vol) t.strictSame(await fetched(`timePeriod=ALL&orderBy=VOL&user=${e.proxyWallet}`), [e]);
  t.strictSame(await fetched(`timePeriod=ALL&user=${NOBODY}`), [], 'a wallet that never traded has no standing');
  t.strictSame(await fetched('timePeriod=ALL&limit=2&offset=1'), pnl.slice(1, 3));
  t.strictSame(await fetched('timePeriod=ALL&userName=someone'), []);
  // Everything happened within the day: the day's board is the all-time board.
  t.strictSame(await fetched('timePeriod=DAY&orderBy=VOL'), vol);
  t.strictSame(await fetched(''), pnl, 'default: DAY, PNL');
  t.strictSame(await fetched('timePeriod=week'), wire(await board({ timePeriod: 'WEEK' })));
  const tags = (catalog.get(M1)?.tags ?? []).map((l) => l.toUpperCase());
  const category = ['POLITICS', 'SPORTS', 'CRYPTO', 'CULTURE', 'WEATHER', 'TECH'].find((c) => tags.includes(c));
  if (category !== undefined) {
    const markets = catalog.conditionIdsTagged(category);
    const byCategory = await fetched(`category=${category}&timePeriod=ALL&orderBy=VOL`);
    t.strictSame(byCategory, wire(await board({ category, timePeriod: 'ALL', orderBy: 'VOL' }, markets)));
    for (const e of byCategory) {
      const fills = ((await get(base, `/activity?user=${e.proxyWallet}&type=TRADE&limit=500`)).body as Activity[]).filter((r) => markets.includes(r.conditionId));
      t.equal(base6(e.vol), sum6(fills.map((r) => r.usdcSize)), `${category}: ${e.proxyWallet}'s vol`);
    }
  }
});

t.test('GET /v1/builders/leaderboard and /v1/builders/volume', async (t) => {
  const got = await get(base, '/v1/builders/leaderboard?timePeriod=ALL');
  t.strictSame(got.body, wire(await builderLeaderboard(reads, { timePeriod: 'ALL' })));
  t.strictSame(got.body, [{ rank: '1', builder: CODE, builderCode: CODE, volume: 8, activeUsers: 2, verified: false, builderLogo: '' }], "dave's 3 and alice's 5");
  t.strictSame((await get(base, '/v1/builders/leaderboard')).body, got.body, 'today is within the default DAY');
  t.strictSame((await get(base, '/v1/builders/leaderboard?limit=0')).body, []);
  const series = await get(base, '/v1/builders/volume?timePeriod=MONTH');
  t.strictSame(series.body, wire(await builderVolume(reads, { timePeriod: 'MONTH' })));
  const today = new Date().toISOString().slice(0, 10);
  t.strictSame(series.body, [{ dt: `${today}T00:00:00Z`, rank: '1', builder: CODE, builderCode: CODE, volume: 8, activeUsers: 2, verified: false, builderLogo: '' }]);
});

t.test('GET /v1/accounting/snapshot: a ZIP of positions.csv and equity.csv', async (t) => {
  const res = await fetch(`${base}/v1/accounting/snapshot?user=${BOB}`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/zip');
  const files = zipEntries(Buffer.from(await res.arrayBuffer()));
  t.strictSame([...files.keys()], ['positions.csv', 'equity.csv']);
  const positionsCsv = files.get('positions.csv')?.toString('utf8').trim().split('\n') ?? [];
  const equityCsv = files.get('equity.csv')?.toString('utf8').trim().split('\n') ?? [];
  t.equal(positionsCsv[0], 'conditionId,asset,size,curPrice,valuationTime');
  t.equal(equityCsv[0], 'cashBalance,positionsValue,equity,valuationTime');
  const held = ((await get(base, `/positions?user=${BOB}&sizeThreshold=0&limit=500`)).body as Position[]).sort((a, b) => (a.asset < b.asset ? -1 : 1));
  const rows = positionsCsv.slice(1).map((l) => l.split(','));
  t.strictSame(rows.map((r) => [r[0], r[1], Number(r[2]), Number(r[3])]), held.map((p) => [p.conditionId, p.asset, p.size, p.curPrice]));
  const [cash, worth, equity, at] = (equityCsv[1] ?? '').split(',');
  const b = host.engine.balances(BOB);
  t.equal(base6(Number(cash)), (b?.free ?? 0) + (b?.reserved ?? 0), "cashBalance: the wallet's collateral");
  t.equal(Number(worth), ((await get(base, `/value?user=${BOB}`)).body as { value: number }[])[0]?.value, 'positionsValue = /value');
  t.equal(base6(Number(equity)), base6(Number(cash)) + base6(Number(worth)));
  t.match(at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  t.ok(rows.every((r) => r[4] === at), 'one valuation time');
  t.match(cash, /^\d+\.\d{6}$/, 'six decimals');
  const none = zipEntries(Buffer.from(await (await fetch(`${base}/v1/accounting/snapshot?user=${NOBODY}`)).arrayBuffer()));
  t.equal(none.get('positions.csv')?.toString(), 'conditionId,asset,size,curPrice,valuationTime\n');
});

t.test('bounds, malformed input and unknown parameters: 400 as the other activity reads', async (t) => {
  const u = `user=${ALICE}`;
  const cases: [string, string][] = [
    ['/activity', 'user is required'],
    [`/activity?${u}&limit=501`, 'limit must be <= 500'],
    [`/activity?${u}&offset=10001`, 'offset must be <= 10000'],
    [`/activity?${u}&type=DEPOSIT`, 'type must be one of TRADE, SPLIT, MERGE, REDEEM, REWARD, CONVERSION, MAKER_REBATE, trade, split, merge, redeem, reward, conversion, maker_rebate'],
    [`/activity?${u}&start=-1`, 'start must be >= 0'],
    [`/activity?${u}&sortBy=SIZE`, 'sortBy must be one of TIMESTAMP, TOKENS, CASH, timestamp, tokens, cash'],
    [`/activity?${u}&eventId=0`, 'eventId must be >= 1'],
    ['/activity?user=alice', 'user is malformed'],
    ['/value', 'user is required'],
    [`/closed-positions?${u}&limit=51`, 'limit must be <= 50'],
    [`/closed-positions?${u}&offset=100001`, 'offset must be <= 100000'],
    [`/closed-positions?${u}&sortBy=TOKENS`, 'sortBy must be one of REALIZEDPNL, TITLE, PRICE, AVGPRICE, TIMESTAMP, realizedpnl, title, price, avgprice, timestamp'],
    ['/traded', 'user is required'],
    ['/oi?market=0x12', 'market is malformed'],
    ['/live-volume', 'id is required'],
    ['/live-volume?id=0', 'id must be >= 1'],
    ['/v1/market-positions', 'market is required'],
    [`/v1/market-positions?market=${M1}&limit=501`, 'limit must be <= 500'],
    [`/v1/market-positions?market=${M1}&status=SOME`, 'status must be one of OPEN, CLOSED, ALL, open, closed, all'],
    ['/v1/leaderboard?limit=0', 'limit must be >= 1'],
    ['/v1/leaderboard?limit=51', 'limit must be <= 50'],
    ['/v1/leaderboard?offset=1001', 'offset must be <= 1000'],
    ['/v1/leaderboard?category=GAMES', 'category must be one of OVERALL, POLITICS, SPORTS, CRYPTO, CULTURE, MENTIONS, WEATHER, ECONOMICS, TECH, FINANCE, overall, politics, sports, crypto, culture, mentions, weather, economics, tech, finance'],
    ['/v1/leaderboard?timePeriod=YEAR', 'timePeriod must be one of DAY, WEEK, MONTH, ALL, day, week, month, all'],
    ['/v1/builders/leaderboard?limit=51', 'limit must be <= 50'],
    ['/v1/builders/volume?timePeriod=HOUR', 'timePeriod must be one of DAY, WEEK, MONTH, ALL, day, week, month, all'],
    ['/v1/accounting/snapshot', 'user is required'],
  ];
  for (const [path, error] of cases) {
    const got = await get(base, path);
    t.equal(got.status, 400, path);
    t.strictSame(got.body, { error }, path);
  }
  for (const [path, name] of [[`/activity?${u}&bogus=1`, 'bogus'], [`/value?${u}&limit=3`, 'limit'], ['/oi?markets=1', 'markets'], [`/v1/leaderboard?window=all`, 'window'], [`/v1/accounting/snapshot?${u}&x=1`, 'x']] as const) {
    const got = await get(base, path);
    t.equal(got.status, 400, path);
    t.strictSame(got.body, { error: `unknown_field: ${name}` }, path);
  }
});

t.test('a ClickHouse failure is 500 internal_error; per-user reads and kept boards keep serving from memory', async (t) => {
  const db = svc.service.config.clickhouseDatabase;
  const ch = svc.service.ch;
  // The rewards sampler's minute makes the host append an AdvanceTime, which moves the projector: the
  // all-time board below is computed at a position that stays put for the few hundred ms this test takes.
  const due = host.engine.nextRewardSample();
  if (due !== undefined && due - Date.now() < 5_000) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + 200));
    await svc.service.projector.waitFor(host.position);
  }
  t.equal((await get(base, '/v1/leaderboard?timePeriod=ALL')).status, 200, 'the all-time board, computed at the current position');
  await ch.command({ query: `RENAME TABLE ${db}.account_totals TO ${db}.account_totals_gone, ${db}.fill_sides TO ${db}.fill_sides_gone` });
  try {
    const got = await get(base, '/v1/leaderboard?timePeriod=MONTH');
    t.equal(got.status, 500);
    t.strictSame(got.body, { error: 'internal_error: unexpected database failure' });
    t.equal((await get(base, '/v1/leaderboard?timePeriod=ALL')).status, 200, 'the all-time board computed before is kept (the projector has not moved)');
    for (const path of [`/activity?user=${ALICE}`, `/value?user=${ALICE}`, `/closed-positions?user=${ALICE}`, `/traded?user=${ALICE}`, `/oi?market=${M1}`, `/v1/market-positions?market=${M1}`]) {
      t.equal((await get(base, path)).status, 200, `${path} is served from memory`);
    }
  } finally {
    await ch.command({ query: `RENAME TABLE ${db}.account_totals_gone TO ${db}.account_totals, ${db}.fill_sides_gone TO ${db}.fill_sides` });
  }
});
