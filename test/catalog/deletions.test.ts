// Deletions upstream, against the local fake upstream over HTTP: a reconciliation tombstones what the
// upstream no longer lists (markets, an event with what only it listed), every endpoint then answers as if
// the object never existed; reappearing restores; a failure mid-pass deletes nothing; the mass-deletion
// guard; a shifting list does not make the pass skip objects; tombstones outlive a restart; the engine
// pauses a deleted order-book market through the log and resumes it when it comes back, never resolving it;
// the demo catalog is never judged by an upstream's reconciliation.

import t, { type Test } from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../engine/index.js';
import { Journal } from '../../log/journal/journal.js';
import { EngineHost } from '../../host/engineHost.js';
import { prepareCatalog, type CatalogDb } from '../../catalog/catalogDb.js';
import { startCatalogService, type CatalogConfig } from '../../catalog/catalogService.js';
import { handOffDeletions } from '../../catalog/handoff/deletionHandOff.js';
import { handOffMarkets } from '../../catalog/handoff/handOffMarkets.js';
import { deleteObjects, tombstonesOf } from '../../catalog/store/tombstones.js';
import { upsertCatalog } from '../../catalog/store/upsertCatalog.js';
import { reconciliations, type ReconcileReport } from '../../catalog/sync/reconcile.js';
import { CatalogSyncMetrics } from '../../catalog/sync/syncMetrics.js';
import { terminalProgress } from '../../catalog/sync/syncProgress.js';
import { runCatalogSync, siteOfUpstream, type SyncOptions } from '../../catalog/sync/syncWorker.js';
import { FakeGamma, type FakeRequest } from '../../catalog/upstream/fakeGammaServer.js';
import type { GammaObject } from '../../catalog/upstream/gammaValues.js';
import { ServiceMetrics } from '../../server/metrics.js';
import { caller, ids, listOf } from './support/handlerCalls.js';
import { freshCatalog, liveBody } from './support/testCatalog.js';
import { liveMarket, liveMarkets } from './support/liveShaped.js';

const HOUR = 3_600_000;

interface Setup {
  catalog: CatalogDb;
  fake: FakeGamma;
  baseUrl: string;
  metrics: CatalogSyncMetrics;
  clock: { now: number };
  sync: (extra?: Partial<SyncOptions>) => ReturnType<typeof runCatalogSync>;
}

/** The sync tests' upstream: 12 copies of the live market (copy 3 asks about zebras), a closed sports market, the election event, a series, two tags. */
async function setup(t: Test, markets: GammaObject[] = liveMarkets(12).map((m) => (m.id === '3000003' ? { ...m, question: 'Will a zebra cross the road?' } : m))): Promise<Setup> {
  const catalog = await freshCatalog();
  const election = liveBody('EventElection');
  const fake = new FakeGamma({ markets: [...markets, liveBody('MarketClosedSports')], events: [election], series: [liveBody('SeriesSummary')], tags: election.tags as GammaObject[] });
  const baseUrl = await fake.listen();
  t.teardown(() => fake.close());
  const metrics = new CatalogSyncMetrics();
  const clock = { now: Date.UTC(2026, 10, 1) };
  const sync = (extra: Partial<SyncOptions> = {}) =>
    runCatalogSync({
      catalog,
      baseUrl,
      pageSize: 5,
      overlap: 1,
      metrics,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
      sleep: async () => {},
      now: () => clock.now,
      reconcile: { intervalSec: 3600, maxDeleteFraction: 0.5 },
      ...extra,
    });
  return { catalog, fake, baseUrl, metrics, clock, sync };
}

const notFound = (error: 'id not found' | 'slug not found') => ({ status: 404, body: { type: 'not found error', error } });
const reconcileRequests = (fake: FakeGamma, resource = 'markets'): FakeRequest[] => fake.requests.filter((r) => r.resource === resource && r.params.get('ascending') === 'true');

t.test('a market removed upstream disappears from every endpoint after a reconciliation', async (t) => {
  const { catalog, fake, baseUrl, metrics, clock, sync } = await setup(t);
  const call = caller(catalog);
  const first = await sync();
  t.equal(first.reconciliation, undefined, 'the first run records a baseline instead of reconciling');
  t.match(await reconciliations(catalog, baseUrl), [{ outcome: 'baseline' }]);
  const zebra = (await call('/markets/{id}', '', { id: '3000003' })).body as GammaObject;
  t.equal(zebra.question, 'Will a zebra cross the road?');
  t.equal(((await call('/public-search', 'q=zebra')).body as { events: unknown[] }).events.length, 1, 'found through its market');

  t.ok(fake.remove('markets', '3000003'));
  clock.now += HOUR / 2;
  const early = await sync();
  t.equal(early.reconciliation, undefined, 'not due before the interval');
  t.equal((await call('/markets/{id}', '', { id: '3000003' })).status, 200, 'an incremental run cannot notice a deletion');

  clock.now += HOUR;
  const report = await sync();
  t.match(report.reconciliation, { outcome: 'applied', deleted: { markets: 1, events: 0, series: 0, tags: 0 }, missing: { markets: 1 }, seen: { markets: 14, events: 3, series: 2, tags: 2 } });
  t.same(report.deleted, { markets: 1, events: 0, series: 0, tags: 0 }, 'the run report counts the deletions');
  t.match(metrics.snapshot(), { catalog_sync_deleted_total: { markets: 1 }, catalog_sync_reconciliations_total: { applied: 1, refused: 0, failed: 0 } });
  t.ok(metrics.snapshot().catalog_sync_last_reconciliation_seconds > 0);

  t.same(await call('/markets/{id}', '', { id: '3000003' }), notFound('id not found'));
  t.same(await call('/markets/{id}', '', { id: zebra.conditionId as string }), notFound('id not found'), 'by condition id too');
  t.same(await call('/markets/slug/{slug}', '', { slug: 'live-copy-3' }), notFound('slug not found'));
  const all = await listOf(call('/markets', 'limit=100'));
  t.equal(all.length, 14);
  t.notOk(ids(all).includes('3000003'));
  t.same(await listOf(call('/markets', 'slug=live-copy-3')), []);
  t.same(await listOf(call('/markets', `condition_id=${zebra.conditionId as string}`)), []);
  const fed = (await call('/events/{id}', '', { id: '606422' })).body as GammaObject;
  t.equal((fed.markets as unknown[]).length, 11, "the event's markets leave it out");
  t.same(((await call('/public-search', 'q=zebra')).body as { events: unknown[] }).events, [], 'search no longer finds it');
  t.equal((await listOf(call('/markets', `creator=${siteOfUpstream(baseUrl)}&limit=100`))).length, 14);

  const [tombstone] = await tombstonesOf(catalog, { market: ['3000003'] }, false);
  t.match(tombstone, { kind: 'market', id: '3000003', site: siteOfUpstream(baseUrl), deleted: true, restoredAt: null, engine: 'pause' });
  t.match(tombstone?.deletedAt, /^2026-11-01 01:30:00/, 'deleted at the time of the reconciliation');

  clock.now += 2 * HOUR;
  const again = await sync();
  t.match(again.reconciliation, { outcome: 'applied', deleted: { markets: 0 }, message: 'nothing missing' }, 'idempotent');
  t.same(await tombstonesOf(catalog, { market: ['3000003'] }, false), [tombstone], 'the tombstone is left as it was');

  const service = new ServiceMetrics();
  service.catalogSynced(report);
  const text = await service.text();
  service.close();
  t.match(text, /catalog_deleted_items_total\{resource="markets"\} 1/, '/metrics counts the deletions');
  t.match(text, /catalog_reconciliations_total\{outcome="applied"\} 1/);

  const restarted = await prepareCatalog(catalog.client, catalog.db);
  t.same(await caller(restarted)('/markets/{id}', '', { id: '3000003' }), notFound('id not found'), 'tombstones live in ClickHouse: a new handle (a restart) still hides it');
});

t.test('an event removed upstream disappears, with the markets only it listed', async (t) => {
  const { catalog, fake, clock, sync } = await setup(t);
  const call = caller(catalog);
  await sync();
  t.equal((await listOf(call('/markets', 'event_id=45915'))).length, 2);
  fake.remove('events', '45915');
  clock.now += 2 * HOUR;
  const report = await sync();
  t.match(report.reconciliation, { outcome: 'applied', deleted: { events: 1, markets: 2, series: 0, tags: 0 } });

  t.same(await call('/events/{id}', '', { id: '45915' }), notFound('id not found'));
  t.same(await call('/events/slug/{slug}', '', { slug: 'brazil-presidential-election' }), notFound('slug not found'));
  t.same(await call('/markets/{id}', '', { id: '601818' }), notFound('id not found'));
  t.same(ids(await listOf(call('/events', ''))), ['606422', '917940']);
  t.same(await listOf(call('/markets', 'event_id=45915')), []);
  t.same(await listOf(call('/markets', 'event_slug=brazil-presidential-election')), []);
  t.same(await listOf(call('/events', 'slug=brazil-presidential-election')), []);
  const search = (await call('/public-search', 'q=brazil')).body as { events: unknown[]; tags: GammaObject[] };
  t.same(search.events, []);
  const tags = (await call('/public-search', 'q=politics')).body as { tags: GammaObject[] };
  t.match(tags.tags, [{ slug: 'politics', event_count: 0 }], 'a tag still listed upstream stays, without the deleted event');
  t.equal((await listOf(call('/tags', ''))).length, 2);
});

t.test('an object that reappears upstream is restored', async (t) => {
  const { catalog, fake, clock, sync } = await setup(t);
  const call = caller(catalog);
  await sync();
  const gone = fake.data.markets.find((m) => m.id === '3000004') as GammaObject;
  fake.remove('markets', '3000004');
  fake.remove('markets', '3000005');
  clock.now += 2 * HOUR;
  t.match((await sync()).reconciliation, { deleted: { markets: 2 } });

  fake.upsert('markets', gone);
  clock.now += 10 * 60_000;
  const quiet = await sync();
  t.same(quiet.restored, { markets: 0, events: 0, series: 0, tags: 0 }, 'back with its old updatedAt: an incremental run does not see it');
  t.equal((await call('/markets/{id}', '', { id: '3000004' })).status, 404);
  clock.now += 2 * HOUR;
  const reconciled = await sync();
  t.same(reconciled.restored, { markets: 1, events: 0, series: 0, tags: 0 }, 'the next reconciliation lists it again');
  t.match(reconciled.reconciliation, { outcome: 'applied', deleted: { markets: 0 } });
  t.equal((await call('/markets/{id}', '', { id: '3000004' })).status, 200);
  t.match(await tombstonesOf(catalog, { market: ['3000004'] }, false), [{ deleted: false, restoredAt: /^2026-11-01/, engine: '' }]);

  fake.upsert('markets', { ...liveMarket(5, 900), question: 'Back, and changed' });
  const incremental = await sync();
  t.same(incremental.restored, { markets: 1, events: 0, series: 0, tags: 0 }, 'back with a new updatedAt: the incremental run restores it');
  t.equal(((await call('/markets/{id}', '', { id: '3000005' })).body as GammaObject).question, 'Back, and changed');
  t.equal((await listOf(call('/markets', 'limit=100'))).length, 15);
});

t.test('a reconciliation that fails mid-pass deletes nothing; the next run completes it', async (t) => {
  const { catalog, fake, baseUrl, metrics, clock, sync } = await setup(t);
  const call = caller(catalog);
  await sync();
  fake.remove('markets', '3000007');
  fake.fail({ match: (r) => r.resource === 'markets' && r.params.get('closed') === 'true' && r.params.get('ascending') === 'true', status: 500, times: 100 });
  clock.now += 2 * HOUR;
  await t.rejects(sync(), { name: 'UpstreamError', status: 500 });
  t.equal((await call('/markets/{id}', '', { id: '3000007' })).status, 200, 'the pass did not complete: nothing is deleted');
  t.same(await tombstonesOf(catalog, { market: ['3000007'] }, false), []);
  t.match(metrics.snapshot().catalog_sync_reconciliations_total, { failed: 1, applied: 0 });
  t.match((await reconciliations(catalog, baseUrl)).map((r) => r.outcome), ['baseline', 'failed']);

  fake.failures.length = 0;
  clock.now += 5 * 60_000;
  const next = await sync();
  t.match(next.reconciliation, { outcome: 'applied', deleted: { markets: 1 } }, 'a failed pass does not count: still due');
  t.equal((await call('/markets/{id}', '', { id: '3000007' })).status, 404);
});

t.test('the mass-deletion guard refuses a reconciliation that would delete too much', async (t) => {
  const { catalog, fake, baseUrl, metrics, clock, sync } = await setup(t);
  const call = caller(catalog);
  await sync();
  // An upstream answering empty pages by mistake.
  fake.fail({ match: (r) => r.resource === 'markets' && r.params.get('ascending') === 'true', status: 200, body: '[]', times: 100 });
  const lines: string[] = [];
  clock.now += 2 * HOUR;
  const refused = await sync({ progress: terminalProgress({ isTTY: false, write: (s: string) => lines.push(s) }) });
  t.match(refused.reconciliation, { outcome: 'refused', deleted: { markets: 0, events: 0 }, missing: { markets: 13, events: 2 } }, 'the election markets are still seen, nested in their event');
  t.equal(refused.reconciliation?.message, 'refused: it would delete 2 of 3 events (67%), 13 of 15 markets (87%), more than the limit of 50%; nothing deleted');
  t.ok(lines.some((l) => l.startsWith('catalog reconcile: refused: it would delete 2 of 3 events')), 'the refusal is written out');
  t.equal((await listOf(call('/markets', 'limit=100'))).length, 15, 'nothing deleted');
  t.match(metrics.snapshot().catalog_sync_reconciliations_total, { refused: 1, applied: 0 });
  t.match((await reconciliations(catalog, baseUrl)).at(-1), { outcome: 'refused', deleted: { markets: '0' } });
  fake.failures.length = 0;

  clock.now += 10 * 60_000;
  t.equal((await sync()).reconciliation, undefined, 'a refusal counts for the interval');

  for (let i = 0; i < 9; i++) fake.remove('markets', String(3_000_000 + i));
  clock.now += 2 * HOUR;
  t.match((await sync()).reconciliation, { outcome: 'refused', missing: { markets: 9 } }, '9 of 15 markets is more than half');
  t.equal((await listOf(call('/markets', 'limit=100'))).length, 15);
  const forced = await sync({ reconcile: { intervalSec: 3600, maxDeleteFraction: 1, force: true } });
  t.match(forced.reconciliation, { outcome: 'applied', deleted: { markets: 9 } }, 'a fraction of 1 turns the guard off');
  t.equal((await listOf(call('/markets', 'limit=100'))).length, 6);
});

t.test('objects shifting under the pass make it read again, not delete what it skipped', async (t) => {
  const { catalog, fake, clock, sync } = await setup(t);
  const call = caller(catalog);
  await sync();
  fake.requests.length = 0;
  let armed = true;
  clock.now += 2 * HOUR;
  const report = await sync({
    onStored: (stream) => {
      const last = fake.requests.at(-1);
      if (armed && stream.name === 'markets:open' && last?.params.get('ascending') === 'true') {
        armed = false;
        // Two objects before the next page's offset go away: everything after shifts by 2, more than the overlap.
        fake.remove('markets', '3000000');
        fake.remove('markets', '3000001');
      }
    },
  });
  t.same(
    reconcileRequests(fake).filter((r) => r.params.get('closed') === 'false').map((r) => Number(r.params.get('offset'))),
    [0, 4, 0, 4, 8],
    'the page at 4 lost the previous page\'s tail: the pass steps back a page, then carries on',
  );
  t.match(report.reconciliation, { outcome: 'applied', deleted: { markets: 0 } }, 'nothing deleted: 3000005 was not skipped, and the two removed were seen');
  t.equal((await call('/markets/{id}', '', { id: '3000005' })).status, 200);
  clock.now += 2 * HOUR;
  t.match((await sync()).reconciliation, { outcome: 'applied', deleted: { markets: 2 } }, 'the next reconciliation deletes the two');
});

t.test('a list that keeps shifting ends the pass as incomplete, deleting nothing', async (t) => {
  const { catalog, fake, clock, sync } = await setup(t);
  await sync();
  fake.remove('markets', '3000011');
  let next = 100;
  clock.now += 2 * HOUR;
  const report = await sync({
    onStored: (stream) => {
      // After every page of the pass, two objects near the start are updated and move to the end.
      if (stream.name !== 'markets:open' || fake.requests.at(-1)?.params.get('ascending') !== 'true') return;
      const oldest = fake.data.markets.filter((x) => x.closed !== true).sort((a, b) => Date.parse(a.updatedAt as string) - Date.parse(b.updatedAt as string));
      for (const m of oldest.slice(0, 2)) fake.upsert('markets', { ...m, updatedAt: liveMarket(0, next++).updatedAt });
    },
  });
  t.match(report.reconciliation, { outcome: 'incomplete', deleted: { markets: 0 } });
  t.equal((await caller(catalog)('/markets/{id}', '', { id: '3000011' })).status, 200);
});

async function engineOverJournal(t: Test) {
  const journal = await Journal.open({ dir: join(mkdtempSync(join(tmpdir(), 'catalog-deletions-')), 'journal'), segmentBytes: 1 << 20 });
  t.teardown(() => journal.close());
  const engine = new Engine();
  let clock = 1_800_000_000_000;
  return { host: new EngineHost(engine, journal, { maxBatch: 1000, clock: () => (clock += 1) }), view: engine, engine };
}

const serviceConfig = (db: string, url: string, extra: Partial<CatalogConfig> = {}): CatalogConfig => ({
  clickhouseDatabase: db,
  catalogUpstreamUrl: url,
  catalogSyncIntervalSec: 3600,
  catalogReconcileIntervalSec: 86_400,
  catalogReconcileMaxDeletePercent: 50,
  demoCatalog: true,
  ...extra,
});

t.test('the engine: a deleted order-book market is paused through the log, never resolved, and resumed when it reappears', async (t) => {
  const { client, db } = await freshCatalog();
  const fake = new FakeGamma({ markets: liveMarkets(7) });
  const url = await fake.listen();
  t.teardown(() => fake.close());
  const engine = await engineOverJournal(t);
  const reports: ReconcileReport[] = [];
  let firstSync: () => void = () => {};
  const started = new Promise<void>((resolve) => (firstSync = resolve));
  const service = await startCatalogService({
    client,
    config: serviceConfig(db, url),
    engine,
    onSynced: (report) => {
      if (report.reconciliation !== undefined) reports.push(report.reconciliation);
      firstSync();
    },
  });
  await started;
  const market = liveMarket(2);
  const conditionId = market.conditionId as string;
  t.equal(engine.engine.market(conditionId)?.status, 'active');
  t.equal([...engine.engine.markets()].length, 30 + 7, 'the demo catalog and the upstream');

  fake.remove('markets', market.id as string);
  const report = await service.syncNow({ reconcile: true });
  t.match(report.reconciliation, { outcome: 'applied', deleted: { markets: 1, events: 0 } }, 'only the upstream\'s objects are judged: the demo catalog stays');
  t.equal(engine.engine.market(conditionId)?.status, 'paused', 'paused through the log');
  t.match(await tombstonesOf(service.catalog, { market: [market.id as string] }, false), [{ deleted: true, engine: 'paused' }]);
  t.equal((await caller(service.catalog)('/markets/slug/{slug}', '', { slug: 'will-it-rain-in-london-on-december-24-2026' })).status, 200, 'a demo market is still served');
  await service.close();

  const restarted = await startCatalogService({ client, config: serviceConfig(db, url, { catalogUpstreamUrl: undefined }), engine });
  t.match(restarted.startHandOff, { listed: 0, updated: 0, resolved: 0 }, 'at start, the deleted market is not handed over again');
  t.same(restarted.startDeletionHandOff, { paused: 0, resumed: 0, settled: 0, rejected: [] }, 'nothing pending');
  t.equal(engine.engine.market(conditionId)?.status, 'paused', 'still paused, not resolved');
  t.equal((await caller(restarted.catalog)('/markets/{id}', '', { id: market.id as string })).status, 404);
  await restarted.close();

  const again = await startCatalogService({ client, config: serviceConfig(db, url), engine });
  fake.upsert('markets', liveMarket(2, 500));
  const back = await again.syncNow();
  t.same(back.restored, { markets: 1, events: 0, series: 0, tags: 0 });
  t.equal(engine.engine.market(conditionId)?.status, 'active', 'resumed when it reappears');
  t.match(await tombstonesOf(again.catalog, { market: [market.id as string] }, false), [{ deleted: false, engine: '' }]);
  await again.close();
});

t.test('the engine: only what a deletion paused is resumed; a crash before the pause is caught up at start', async (t) => {
  const catalog = await freshCatalog();
  const { host, engine } = await engineOverJournal(t);
  const open = liveMarket(1);
  const closing: GammaObject = { ...liveMarket(2), closed: true, outcomePrices: '["0.5", "0.5"]' };
  await upsertCatalog(catalog, { markets: [open, liveMarket(2)] }, 'up');
  await handOffMarkets(host, engine, [open, liveMarket(2)]);
  await upsertCatalog(catalog, { markets: [closing] }, 'up');
  await handOffMarkets(host, engine, [closing]);
  t.equal(engine.market(closing.conditionId as string)?.status, 'paused', 'closed upstream without a decisive price');

  await deleteObjects(catalog, 'up', { market: ['3000001', '3000002'], event: [], series: [], tag: [] }, Date.now());
  // The deletion is stored, and the process stops before the engine hears of it: the next start pauses it.
  t.same(await handOffDeletions(catalog, host, engine), { paused: 1, resumed: 0, settled: 1, rejected: [] });
  t.equal(engine.market(open.conditionId as string)?.status, 'paused');
  t.same(await handOffDeletions(catalog, host, engine), { paused: 0, resumed: 0, settled: 0, rejected: [] }, 'idempotent');

  await upsertCatalog(catalog, { markets: [open, { ...closing, closed: false, outcomePrices: '["0.4", "0.6"]' }] }, 'up');
  t.same(await handOffDeletions(catalog, host, engine), { paused: 0, resumed: 1, settled: 0, rejected: [] });
  t.equal(engine.market(open.conditionId as string)?.status, 'active', 'the one the deletion paused is resumed');
  t.equal(engine.market(closing.conditionId as string)?.status, 'paused', 'the one a closing paused is not');
});
