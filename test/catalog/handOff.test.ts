// The hand-off from the catalog to the engine, against a real EngineHost over a real Journal: listing,
// parameter updates, resolution, pausing, idempotence, conflicts and refusals, and the log as the route
// (a replay of the journal rebuilds the same markets).

import t, { type Test } from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ENGINE_CONFIG, Engine } from '../../engine/index.js';
import { Journal } from '../../log/journal/journal.js';
import type { LogRecord } from '../../log/eventLog.js';
import { EngineHost } from '../../host/engineHost.js';
import { recover } from '../../host/recovery.js';
import { buildDemoCatalog, demoConditionId } from '../../catalog/demo/buildDemoCatalog.js';
import { handOffMarkets } from '../../catalog/handoff/handOffMarkets.js';
import { handOffCatalog } from '../../catalog/handoff/catalogHandOff.js';
import { importParsedDump } from '../../catalog/sync/dumpImport.js';
import type { GammaObject } from '../../catalog/upstream/gammaValues.js';
import { freshCatalog, liveBody } from './support/testCatalog.js';

let clock = 1_800_000_000_000;

async function engineOverJournal(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-handoff-'));
  const journal = await Journal.open({ dir: join(dir, 'journal'), segmentBytes: 1 << 20 });
  t.teardown(() => journal.close());
  const engine = new Engine();
  const host = new EngineHost(engine, journal, { maxBatch: 1000, clock: () => (clock += 1) });
  return { journal, engine, host };
}

async function records(journal: Journal): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for await (const r of journal.read(1)) out.push(r);
  return out;
}

const demo = buildDemoCatalog();
const bySlug = (slug: string): GammaObject => structuredClone(demo.markets.find((m) => m.slug === slug) as GammaObject);

t.test('markets listed before neg-risk events existed join their events', async (t) => {
  const { engine, host } = await engineOverJournal(t);
  // As an older build listed them: negRisk, on their own.
  const fed = demo.markets.filter((m) => String(m.slug).endsWith('december-2026'));
  for (const m of fed) {
    const tokens = JSON.parse(m.clobTokenIds as string) as [string, string];
    await host.submit({ type: 'ListMarket', conditionId: String(m.conditionId), tokenIds: tokens, tickSize: 10_000, minSize: 5_000_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: true });
  }
  t.equal(engine.negRiskEvent(String(fed[0]?.negRiskMarketID)), undefined, 'no event yet');
  const report = await handOffMarkets(host, engine, fed);
  t.match(report, { listed: 0, updated: 4, rejected: [] });
  t.same(engine.negRiskEvent(String(fed[0]?.negRiskMarketID))?.questions.map((m) => m.conditionId), fed.map((m) => m.conditionId), 'the four Fed questions, in index order');
  t.match(await handOffMarkets(host, engine, fed), { updated: 0, unchanged: 4 });
});

t.test('the demo catalog lists its open markets, once', async (t) => {
  const { journal, engine, host } = await engineOverJournal(t);
  const report = await handOffMarkets(host, engine, demo.markets);
  t.same(report, { listed: 30, updated: 0, resolved: 0, paused: 0, unchanged: 0, skipped: { 'closed before listing': 10 }, conflicts: [], rejected: [] });
  t.equal(journal.lastPos, 30, 'one log record per listing');
  t.ok((await records(journal)).every((r) => r.command.type === 'ListMarket' && r.events[0]?.type === 'MarketListed'));

  const btc = engine.market(demoConditionId('bitcoin-above-120k-on-december-31-2026'));
  t.same(btc?.params, { tickSize: 1_000, minSize: 5_000_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  const starship = engine.market(demoConditionId('starship-reaches-orbit-in-2026'));
  t.same(starship?.params, { tickSize: 10_000, minSize: 15_000_000, makerFeeBps: 0, takerFeeBps: 100, negRisk: false });
  const candidate = bySlug('presidential-election-winner-2028-avery-brooks');
  const listed = engine.market(candidate.conditionId as string);
  t.same(listed?.tokenIds, JSON.parse(candidate.clobTokenIds as string), 'outcome 0 and 1 tokens in upstream order');
  t.equal(listed?.params.negRisk, true);
  t.equal(engine.market(demoConditionId('fed-no-change-october-2026')), undefined, 'a market resolved before listing is not listed');

  const election = engine.negRiskEvent(String(candidate.negRiskMarketID));
  t.same(election?.questions.map((m) => m.questionIndex), [0, 1, 2, 3, 4, 5], 'the election is a neg-risk event of six questions');
  t.equal(listed?.negRiskMarketId, candidate.negRiskMarketID, 'each candidate a question of it');
  t.equal(btc?.negRiskMarketId, null, 'a market outside neg-risk events is on its own');

  const again = await handOffMarkets(host, engine, demo.markets);
  t.match(again, { listed: 0, updated: 0, resolved: 0, paused: 0, unchanged: 30 });
  t.equal(journal.lastPos, 30, 'nothing more is written');
});

t.test('parameter changes, resolution and closing follow the upstream', async (t) => {
  const { journal, engine, host } = await engineOverJournal(t);
  const rain = bySlug('will-it-rain-in-london-on-december-24-2026');
  const fed = bySlug('fed-no-change-december-2026');
  const ai = bySlug('best-ai-model-end-of-2026-google');
  await handOffMarkets(host, engine, [rain, fed, ai]);

  const changed = { ...rain, orderPriceMinTickSize: 0.001, orderMinSize: 10, takerBaseFee: 50 };
  t.match(await handOffMarkets(host, engine, [changed]), { updated: 1 });
  const update = (await records(journal)).at(-1);
  t.same(update?.command, { type: 'UpdateMarket', conditionId: rain.conditionId, tickSize: 1_000, minSize: 10_000_000, takerFeeBps: 50, time: update?.command.time }, 'only the changed parameters');
  t.same(engine.market(rain.conditionId as string)?.params, { tickSize: 1_000, minSize: 10_000_000, makerFeeBps: 0, takerFeeBps: 50, negRisk: false });

  const resolvedNo = { ...fed, closed: true, outcomePrices: '["0", "1"]' };
  t.match(await handOffMarkets(host, engine, [resolvedNo]), { resolved: 1 });
  t.equal(engine.market(fed.conditionId as string)?.status, 'resolved');
  t.equal(engine.market(fed.conditionId as string)?.winningOutcome, 1);
  t.match(await handOffMarkets(host, engine, [resolvedNo, { ...resolvedNo, orderMinSize: 50 }]), { resolved: 0, updated: 0, unchanged: 1 }, 'a resolved market is left alone');

  const closedUndecided = { ...ai, closed: true, outcomePrices: '["0.5", "0.5"]' };
  t.match(await handOffMarkets(host, engine, [closedUndecided]), { paused: 1 });
  t.equal(engine.market(ai.conditionId as string)?.status, 'paused');
  t.match(await handOffMarkets(host, engine, [closedUndecided]), { paused: 0, unchanged: 1 });
  t.match(await handOffMarkets(host, engine, [{ ...closedUndecided, outcomePrices: '["1", "0"]' }]), { resolved: 1 }, 'a paused market resolves');
  t.equal(engine.market(ai.conditionId as string)?.winningOutcome, 0);
});

t.test('markets that cannot trade here, conflicts and refusals are reported', async (t) => {
  const { engine, host } = await engineOverJournal(t);
  const rain = bySlug('will-it-rain-in-london-on-december-24-2026');
  await handOffMarkets(host, engine, [rain]);
  const tokens = JSON.parse(rain.clobTokenIds as string) as string[];
  const report = await handOffMarkets(host, engine, [
    { ...rain, clobTokenIds: '["1", "2"]' },
    { ...rain, conditionId: '0x' + 'ab'.repeat(32), slug: 'copy' },
    { ...rain, conditionId: '0x' + 'cd'.repeat(32), clobTokenIds: `["${tokens[0] as string}", "99"]` },
    { ...rain, conditionId: '0x' + 'ef'.repeat(32), enableOrderBook: false },
    { ...rain, conditionId: '0x' + '12'.repeat(32), clobTokenIds: '["1", "2", "3"]' },
    { ...rain, conditionId: '0x' + '34'.repeat(32), orderPriceMinTickSize: 0.3 },
    { ...rain, conditionId: 'not-hex' },
    'not an object',
  ]);
  t.same(report.conflicts, [{ conditionId: rain.conditionId, reason: 'the engine lists this condition id with other token ids' }]);
  t.same(report.rejected, [
    { conditionId: '0x' + 'ab'.repeat(32), command: 'ListMarket', message: report.rejected[0]?.message },
    { conditionId: '0x' + 'cd'.repeat(32), command: 'ListMarket', message: report.rejected[1]?.message },
  ]);
  t.match(report.rejected[0]?.message, /token/i, 'the engine refuses a token id already in use');
  t.same(report.skipped, { 'no order book': 2, 'not a binary market with two token ids': 1, 'tick size 0.3 is not supported': 1, 'no condition id': 1 });
});

t.test('the live captures: an open neg-risk market lists with its real parameters; a resolved one resolves', async (t) => {
  const { engine, host } = await engineOverJournal(t);
  const fed = liveBody('Market');
  t.match(await handOffMarkets(host, engine, [fed]), { listed: 1 });
  t.same(engine.market(fed.conditionId as string)?.params, { tickSize: 10_000, minSize: 5_000_000, makerFeeBps: 1000, takerFeeBps: 1000, negRisk: true });
  const sports = liveBody('MarketClosedSports');
  t.match(await handOffMarkets(host, engine, [sports]), { listed: 0, skipped: { 'closed before listing': 1 } });
  await handOffMarkets(host, engine, [{ ...sports, closed: false, outcomePrices: '["0.5", "0.5"]' }]);
  t.equal(engine.market(sports.conditionId as string)?.params.tickSize, 1_000);
  t.match(await handOffMarkets(host, engine, [sports]), { resolved: 1 });
  t.equal(engine.market(sports.conditionId as string)?.winningOutcome, 0, '["1", "0"]: outcome 0 (Over) won');
});

t.test('from the catalog tables, through the log: a replay of the journal has the same markets', async (t) => {
  const { journal, engine, host } = await engineOverJournal(t);
  const catalog = await freshCatalog();
  await importParsedDump(catalog, demo);
  const report = await handOffCatalog(catalog, host, engine);
  t.match(report, { listed: 30, skipped: { 'closed before listing': 10 } });
  t.match(await handOffCatalog(catalog, host, engine), { listed: 0, unchanged: 30 });
  const replayed = await recover(journal, undefined, { engineConfig: DEFAULT_ENGINE_CONFIG });
  t.equal(replayed.engine.stateHash(), engine.stateHash(), 'the engine state is what the log says');
  t.equal([...replayed.engine.markets()].length, 30);
});
