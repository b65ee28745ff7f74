// The demo catalog shipped in the repository: the committed JSON is what the builder makes, it has the
// upstream's shape and the content the issue asks for (a few dozen markets across events and series, a
// neg-risk event, resolved markets, deterministic ids), and it loads once.

import t from 'tap';
import { readFileSync } from 'node:fs';
import { queryRows } from '../../storage/clickhouse.js';
import { tableOf } from '../../catalog/catalogDb.js';
import { buildDemoCatalog, renderDemoCatalog } from '../../catalog/demo/buildDemoCatalog.js';
import { demoCatalogPath, loadDemoCatalog } from '../../catalog/demo/loadDemoCatalog.js';
import { engineTermsOf } from '../../catalog/handoff/engineTerms.js';
import { stringArrayOf, type GammaObject } from '../../catalog/upstream/gammaValues.js';
import { caller } from './support/handlerCalls.js';
import { freshCatalog, liveBody } from './support/testCatalog.js';

const demo = buildDemoCatalog();

t.test('demoCatalog.json is the builder\'s output, and the builder is deterministic', async (t) => {
  t.equal(readFileSync(demoCatalogPath(), 'utf8'), renderDemoCatalog(), 'regenerate with: npx tsx catalog/demo/buildDemoCatalog.ts --write');
  t.same(buildDemoCatalog(), demo);
});

t.test('content: markets across events and series, a neg-risk event, resolved markets', async (t) => {
  t.ok(demo.markets.length >= 36 && demo.markets.length <= 60, `${demo.markets.length} markets`);
  t.equal(demo.events.length, 12);
  t.equal(demo.series.length, 3);
  const inSeries = demo.events.filter((e) => Array.isArray(e.series));
  t.equal(inSeries.length, 7, 'events in series');
  const election = demo.events.find((e) => e.slug === 'presidential-election-winner-2028') as GammaObject;
  t.equal(election.negRisk, true);
  const candidates = demo.markets.filter((m) => (m.events as GammaObject[])[0]?.id === election.id);
  t.equal(candidates.length, 6, 'one market per candidate');
  for (const m of candidates) {
    t.equal(m.negRisk, true);
    t.equal(m.negRiskMarketID, election.negRiskMarketID);
    t.same(stringArrayOf(m.outcomes), ['Yes', 'No'], 'each candidate is a binary market');
    t.type(m.groupItemTitle, 'string');
  }
  const resolved = demo.markets.filter((m) => m.closed === true);
  t.equal(resolved.length, 10);
  for (const m of resolved) t.ok(['["1", "0"]', '["0", "1"]'].includes(m.outcomePrices as string), `${m.slug as string} has a winner`);
});

t.test('neg-risk events: each market is question i of its event (questionID = the event id with i in the last byte)', async (t) => {
  const negRisk = demo.events.filter((e) => e.negRisk === true);
  t.equal(negRisk.length, 5, 'the Fed decisions, the election, the Oscars and the AI race');
  for (const event of negRisk) {
    const markets = demo.markets.filter((m) => (m.events as GammaObject[])[0]?.id === event.id);
    markets.forEach((m, i) => {
      const terms = engineTermsOf(m);
      t.same(terms.ok ? terms.terms.negRiskEvent : undefined, { negRiskMarketId: event.negRiskMarketID, questionIndex: i }, `${m.slug as string} is question ${i}`);
    });
  }
  const solo = demo.markets.find((m) => m.negRisk === false) as GammaObject;
  const terms = engineTermsOf(solo);
  t.equal(terms.ok ? terms.terms.negRiskEvent : 'not listed', undefined, 'a market outside neg-risk events is on its own');
});

t.test('identifiers: condition ids 0x + 64 hex, token ids decimal uint256, all distinct', async (t) => {
  const conditions = new Set<string>();
  const tokens = new Set<string>();
  for (const m of demo.markets) {
    t.match(m.conditionId, /^0x[0-9a-f]{64}$/);
    conditions.add(m.conditionId as string);
    for (const token of stringArrayOf(m.clobTokenIds) ?? []) {
      t.match(token, /^\d{1,78}$/);
      t.ok(BigInt(token) < 2n ** 256n);
      tokens.add(token);
    }
    t.ok(engineTermsOf(m).ok, `${m.slug as string} can trade on the engine`);
  }
  t.equal(conditions.size, demo.markets.length);
  t.equal(tokens.size, demo.markets.length * 2);
});

t.test('the upstream shape: every field of a live market capture that the demo needs', async (t) => {
  const live = liveBody('Market');
  const open = demo.markets.find((m) => m.negRisk === true && m.closed === false) as GammaObject;
  const missing = Object.keys(live).filter((k) => !(k in open));
  const optional = ['clobRewards', 'comboStatus', 'customLiveness', 'volume24hrClob', 'volume1wkClob', 'volume1moClob', 'volume1yrClob', 'ready', 'funded', 'cyom', 'pagerDutyNotificationEnabled', 'approved', 'oneWeekPriceChange', 'oneMonthPriceChange', 'automaticallyActive', 'clearBookOnStart', 'showGmpSeries', 'showGmpOutcome', 'manualActivation', 'negRiskOther', 'pendingDeployment', 'deploying', 'deployingTimestamp', 'rfqEnabled', 'holdingRewardsEnabled', 'feeType', 'feeSchedule', 'version'];
  t.same(missing.filter((k) => !optional.includes(k)), [], 'the catalog fields of the real shape are all there');
  for (const key of Object.keys(open)) t.equal(typeof open[key], typeof live[key] === 'undefined' ? typeof open[key] : typeof live[key], `${key} has the live type`);
});

t.test('loadDemoCatalog loads once, idempotently', async (t) => {
  const catalog = await freshCatalog();
  const first = await loadDemoCatalog(catalog.client, catalog.db);
  t.same(first, { loaded: true, markets: demo.markets.length, events: 12, series: 3, tags: 14, skipped: 0 });
  const count = async () => Number((await queryRows<{ n: string }>(catalog.client, `SELECT count() AS n FROM ${tableOf(catalog, 'markets')} FINAL`))[0]?.n);
  t.equal(await count(), demo.markets.length);
  t.same(await loadDemoCatalog(catalog.client, catalog.db), { loaded: false }, 'a second start leaves it alone');
  t.equal(await count(), demo.markets.length);
  const call = caller(catalog);
  t.equal(((await call('/markets', 'creator=demo&limit=100')).body as unknown[]).length, demo.markets.length);
  t.equal(((await call('/events/{id}', '', { id: '90003' })).body as GammaObject).title, 'Presidential Election Winner 2028');
});
