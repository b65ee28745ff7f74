// A third-party Python client, polymarket-apis (PyPI, pinned in scripts/python/requirements-3.12.txt,
// unchanged), against the running service, as a new user tries it: every call of its PolymarketDataClient and
// PolymarketGammaClient that this service has a route for, over a session made by the real engine (trades of
// every fill kind, splits, merges, a resolution, redemptions: test/support/dataApiSession.ts). The client
// validates each answer with its own pydantic models, so a call succeeds only when our shape is upstream's.
// The script (test/support/polymarketApisCalls.py) lists the calls it leaves out and why; this test checks
// that every other call succeeds and that a few of the values it got are the service's own JSON.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { get } from '../support/httpGet.js';
import { pythonTools } from '../support/pythonTools.js';
import { ALICE, BOB, CODE, playDataApiSession } from '../support/dataApiSession.js';
import { startTestService } from '../support/serviceFixture.js';

type Row = Record<string, unknown>;
interface Outcome {
  ok: boolean;
  result?: unknown;
  error?: string;
}

const SCRIPT = new URL('../support/polymarketApisCalls.py', import.meta.url).pathname;

const svc = await startTestService({ leaderboardMaxAgeMs: 0 });
t.teardown(() => svc.close());
const base = svc.baseUrl;
const { M1, M2, EVENT1 } = await playDataApiSession(svc);

const json = async (path: string): Promise<unknown> => {
  const got = await get(base, path);
  if (got.status !== 200) throw new Error(`GET ${path}: ${got.status} ${JSON.stringify(got.body)}`);
  return got.body;
};
const [market] = (await json(`/catalog/markets?condition_ids=${M1}`)) as Row[];
const event = (await json(`/catalog/events/${EVENT1}`)) as Row;
const inputs = {
  user: ALICE,
  other: BOB,
  market: M1,
  resolved: M2,
  event: EVENT1,
  event_slug: event.slug,
  market_id: market?.id,
  market_slug: market?.slug,
  query: String(market?.question ?? '').split(' ')[0],
};

const { stdout } = await promisify(execFile)(pythonTools('3.12'), [SCRIPT, base, JSON.stringify(inputs)], { encoding: 'utf8', timeout: 180_000, maxBuffer: 64 << 20 });
const calls = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, Outcome>;
const result = (name: string): unknown => calls[name]?.result;
const rows = (name: string): Row[] => (result(name) ?? []) as Row[];

t.test('every call succeeds: pydantic accepts each answer', async (t) => {
  t.ok(Object.keys(calls).length >= 40, `the script ran its calls (${Object.keys(calls).length})`);
  for (const [name, outcome] of Object.entries(calls)) t.ok(outcome.ok, name, { error: outcome.error });
});

t.test('the Data API values the client got are the service’s own', async (t) => {
  const positions = (await json(`/activity/positions?user=${ALICE}`)) as Row[];
  t.strictSame(rows('data.get_positions').map((r) => [r.asset, r.conditionId, r.size, r.currentValue, r.cashPnl]), positions.map((r) => [r.asset, r.conditionId, r.size, r.currentValue, r.cashPnl]), 'positions');
  t.ok(positions.length > 0, 'alice holds positions');

  const [value] = (await json(`/activity/value?user=${ALICE}`)) as Row[];
  t.equal((result('data.get_value') as Row).value, value?.value, 'value');
  t.equal(result('data.get_total_markets_traded'), ((await json(`/activity/traded?user=${ALICE}`)) as Row).traded, 'markets traded');

  const bobActivity = (await json(`/activity/activity?user=${BOB}`)) as Row[];
  t.strictSame(rows('data.get_activity(other)').map((r) => [r.type, r.transactionHash, r.size, r.usdcSize]), bobActivity.map((r) => [r.type, r.transactionHash, r.size, r.usdcSize]), "bob's timeline");
  t.strictSame([...new Set(bobActivity.map((r) => r.type))].sort(), ['MERGE', 'REDEEM', 'SPLIT', 'TRADE'], 'with splits, merges and redemptions');
  t.strictSame(rows('data.get_activity(types, since, CASH ASC)').map((r) => r.type).sort(), ['MERGE', 'REDEEM', 'SPLIT', 'SPLIT'], 'filtered by type');

  const closed = (await json(`/activity/closed-positions?user=${ALICE}`)) as Row[];
  t.strictSame(rows('data.get_closed_positions').map((r) => [r.asset, r.realizedPnl]), closed.map((r) => [r.asset, r.realizedPnl]), 'closed positions');
  t.ok(closed.length > 0, 'alice closed a position');

  const oi = (await json(`/activity/oi?market=${M1},${M2}`)) as Row[];
  t.strictSame(rows('data.get_open_interest(markets)'), oi, 'open interest');
  const [volume] = (await json(`/activity/live-volume?id=${EVENT1}`)) as Row[];
  t.equal((result('data.get_live_volume') as Row).total, volume?.total, 'event volume');

  const holders = (await json(`/activity/holders?market=${M1}`)) as { token: string; holders: Row[] }[];
  t.strictSame(rows('data.holders').map((g) => [g.token, (g.holders as Row[]).map((h) => [h.proxyWallet, h.amount])]), holders.map((g) => [g.token, g.holders.map((h) => [h.proxyWallet, h.amount])]), 'holders');

  const board = (await json('/activity/v1/leaderboard?timePeriod=ALL')) as Row[];
  t.strictSame(rows('data.get_leaderboard_rankings').map((r) => [r.rank, r.proxyWallet, r.pnl]), board.map((r) => [Number(r.rank), r.proxyWallet, r.pnl]), 'leaderboard (rank as a number)');
  const [mine] = rows('data.get_leaderboard_rankings(user, VOL)');
  t.equal(mine?.proxyWallet, ALICE, "alice's own entry");

  const builders = rows('data.get_builder_leaderboard_aggregated');
  t.equal(builders[0]?.builder, CODE, 'the builder code on the session’s orders');

  const csvs = result('data.get_accounting_snapshot_csvs') as { positions_csv: string; equity_csv: string };
  t.match(csvs.positions_csv, /^conditionId,asset,size,curPrice,valuationTime\r?\n/, 'positions.csv');
  t.match(csvs.equity_csv, /^cashBalance,positionsValue,equity,valuationTime\r?\n/, 'equity.csv');
});

t.test('the Gamma values the client got are the catalog’s own', async (t) => {
  t.equal((result('gamma.get_market_by_slug') as Row).id, market?.id, 'market by slug');
  t.equal((result('gamma.get_market') as Row).conditionId, M1, 'market by id');
  t.strictSame(rows('gamma.get_markets(condition_ids)').map((m) => m.conditionId).sort(), [M1, M2].sort(), 'markets by condition id');
  t.strictSame(rows('gamma.get_markets(ids)').map((m) => m.id), [market?.id], 'markets by id');
  t.strictSame(rows('gamma.get_markets(slugs)').map((m) => m.id), [market?.id], 'markets by slug');
  t.strictSame(rows('gamma.get_events(ids)').map((e) => e.id), [Number(EVENT1)], 'events by id');
  t.equal((result('gamma.get_event_by_id') as Row).slug, event.slug, 'event by id');
  t.equal((result('gamma.get_event_by_slug') as Row).id, Number(EVENT1), 'event by slug');
  const events = (await json('/catalog/events?limit=500')) as Row[];
  t.equal(rows('gamma.get_all_events').length, events.length, 'all events');
  const tags = (await json('/catalog/tags?limit=100')) as Row[];
  t.equal(rows('gamma.get_tags').length, tags.length, 'tags');
  t.ok(((result('gamma.search') as { events?: Row[] }).events ?? []).length > 0, 'search finds events');
});
