// The catalog as part of the service: demo catalog on first start, hand-off at start, a sync at once and on
// the interval when an upstream is configured (each stored page handed to the engine), errors reported.

import t, { type Test } from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../engine/index.js';
import { Journal } from '../../log/journal/journal.js';
import { EngineHost } from '../../host/engineHost.js';
import { startCatalogService, type CatalogConfig } from '../../catalog/catalogService.js';
import { FakeGamma } from '../../catalog/upstream/fakeGammaServer.js';
import type { SyncReport } from '../../catalog/sync/syncWorker.js';
import { freshCatalog } from './support/testCatalog.js';
import { liveMarket, liveMarkets } from './support/liveShaped.js';

async function engineOverJournal(t: Test) {
  const journal = await Journal.open({ dir: join(mkdtempSync(join(tmpdir(), 'catalog-service-')), 'journal'), segmentBytes: 1 << 20 });
  t.teardown(() => journal.close());
  const engine = new Engine();
  let clock = 1_800_000_000_000;
  return { host: new EngineHost(engine, journal, { maxBatch: 1000, clock: () => (clock += 1) }), view: engine, engine };
}

const config = (db: string, extra: Partial<CatalogConfig> = {}): CatalogConfig => ({
  clickhouseDatabase: db,
  catalogUpstreamUrl: undefined,
  catalogSyncIntervalSec: 300,
  catalogReconcileIntervalSec: 86_400,
  catalogReconcileMaxDeletePercent: 50,
  demoCatalog: true,
  ...extra,
});

t.test('first start loads the demo catalog and hands it to the engine; later starts only check', async (t) => {
  const { client, db } = await freshCatalog();
  const engine = await engineOverJournal(t);
  const first = await startCatalogService({ client, config: config(db), engine });
  t.match(first.demo, { loaded: true, markets: 40 });
  t.match(first.startHandOff, { listed: 30 });
  await first.close();
  const second = await startCatalogService({ client, config: config(db), engine });
  t.same(second.demo, { loaded: false });
  t.match(second.startHandOff, { listed: 0, unchanged: 30 });
  await t.rejects(second.syncNow(), /no catalog upstream/);
  await second.close();
  const off = await startCatalogService({ client, config: config(db, { demoCatalog: false }) });
  t.equal(off.demo, undefined);
  t.equal(off.startHandOff, undefined, 'no engine, no hand-off');
  await off.close();
});

t.test('with an upstream: a sync at start, each page handed to the engine, and syncs on demand', async (t) => {
  const { client, db } = await freshCatalog();
  const fake = new FakeGamma({ markets: liveMarkets(7) });
  const url = await fake.listen();
  t.teardown(() => fake.close());
  const engine = await engineOverJournal(t);
  const synced: SyncReport[] = [];
  let firstSync: () => void = () => {};
  const started = new Promise<void>((resolve) => (firstSync = resolve));
  const service = await startCatalogService({
    client,
    config: config(db, { demoCatalog: false, catalogUpstreamUrl: url, catalogSyncIntervalSec: 3600 }),
    engine,
    onSynced: (report) => {
      synced.push(report);
      firstSync();
    },
  });
  await started;
  t.equal(synced.length, 1);
  const market = liveMarket(2);
  t.ok(engine.engine.market(market.conditionId as string), 'synced markets reach the engine');
  t.equal([...engine.engine.markets()].length, 7);

  fake.upsert('markets', { ...liveMarket(2, 500), closed: true, outcomePrices: '["0", "1"]' });
  await service.syncNow();
  t.equal(engine.engine.market(market.conditionId as string)?.status, 'resolved', 'an upstream resolution reaches the engine');
  t.equal(engine.engine.market(market.conditionId as string)?.winningOutcome, 1);
  await service.close();
});

t.test('a failing scheduled sync is reported, and the service closes cleanly', async (t) => {
  const { client, db } = await freshCatalog();
  const fake = new FakeGamma();
  fake.fail({ match: () => true, status: 404, times: 1000 });
  const url = await fake.listen();
  t.teardown(() => fake.close());
  const errors: Error[] = [];
  let failed: () => void = () => {};
  const reported = new Promise<void>((resolve) => (failed = resolve));
  const service = await startCatalogService({
    client,
    config: config(db, { demoCatalog: false, catalogUpstreamUrl: url }),
    onError: (error) => {
      errors.push(error);
      failed();
    },
  });
  await reported;
  t.match(errors[0], { name: 'UpstreamError', status: 404 });
  await service.close();
});
