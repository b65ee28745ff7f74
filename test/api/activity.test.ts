// The activity surface end to end: the whole service (engine host, journal, projector, chDB, demo catalog,
// HTTP) in this process; trades are made by submitting commands to the engine host, then read over HTTP.
// Every parameter of GET /trades, /positions and /holders, their defaults and bounds (spec §4.2, §8.4), the
// §7 error rows of the activity surface, and that each body is exactly what the read model returns.
//
// The session, on three fee-free demo markets M1, M2, M3 (real clock; a few ms between commands):
//   M1  bob splits 100; bob SELL 10 @0.40 rests, alice BUY 10 takes it          fill1 (alice taker)
//       bob SELL 10 @0.60 rests, alice BUY 10 takes it                           fill2
//       carol BUY 5 @0.70 rests, alice SELL 5 takes it                           fill3 (alice sells)
//       frank splits 0.5 (below the default thresholds of 1 share)
//   M2  bob splits 10; bob SELL 5 @0.25 rests, carol BUY 5 takes it              fill4 (carol taker)
//       then M2 resolves, outcome 0 wins
//   M3  dave splits 600 and SELLs 525 @0.50; 21 buyers take 5 shares each, 5 times: 105 fills
// Holdings: alice M1:0 15 (cost 7.5, bought 20, realized 1.0); carol M1:0 5, M2:0 5; bob M1:0 80, M1:1 100,
// M2:0 5, M2:1 10; frank M1:0 0.5, M1:1 0.5; dave M3:0 75, M3:1 600; each buyer M3:0 25.

import { get as httpGet } from 'node:http';
import t from 'tap';
import { units, buy, sell } from '../engine/scenario.js';
import type { EngineEvent } from '../../engine/index.js';
import type { Submission } from '../../host/engineHost.js';
import { activityTrades, holders, positions, type ActivityTrade, type HolderGroup, type Position } from '../../projections/readModel/index.js';
import { startTestService } from '../support/serviceFixture.js';
import { get, type Got } from '../support/httpGet.js';

const addr = (hex2: string): string => '0x' + hex2.repeat(20);
const ALICE = addr('a1');
const BOB = addr('b0');
const CAROL = addr('c4');
const DAVE = addr('da');
const FRANK = addr('f4');
const BUYERS = Array.from({ length: 21 }, (_, i) => '0x' + (0x1000 + i).toString(16).padStart(40, '0'));


/**
 * A GET on a connection of its own. uWS resets a request line of more than 64 KiB that arrives on a
 * connection that has already served a request (reported to the server's owner), and the header edge
 * answers such a head with 431 and closes; the longest lists here (1,001 condition ids: 67 KB) go on a
 * fresh connection.
 */
function getFresh(base: string, path: string): Promise<Got> {
  return new Promise((resolve, reject) => {
    httpGet(base + path, { agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: JSON.parse(text) as unknown });
      });
    }).on('error', reject);
  });
}

/** JSON round trip of what a read-model function returns directly: what the HTTP body must equal. */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const svc = await startTestService();
t.teardown(() => svc.close());
const base = svc.baseUrl;
const host = svc.service.engine;
const reads = svc.service.reads;

const candidates = [...host.engine.markets()].filter(
  (m) => m.status === 'active' && m.params.takerFeeBps === 0 && m.params.makerFeeBps === 0 && m.params.minSize <= units(5) && !m.params.negRisk && units(0.05) % m.params.tickSize === 0,
);
if (candidates.length < 3) throw new Error(`the demo catalog handed too few fee-free markets to the engine (${candidates.length})`);
const [m1, m2, m3] = candidates as [(typeof candidates)[0], (typeof candidates)[0], (typeof candidates)[0]];
const M1 = m1.conditionId;
const M2 = m2.conditionId;
const M3 = m3.conditionId;
const [Y1] = m1.tokenIds;
const [Y2] = m2.tokenIds;
const [Y3] = m3.tokenIds;

let orderSeq = 0;
const oid = (): string => `0xe2e${(orderSeq += 1)}`;

async function submit(command: Submission): Promise<EngineEvent[]> {
  const events = await host.submit(command);
  const refused = events.filter((e) => e.type === 'OrderRejected' || e.type === 'CommandRejected');
  if (refused.length > 0) throw new Error(`the engine refused ${command.type}: ${JSON.stringify(refused)}`);
  await sleep(3); // distinct fill times, so "newest first" is one order
  return events;
}

for (const a of [ALICE, BOB, CAROL, DAVE, FRANK]) await submit({ type: 'Deposit', account: a, amount: units(1_000) });
await submit({ type: 'Split', account: BOB, conditionId: M1, amount: units(100) });
await submit(sell(oid(), BOB, Y1, 10, 0.4));
await submit(buy(oid(), ALICE, Y1, 10, 0.4));
await submit(sell(oid(), BOB, Y1, 10, 0.6));
await submit(buy(oid(), ALICE, Y1, 10, 0.6));
await submit(buy(oid(), CAROL, Y1, 5, 0.7));
await submit(sell(oid(), ALICE, Y1, 5, 0.7));
await submit({ type: 'Split', account: FRANK, conditionId: M1, amount: units(0.5) });
await submit({ type: 'Split', account: BOB, conditionId: M2, amount: units(10) });
await submit(sell(oid(), BOB, Y2, 5, 0.25));
await submit(buy(oid(), CAROL, Y2, 5, 0.25));
await submit({ type: 'Split', account: DAVE, conditionId: M3, amount: units(600) });
await submit(sell(oid(), DAVE, Y3, 525, 0.5));
await Promise.all(BUYERS.map((b) => host.submit({ type: 'Deposit', account: b, amount: units(100) })));
const bulk = await Promise.all(Array.from({ length: 105 }, (_, i) => host.submit(buy(oid(), BUYERS[i % 21] as string, Y3, 5, 0.5))));
if (bulk.flat().some((e) => e.type === 'OrderRejected')) throw new Error('a bulk order was refused');
await sleep(3);
await submit({ type: 'ResolveMarket', conditionId: M2, winningOutcome: 0 });
await svc.service.projector.waitFor(host.position);

const brief = (rows: unknown): string[] => (rows as ActivityTrade[]).map((r) => `${r.proxyWallet} ${r.side} ${r.asset} ${r.size}@${r.price}`);
const briefPositions = (rows: unknown): string[] => (rows as Position[]).map((p) => `${p.asset} ${p.size}`);
const briefHolders = (groups: unknown): string[] => (groups as HolderGroup[]).map((g) => `${g.token}: ${g.holders.map((h) => `${h.proxyWallet}=${h.amount}`).join(' ')}`);
const upper = (s: string): string => '0x' + s.slice(2).toUpperCase();

t.test('GET /trades', async (t) => {
  const only12 = `market=${M1},${M2}`;

  t.test('default: taker sides, newest first, 100 rows; every field equals the read model', async (t) => {
    const got = await get(base, '/activity/trades');
    t.equal(got.status, 200);
    t.match(got.contentType, /application\/json/);
    t.equal((got.body as unknown[]).length, 100, 'default limit 100 (109 taker rows exist)');
    t.strictSame(got.body, wire(await activityTrades(reads, {})), 'the body is what activityTrades returns, no field dropped');
    t.strictSame((await get(base, '/trades')).body, got.body, 'the same route at the root');
    t.equal(((await get(base, '/trades?limit=200')).body as unknown[]).length, 109);
  });

  t.test('the fills of M1 and M2, with metadata from the catalog', async (t) => {
    const got = await get(base, `/trades?${only12}`);
    t.strictSame(brief(got.body), [`${CAROL} BUY ${M2}:0 5@0.25`, `${ALICE} SELL ${M1}:0 5@0.7`, `${ALICE} BUY ${M1}:0 10@0.6`, `${ALICE} BUY ${M1}:0 10@0.4`]);
    const row = (got.body as ActivityTrade[])[1] as ActivityTrade;
    const meta = (await reads.metadata([M1])).get(M1);
    t.ok(meta !== undefined && meta.title !== '', 'the demo market has catalog metadata');
    t.strictSame(Object.keys(row).sort(), [
      'asset', 'bio', 'conditionId', 'eventSlug', 'icon', 'name', 'outcome', 'outcomeIndex', 'price', 'profileImage', 'profileImageOptimized',
      'proxyWallet', 'pseudonym', 'side', 'size', 'slug', 'timestamp', 'title', 'transactionHash', 'usdcSize',
    ], 'every field of spec 2.1');
    t.match(row, {
      proxyWallet: ALICE, side: 'SELL', asset: `${M1}:0`, conditionId: M1, size: 5, price: 0.7, usdcSize: 3.5, outcomeIndex: 0,
      title: meta?.title, slug: meta?.slug, eventSlug: meta?.eventSlug, outcome: meta?.outcomes[0], name: '', pseudonym: '', bio: '',
    });
    t.ok(Number.isInteger(row.timestamp) && Math.abs(row.timestamp - Date.now() / 1000) < 600, 'timestamp in Unix seconds');
    t.match(row.transactionHash, /^0x[0-9a-f]{64}$/);
  });

  t.test('takerOnly, user (any case), side (either case), market (any case)', async (t) => {
    t.equal(((await get(base, `/trades?${only12}&takerOnly=false`)).body as unknown[]).length, 8, 'both sides of the 4 fills');
    t.strictSame((await get(base, `/trades?user=${BOB}`)).body, [], 'bob never took');
    t.strictSame(brief((await get(base, `/trades?user=${upper(BOB)}&takerOnly=false`)).body), [`${BOB} SELL ${M2}:0 5@0.25`, `${BOB} SELL ${M1}:0 10@0.6`, `${BOB} SELL ${M1}:0 10@0.4`]);
    t.strictSame(brief((await get(base, `/trades?side=SELL&${only12}`)).body), [`${ALICE} SELL ${M1}:0 5@0.7`]);
    t.strictSame((await get(base, `/trades?side=sell&${only12}`)).body, (await get(base, `/trades?side=SELL&${only12}`)).body);
    t.strictSame(brief((await get(base, `/trades?market=${upper(M2)}`)).body), [`${CAROL} BUY ${M2}:0 5@0.25`]);
    t.strictSame(brief((await get(base, `/trades?market=${M2}&market=${M2}`)).body), [`${CAROL} BUY ${M2}:0 5@0.25`], 'repeated and duplicate ids');
    t.strictSame((await get(base, `/trades?market=0x${'00'.repeat(32)}`)).body, []);
  });

  t.test('filterType and filterAmount (inclusive)', async (t) => {
    t.strictSame(brief((await get(base, `/trades?${only12}&filterType=CASH&filterAmount=4`)).body), [`${ALICE} BUY ${M1}:0 10@0.6`, `${ALICE} BUY ${M1}:0 10@0.4`]);
    t.strictSame(brief((await get(base, `/trades?${only12}&filterType=cash&filterAmount=4.000001`)).body), [`${ALICE} BUY ${M1}:0 10@0.6`]);
    t.strictSame(brief((await get(base, `/trades?${only12}&filterType=TOKENS&filterAmount=10`)).body), [`${ALICE} BUY ${M1}:0 10@0.6`, `${ALICE} BUY ${M1}:0 10@0.4`]);
    t.equal(((await get(base, `/trades?${only12}&filterType=TOKENS&filterAmount=0`)).body as unknown[]).length, 4);
  });

  t.test('limit and offset', async (t) => {
    const all = (await get(base, '/trades?limit=200&takerOnly=false')).body as unknown[];
    t.equal(all.length, 200);
    t.strictSame((await get(base, '/trades?limit=3&offset=2&takerOnly=false')).body, all.slice(2, 5));
    t.strictSame((await get(base, '/trades?limit=0')).body, []);
    t.equal((await get(base, '/trades?limit=10000')).status, 200);
    t.strictSame((await get(base, '/trades?offset=10000')).body, []);
    t.match(await get(base, '/trades?limit='), { status: 400, body: { error: 'limit must be an integer' } }, 'an empty value is a value (upstream\'s document), not the default');
  });
});

t.test('GET /positions', async (t) => {
  t.test('every field, equal to the read model; the user in any case', async (t) => {
    const got = await get(base, `/activity/positions?user=${ALICE}`);
    t.equal(got.status, 200);
    t.strictSame(got.body, wire(await positions(reads, { user: ALICE })));
    t.strictSame((await get(base, `/positions?user=${upper(ALICE)}`)).body, got.body, 'root path, checksummed-case address');
    const [p] = got.body as Position[];
    const meta = (await reads.metadata([M1])).get(M1);
    t.strictSame(Object.keys(p ?? {}).sort(), [
      'asset', 'avgPrice', 'cashPnl', 'conditionId', 'curPrice', 'currentValue', 'endDate', 'eventId', 'eventSlug', 'icon', 'initialValue',
      'mergeable', 'negativeRisk', 'oppositeAsset', 'oppositeOutcome', 'outcome', 'outcomeIndex', 'percentPnl', 'percentRealizedPnl',
      'proxyWallet', 'realizedPnl', 'redeemable', 'size', 'slug', 'timestamp', 'title', 'totalBought',
    ], 'every field of spec 2.2, plus eventId');
    t.match(p, {
      proxyWallet: ALICE, asset: `${M1}:0`, conditionId: M1, size: 15, avgPrice: 0.5, initialValue: 7.5, totalBought: 20, realizedPnl: 1,
      curPrice: 0.7, currentValue: 10.5, cashPnl: 3, percentPnl: 40, redeemable: false, mergeable: false, negativeRisk: false,
      title: meta?.title, slug: meta?.slug, outcome: meta?.outcomes[0], oppositeOutcome: meta?.outcomes[1], oppositeAsset: `${M1}:1`, outcomeIndex: 0,
    });
  });

  t.test('sizeThreshold (default 1 share), redeemable, mergeable, market', async (t) => {
    t.strictSame((await get(base, `/positions?user=${FRANK}`)).body, [], '0.5 share is below the default threshold');
    t.strictSame(briefPositions((await get(base, `/positions?user=${FRANK}&sizeThreshold=0`)).body).sort(), [`${M1}:0 0.5`, `${M1}:1 0.5`]);
    t.strictSame(briefPositions((await get(base, `/positions?user=${FRANK}&sizeThreshold=0.5`)).body).length, 2, 'inclusive');
    t.strictSame(briefPositions((await get(base, `/positions?user=${CAROL}&redeemable=true`)).body), [`${M2}:0 5`]);
    t.strictSame(briefPositions((await get(base, `/positions?user=${CAROL}&redeemable=false`)).body).length, 2, 'false does not filter');
    t.strictSame(briefPositions((await get(base, `/positions?user=${BOB}&mergeable=true`)).body), [`${M1}:1 100`, `${M1}:0 80`]);
    t.strictSame(briefPositions((await get(base, `/positions?user=${BOB}&market=${upper(M2)}`)).body), [`${M2}:1 10`, `${M2}:0 5`]);
    const [won] = (await get(base, `/positions?user=${CAROL}&redeemable=true`)).body as Position[];
    t.match(won, { curPrice: 1, redeemable: true, mergeable: false });
  });

  t.test('sortBy and sortDirection (default TOKENS DESC), in either case', async (t) => {
    t.strictSame(briefPositions((await get(base, `/positions?user=${BOB}`)).body), [`${M1}:1 100`, `${M1}:0 80`, `${M2}:1 10`, `${M2}:0 5`]);
    t.strictSame(briefPositions((await get(base, `/positions?user=${BOB}&sortDirection=asc`)).body), [`${M2}:0 5`, `${M2}:1 10`, `${M1}:0 80`, `${M1}:1 100`]);
    for (const sortBy of ['CURRENT', 'INITIAL', 'TOKENS', 'CASHPNL', 'PERCENTPNL', 'TITLE', 'RESOLVING', 'PRICE', 'AVGPRICE']) {
      for (const sortDirection of ['ASC', 'DESC']) {
        const got = await get(base, `/positions?user=${BOB}&sortBy=${sortBy.toLowerCase()}&sortDirection=${sortDirection}`);
        t.strictSame(got.body, wire(await positions(reads, { user: BOB, sortBy, sortDirection })), `${sortBy} ${sortDirection}`);
      }
    }
  });

  t.test('limit, offset, title', async (t) => {
    const all = briefPositions((await get(base, `/positions?user=${BOB}`)).body);
    t.strictSame(briefPositions((await get(base, `/positions?user=${BOB}&limit=2&offset=1`)).body), all.slice(1, 3));
    t.strictSame((await get(base, `/positions?user=${BOB}&limit=0`)).body, []);
    t.strictSame((await get(base, `/positions?user=${BOB}&offset=10000`)).body, []);
    t.equal((await get(base, `/positions?user=${BOB}&limit=500`)).status, 200);
    const title = (await reads.metadata([M1])).get(M1)?.title ?? '';
    const part = encodeURIComponent(title.slice(1, 12).toUpperCase());
    t.strictSame(briefPositions((await get(base, `/positions?user=${BOB}&title=${part}`)).body), [`${M1}:1 100`, `${M1}:0 80`], 'case-insensitive substring');
    t.strictSame((await get(base, `/positions?user=${BOB}&title=${'x'.repeat(100)}`)).body, [], '100 characters are allowed');
  });
});

t.test('GET /holders', async (t) => {
  t.test('one group per outcome token, by amount; defaults minBalance 1 and limit 20', async (t) => {
    const got = await get(base, `/activity/holders?market=${M1}`);
    t.equal(got.status, 200);
    t.strictSame(got.body, wire(await holders(reads, { market: [M1] })));
    t.strictSame(briefHolders(got.body), [`${M1}:0: ${BOB}=80 ${ALICE}=15 ${CAROL}=5`, `${M1}:1: ${BOB}=100`], 'frank (0.5) is below the default minBalance');
    const h = (got.body as HolderGroup[])[0]?.holders[1];
    t.strictSame(h, { proxyWallet: ALICE, bio: '', asset: `${M1}:0`, pseudonym: '', amount: 15, displayUsernamePublic: false, outcomeIndex: 0, name: '', profileImage: '', profileImageOptimized: '' }, 'every field of spec 2.3');
    const m3 = (await get(base, `/holders?market=${M3}`)).body as HolderGroup[];
    t.equal(m3[0]?.holders.length, 20, 'default limit 20 (22 holders)');
    t.equal(((await get(base, `/holders?market=${M3}&limit=500`)).body as HolderGroup[])[0]?.holders.length, 22);
  });

  t.test('minBalance, limit, market order, unknown markets', async (t) => {
    t.strictSame(briefHolders((await get(base, `/holders?market=${M1}&minBalance=0.5`)).body), [`${M1}:0: ${BOB}=80 ${ALICE}=15 ${CAROL}=5 ${FRANK}=0.5`, `${M1}:1: ${BOB}=100 ${FRANK}=0.5`]);
    t.strictSame(briefHolders((await get(base, `/holders?market=${M1}&minBalance=15`)).body), [`${M1}:0: ${BOB}=80 ${ALICE}=15`, `${M1}:1: ${BOB}=100`]);
    t.strictSame(briefHolders((await get(base, `/holders?market=${M1}&limit=1`)).body), [`${M1}:0: ${BOB}=80`, `${M1}:1: ${BOB}=100`]);
    t.strictSame(briefHolders((await get(base, `/holders?market=${M1}&limit=0`)).body), [`${M1}:0: `, `${M1}:1: `]);
    const order = ((await get(base, `/holders?market=${upper(M2)},${M1}`)).body as HolderGroup[]).map((g) => g.token);
    t.strictSame(order, [`${M2}:0`, `${M2}:1`, `${M1}:0`, `${M1}:1`], 'request order, ids in any case');
    t.strictSame((await get(base, `/holders?market=0x${'00'.repeat(32)}`)).body, [], 'a market the engine does not know is left out');
  });
});

t.test('bounds and malformed input: 400 with {error}', async (t) => {
  const u = `user=${ALICE}`;
  const cases: [string, string][] = [
    ['/trades?limit=10001', 'limit must be <= 10000'],
    ['/trades?limit=-1', 'limit must be >= 0'],
    ['/trades?limit=1.5', 'limit must be an integer'],
    ['/trades?limit=abc', 'limit must be an integer'],
    ['/trades?offset=10001', 'offset must be <= 10000'],
    ['/trades?filterType=CASH', 'filterAmount is required'],
    ['/trades?filterAmount=3', 'filterType is required'],
    ['/trades?filterType=USD&filterAmount=1', 'filterType must be one of CASH, TOKENS, cash, tokens'],
    ['/trades?filterType=CASH&filterAmount=-1', 'filterAmount must be >= 0'],
    ['/trades?filterType=CASH&filterAmount=Infinity', 'filterAmount must be <= 9007199254'],
    ['/trades?side=HOLD', 'side must be one of BUY, SELL, buy, sell'],
    ['/trades?takerOnly=maybe', 'takerOnly must be a boolean'],
    ['/trades?user=alice', 'user is malformed'],
    ['/trades?market=0x1234', 'market is malformed'],
    ['/positions', 'user is required'],
    [`/positions?${u}&limit=501`, 'limit must be <= 500'],
    [`/positions?${u}&offset=10001`, 'offset must be <= 10000'],
    [`/positions?${u}&offset=-1`, 'offset must be >= 0'],
    [`/positions?${u}&title=${'x'.repeat(101)}`, 'title must be at most 100 characters'],
    [`/positions?${u}&sizeThreshold=-0.01`, 'sizeThreshold must be >= 0'],
    [`/positions?${u}&sizeThreshold=NaN`, 'sizeThreshold must be a number'],
    [`/positions?${u}&sortBy=NAME`, 'sortBy must be one of CURRENT, INITIAL, TOKENS, CASHPNL, PERCENTPNL, TITLE, RESOLVING, PRICE, AVGPRICE, current, initial, tokens, cashpnl, percentpnl, title, resolving, price, avgprice'],
    [`/positions?${u}&sortDirection=UP`, 'sortDirection must be one of ASC, DESC, asc, desc'],
    [`/positions?${u}&redeemable=yes`, 'redeemable must be a boolean'],
    [`/positions?${u}&mergeable=2`, 'mergeable must be a boolean'],
    ['/holders', 'market is required'],
    ['/holders?market=,', 'market is malformed'],
    ['/holders?market=', 'market is malformed'],
    [`/positions?${u}&sortBy=`, 'sortBy must be one of CURRENT, INITIAL, TOKENS, CASHPNL, PERCENTPNL, TITLE, RESOLVING, PRICE, AVGPRICE, current, initial, tokens, cashpnl, percentpnl, title, resolving, price, avgprice'],
    [`/positions?${u}&sortDirection=`, 'sortDirection must be one of ASC, DESC, asc, desc'],
    ['/trades?user=', 'user is malformed'],
    [`/holders?market=${M1}&limit=501`, 'limit must be <= 500'],
    [`/holders?market=${M1}&minBalance=-1`, 'minBalance must be >= 0'],
    [`/holders?market=${Array.from({ length: 101 }, (_, i) => '0x' + i.toString(16).padStart(64, '0')).join(',')}`, 'market must have at most 100 items'],
  ];
  for (const [path, error] of cases) {
    const got = path.length > 4096 ? await getFresh(base, path) : await get(base, path);
    t.equal(got.status, 400, path.slice(0, 120));
    t.strictSame(got.body, { error }, path.slice(0, 120));
  }
});

t.test('1,001 markets: over the header edge head cap (431); the route bound with uWS on the port (400)', async (t) => {
  const path = `/trades?market=${Array.from({ length: 1001 }, (_, i) => '0x' + i.toString(16).padStart(64, '0')).join(',')}`;
  const capped = await getFresh(base, path);
  t.equal(capped.status, 431, 'a 67 KB head is answered by the edge, not reset');
  t.strictSame(capped.body, { error: 'request header too large' });
  const direct = await startTestService({ headerEdge: false });
  t.teardown(direct.close);
  const bounded = await getFresh(direct.baseUrl, path);
  t.equal(bounded.status, 400);
  t.strictSame(bounded.body, { error: 'market must have at most 300 items' });
});

t.test('unknown parameters: 400 unknown_field (spec §7)', async (t) => {
  for (const [path, name] of [
    ['/activity/trades?bogus=1', 'bogus'],
    [`/positions?user=${ALICE}&eventSlug=1`, 'eventSlug'],
    [`/holders?market=${M1}&Limit=3`, 'Limit'],
  ] as const) {
    const got = await get(base, path);
    t.equal(got.status, 400, path);
    t.strictSame(got.body, { error: `unknown_field: ${name}` }, path);
  }
  t.equal((await get(base, '/catalog/markets?bogus=1')).status, 200, 'the catalog surface ignores unknown parameters');
});

t.test('a ClickHouse failure is 500 internal_error (spec §7), and reads recover with the tables', async (t) => {
  const db = svc.service.config.clickhouseDatabase;
  const ch = svc.service.ch;
  await host.idle();
  await svc.service.projector.waitFor(host.position);
  await ch.command({ query: `RENAME TABLE ${db}.fill_sides TO ${db}.fill_sides_gone, ${db}.positions TO ${db}.positions_gone` });
  try {
    const got = await get(base, '/trades');
    t.equal(got.status, 500);
    t.strictSame(got.body, { error: 'internal_error: unexpected database failure' }, 'no detail leaks');
    // Positions and holders come from the in-memory read model (projections/live/), not from these tables.
    for (const path of [`/positions?user=${ALICE}`, `/holders?market=${M1}`]) t.equal((await get(base, path)).status, 200, `${path} is served from memory`);
  } finally {
    await ch.command({ query: `RENAME TABLE ${db}.fill_sides_gone TO ${db}.fill_sides, ${db}.positions_gone TO ${db}.positions` });
  }
  t.equal((await get(base, '/trades')).status, 200);
});

t.test('a caller outside the allowlist: 403 unauthorized: ip_not_allowlisted (spec §7)', async (t) => {
  const fenced = await startTestService({ activityIpAllowlist: ['10.0.0.0/8'] });
  t.teardown(() => fenced.close());
  for (const path of ['/activity/trades', '/trades', `/positions?user=${ALICE}`, `/holders?market=${M1}`, '/trades?bogus=1', '/positions']) {
    const got = await get(fenced.baseUrl, path);
    t.equal(got.status, 403, path);
    t.strictSame(got.body, { error: 'unauthorized: ip_not_allowlisted' }, path);
  }
  t.equal((await get(fenced.baseUrl, '/catalog/markets?limit=1')).status, 200, 'only the activity surface is fenced');
});
