// `npm run bench:catalog`: the catalog sync and the catalog reads at scale.
//
// Workload: 100,000 markets (10 per event, 10,000 events, 8 tags) generated in the upstream's shape
// (catalog/upstream/syntheticCatalog.ts) and served by the fake Gamma upstream on 127.0.0.1; one full sync
// into embedded ClickHouse (chDB) in a fresh temporary directory, pages of 500. Then the GET /markets
// handler with a mix of filters and sorts, and the GET /public-search handler with a mix of terms, called
// directly (no HTTP server exists yet, so these figures exclude HTTP parsing and JSON serialisation).
// Arguments: --markets N (default 100000), --requests N per endpoint (default 400).
// Output: readable lines, then one JSON object as the last line.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openClickHouse, queryRows } from '../storage/clickhouse.js';
import { prepareCatalog, tableOf } from '../catalog/catalogDb.js';
import { runCatalogSync } from '../catalog/sync/syncWorker.js';
import { terminalProgress } from '../catalog/sync/syncProgress.js';
import { FakeGamma } from '../catalog/upstream/fakeGammaServer.js';
import { syntheticCatalog } from '../catalog/upstream/syntheticCatalog.js';
import { marketsHandlers } from '../api/catalog/marketsHandlers.js';
import { publicSearchHandler } from '../api/catalog/publicSearchHandler.js';
import type { Handler } from '../api/catalog/handlerTypes.js';

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  const value = index === -1 ? undefined : Number(process.argv[index + 1]);
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function latencies(handler: Handler, queries: readonly string[], requests: number): Promise<{ p50: number; p99: number; max: number; mean: number }> {
  for (const q of queries) await handler({ params: {}, query: new URLSearchParams(q) });
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const query = new URLSearchParams(queries[i % queries.length]);
    const started = performance.now();
    const response = await handler({ params: {}, query });
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`${queries[i % queries.length] as string} answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  times.sort((a, b) => a - b);
  const round = (n: number): number => Math.round(n * 100) / 100;
  return { p50: round(percentile(times, 50)), p99: round(percentile(times, 99)), max: round(times.at(-1) as number), mean: round(times.reduce((a, b) => a + b, 0) / times.length) };
}

const marketCount = argument('--markets', 100_000);
const requests = argument('--requests', 400);
const dataDir = mkdtempSync(join(tmpdir(), 'catalog-bench-'));

const generated = syntheticCatalog(marketCount);
const fake = new FakeGamma({ markets: generated.markets, events: generated.events, tags: generated.tags });
const baseUrl = await fake.listen();
const client = await openClickHouse({ mode: 'embedded', dataDir, url: '', user: '', password: '', database: 'bench' });
try {
  const catalog = await prepareCatalog(client, 'bench');
  console.log(`catalog bench: ${marketCount.toLocaleString('en-US')} markets, ${generated.events.length.toLocaleString('en-US')} events from ${baseUrl}`);
  const started = performance.now();
  const report = await runCatalogSync({ catalog, baseUrl, pageSize: 500, progress: terminalProgress(process.stdout, 5000) });
  const syncSeconds = (performance.now() - started) / 1000;
  const stored = Number((await queryRows<{ n: string }>(client, `SELECT count() AS n FROM ${tableOf(catalog, 'markets')} FINAL`))[0]?.n);
  if (stored !== marketCount) throw new Error(`the sync stored ${stored} markets, expected ${marketCount}`);
  const marketsPerSecond = Math.round(marketCount / syncSeconds);
  console.log(`sync: ${stored.toLocaleString('en-US')} markets (+ events, tags) in ${syncSeconds.toFixed(1)} s: ${marketsPerSecond.toLocaleString('en-US')} markets/s, ${report.pages} pages`);

  const sample = generated.markets[Math.floor(marketCount / 2)] as Record<string, string>;
  const marketQueries = [
    'active=true&closed=false&order=volume24hr&ascending=false&limit=20',
    'tag=crypto&order=liquidity&ascending=false&limit=50',
    'tag_id=103&closed=false&limit=20&offset=2000',
    `event_id=${500_000 + Math.floor(marketCount / 20)}`,
    `slug=${sample.slug}`,
    `conditionId=${sample.conditionId}`,
    'creator=0x91430cad2d3975766499717fa0d66a78d814e5c5&order=endDate&ascending=true&limit=20',
    'limit=100&offset=50000',
  ];
  const searchQueries = ['q=election', 'q=bitcoin%20event%2042', 'q=synthetic%20launch&limit_per_type=20', 'q=storm&page=3', 'q=crypto&search_tags=true', 'q=nothing-matches-this'];
  const markets = await latencies(marketsHandlers(catalog).list, marketQueries, requests);
  console.log(`GET /markets handler (filters and sorts, ${requests} calls): p50 ${markets.p50} ms, p99 ${markets.p99} ms, max ${markets.max} ms`);
  const search = await latencies(publicSearchHandler(catalog), searchQueries, requests);
  console.log(`GET /public-search handler (${requests} calls): p50 ${search.p50} ms, p99 ${search.p99} ms, max ${search.max} ms`);
  console.log('(handlers called directly: no HTTP server yet, so no HTTP parsing or JSON serialisation in these figures)');
  console.log(
    JSON.stringify({
      bench: 'catalog',
      markets: marketCount,
      events: generated.events.length,
      syncSeconds: Math.round(syncSeconds * 10) / 10,
      syncMarketsPerSecond: marketsPerSecond,
      marketsHandlerMs: markets,
      publicSearchHandlerMs: search,
      requests,
      measuredOn: 'handlers directly, embedded chDB',
    }),
  );
} finally {
  await client.close();
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
}
