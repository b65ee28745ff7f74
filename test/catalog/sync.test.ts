// The catalog sync against a local fake upstream over HTTP, serving pages in the real (live-captured) shape:
// paging, the switch to incremental passes, an incremental update, a failure mid-sync retried with backoff,
// a restart mid-sync resuming from the saved state, an upstream that does not sort, a non-retriable error.

import t, { type Test } from 'tap';
import { queryRows } from '../../storage/clickhouse.js';
import { tableOf, type CatalogDb } from '../../catalog/catalogDb.js';
import { findEvent, findMarket } from '../../catalog/queries.js';
import { FakeGamma, type FakeRequest } from '../../catalog/upstream/fakeGammaServer.js';
import { CatalogSyncMetrics } from '../../catalog/sync/syncMetrics.js';
import { loadStreamState } from '../../catalog/sync/syncState.js';
import { runCatalogSync, type SyncOptions } from '../../catalog/sync/syncWorker.js';
import { UpstreamError } from '../../catalog/sync/upstreamClient.js';
import type { GammaObject } from '../../catalog/upstream/gammaValues.js';
import { freshCatalog, liveBody } from './support/testCatalog.js';
import { isoAt, liveMarket, liveMarkets } from './support/liveShaped.js';

interface Setup {
  catalog: CatalogDb;
  fake: FakeGamma;
  baseUrl: string;
  delays: number[];
  metrics: CatalogSyncMetrics;
  options: (extra?: Partial<SyncOptions>) => SyncOptions;
}

async function setup(t: Test, markets: GammaObject[]): Promise<Setup> {
  const catalog = await freshCatalog();
  const election = liveBody('EventElection');
  const fake = new FakeGamma({
    markets: [...markets, liveBody('MarketClosedSports')],
    events: [election],
    series: [liveBody('SeriesSummary')],
    tags: election.tags as GammaObject[],
  });
  const baseUrl = await fake.listen();
  t.teardown(() => fake.close());
  const delays: number[] = [];
  const metrics = new CatalogSyncMetrics();
  const options = (extra: Partial<SyncOptions> = {}): SyncOptions => ({
    catalog,
    baseUrl,
    pageSize: 5,
    overlap: 1,
    metrics,
    retry: { attempts: 4, baseDelayMs: 100, maxDelayMs: 5000 },
    sleep: async (ms) => {
      delays.push(ms);
    },
    ...extra,
  });
  return { catalog, fake, baseUrl, delays, metrics, options };
}

const marketRequests = (fake: FakeGamma, closed = 'false'): FakeRequest[] => fake.requests.filter((r) => r.resource === 'markets' && r.params.get('closed') === closed);
const offsets = (requests: FakeRequest[]): number[] => requests.map((r) => Number(r.params.get('offset')));

async function storedMarketIds(catalog: CatalogDb): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(catalog.client, `SELECT id FROM ${tableOf(catalog, 'markets')} FINAL ORDER BY id`);
  return rows.map((r) => r.id);
}

t.test('a first run pages through every stream in the real shape and stores all of it', async (t) => {
  const { catalog, fake, options, metrics } = await setup(t, liveMarkets(12));
  const report = await runCatalogSync(options());

  const open = marketRequests(fake);
  t.same(offsets(open), [0, 4, 8], 'pages of 5 overlapping by 1, until a short page');
  for (const r of open) {
    t.equal(r.params.get('order'), 'updatedAt');
    t.equal(r.params.get('ascending'), 'true', 'the full pass goes oldest first');
    t.equal(r.params.get('limit'), '5');
  }
  t.same(offsets(marketRequests(fake, 'true')), [0, 1], 'closed markets are a stream of their own (a short first page proves nothing: an empty one ends it)');
  const ids = await storedMarketIds(catalog);
  t.equal(ids.length, 12 + 1 + 2, 'the 12 copies, the closed sports market, and the 2 markets nested in the election event');
  t.ok(ids.includes('3914648'));

  for (const stream of ['tags', 'series', 'events:open', 'events:closed', 'markets:open', 'markets:closed']) {
    const state = await loadStreamState(catalog, options().baseUrl, stream);
    t.equal(state.phase, 'incremental', `${stream} finished its full pass`);
    t.equal(state.nextOffset, 0);
  }
  const marketsState = await loadStreamState(catalog, options().baseUrl, 'markets:open');
  t.equal(marketsState.watermark, Date.parse(isoAt(11)) * 1000, 'the watermark is the latest updatedAt seen');
  t.equal(report.streams.find((s) => s.stream === 'markets:open')?.items, 5 + 5 + 4, 'overlapping objects count again');
  t.equal(metrics.snapshot().catalog_sync_runs_total, 1);
  t.equal(metrics.snapshot().catalog_sync_pages_total, report.pages);
  const tags = await queryRows<{ n: string }>(catalog.client, `SELECT count() AS n FROM ${tableOf(catalog, 'tags')} FINAL`);
  t.equal(Number(tags[0]?.n), 2);

  const original = liveMarket(3);
  const served = await findMarket(catalog, { id: original.id as string });
  t.ok(served);
  for (const key of Object.keys(original)) if (key !== 'events') t.ok(key in (served as GammaObject), `field ${key} of the real shape is served`);
  t.equal((served as GammaObject).clobTokenIds, original.clobTokenIds, 'token ids stay JSON text');
  t.match((served as GammaObject).events, [{ id: '606422', slug: 'fed-decision-in-october-20260617190323537', creationDate: '2026-06-18T00:35:28.062505Z' }]);

  const fedEvent = await findEvent(catalog, { id: '606422' });
  t.match(fedEvent?.series, [{ id: '35', slug: 'fomc' }], 'series nested in a market\'s event are linked');
  t.equal((fedEvent?.markets as unknown[]).length, 12);
  const election = await findEvent(catalog, { slug: 'brazil-presidential-election' });
  t.same((election?.markets as GammaObject[]).map((m) => m.id), ['601818', '601819']);
  t.same((election?.tags as GammaObject[]).map((m) => m.slug), ['politics', 'macro-election-2']);
  const sports = await findMarket(catalog, { id: '3914648' });
  t.equal(sports?.closedTime, '2026-09-09 14:25:04+00', 'fields the spec does not name keep their upstream form');
  t.equal(sports?.closed, true);
});

t.test('an incremental run reads newest first and stops at the watermark', async (t) => {
  const { catalog, fake, options } = await setup(t, liveMarkets(12));
  await runCatalogSync(options());
  fake.requests.length = 0;

  fake.upsert('markets', { ...liveMarket(4, 100), question: 'Renamed upstream' });
  fake.upsert('markets', liveMarket(40, 101));
  fake.upsert('markets', { ...liveMarket(5, 102), closed: true, outcomePrices: '["1", "0"]' });
  const report = await runCatalogSync(options());

  const open = marketRequests(fake);
  t.same(offsets(open), [0], 'one page reached objects older than the watermark');
  t.equal(open[0]?.params.get('ascending'), 'false', 'newest first');
  t.same(offsets(marketRequests(fake, 'true')), [0, 2], 'an object exactly at the watermark is not older: one more page');
  t.equal((await findMarket(catalog, { id: '3000004' }))?.question, 'Renamed upstream', 'the update is stored');
  t.ok(await findMarket(catalog, { id: '3000040' }), 'the new market is stored');
  const closed = await findMarket(catalog, { id: '3000005' });
  t.equal(closed?.closed, true, 'a market that closed upstream is picked up by the closed stream');
  t.equal(closed?.outcomePrices, '["1", "0"]');
  t.equal((await loadStreamState(catalog, options().baseUrl, 'markets:open')).watermark, Date.parse(isoAt(101)) * 1000);
  t.ok(report.items < 12, 'the incremental run does not read everything again');

  fake.requests.length = 0;
  await runCatalogSync(options());
  t.same(offsets(marketRequests(fake)), [0], 'a run with nothing new reads one page per stream');
});

t.test('a failure mid-sync is retried with backoff, then the sync carries on', async (t) => {
  const { catalog, fake, options, delays, metrics } = await setup(t, liveMarkets(12));
  fake.fail({ match: (r) => r.resource === 'markets' && r.params.get('offset') === '8', status: 503, times: 2 });
  fake.fail({ match: (r) => r.resource === 'events' && r.params.get('closed') === 'false', status: 429, headers: { 'retry-after': '3' } });
  await runCatalogSync(options());

  t.equal(offsets(marketRequests(fake)).filter((o) => o === 8).length, 3, 'two failures, then the page');
  t.equal(delays.length, 3);
  t.ok((delays[0] as number) >= 3000, 'a 429 waits at least its Retry-After');
  t.ok((delays[1] as number) >= 80 && (delays[1] as number) <= 120, 'first retry after about baseDelayMs');
  t.ok((delays[2] as number) >= 160 && (delays[2] as number) <= 240, 'then about twice that');
  t.equal(metrics.snapshot().catalog_sync_retries_total, 3);
  t.equal((await storedMarketIds(catalog)).length, 15, 'nothing is missing');
});

t.test('a restart mid-sync resumes from the saved state', async (t) => {
  const { catalog, fake, options, metrics } = await setup(t, liveMarkets(12));
  fake.fail({ match: (r) => r.resource === 'markets' && r.params.get('offset') === '8', status: 500, times: 100 });
  const failed = runCatalogSync(options());
  await t.rejects(failed, UpstreamError, 'the run stops when the retries run out');
  t.equal(metrics.snapshot().catalog_sync_runs_failed_total, 1);
  const saved = await loadStreamState(catalog, options().baseUrl, 'markets:open');
  t.equal(saved.phase, 'full');
  t.equal(saved.nextOffset, 8, 'the state points at the page that failed');

  fake.failures.length = 0;
  fake.requests.length = 0;
  await runCatalogSync(options({ metrics: new CatalogSyncMetrics() }));
  t.same(offsets(marketRequests(fake)), [8, 11], 'the next run starts where the last one stopped');
  t.equal((await storedMarketIds(catalog)).length, 15);
  t.equal((await loadStreamState(catalog, options().baseUrl, 'markets:open')).phase, 'incremental');

  // A stop between pages (the process ends, here an abort) resumes the same way.
  const abort = new AbortController();
  fake.requests.length = 0;
  for (let i = 50; i < 62; i++) fake.upsert('markets', liveMarket(i, 200 + i));
  let pages = 0;
  const stopped = runCatalogSync(
    options({
      signal: abort.signal,
      onStored: (stream) => {
        if (stream.name === 'markets:open' && ++pages === 2) abort.abort(new Error('stopped'));
      },
    }),
  );
  await t.rejects(stopped, { message: 'stopped' });
  const midway = await loadStreamState(catalog, options().baseUrl, 'markets:open');
  t.equal(midway.nextOffset, 10, 'the incremental pass saved its place after each page');
  fake.requests.length = 0;
  await runCatalogSync(options());
  t.equal(offsets(marketRequests(fake))[0], 10, 'and resumes from it');
  t.equal((await storedMarketIds(catalog)).length, 27);
});

t.test('an upstream that does not sort by updatedAt sends the stream back to a full pass', async (t) => {
  const { catalog, fake, options } = await setup(t, liveMarkets(6));
  await runCatalogSync(options());
  const unsorted = [liveMarket(1, 300), liveMarket(2, 400), liveMarket(3, 350)];
  fake.fail({ match: (r) => r.resource === 'markets' && r.params.get('ascending') === 'false', status: 200, body: JSON.stringify(unsorted) });
  fake.requests.length = 0;
  await runCatalogSync(options());
  const open = marketRequests(fake);
  t.equal(open[0]?.params.get('ascending'), 'false');
  t.ok(open.slice(1).every((r) => r.params.get('ascending') === 'true'), 'then a full pass, oldest first');
  const state = await loadStreamState(catalog, options().baseUrl, 'markets:open');
  t.equal(state.fullPasses, 2);
  t.equal(state.phase, 'incremental');
});

t.test('a client error from the upstream is not retried', async (t) => {
  const { fake, options, delays } = await setup(t, liveMarkets(2));
  fake.fail({ match: (r) => r.resource === 'tags', status: 404 });
  await t.rejects(runCatalogSync(options()), { name: 'UpstreamError', status: 404, retriable: false });
  t.equal(delays.length, 0);
});
