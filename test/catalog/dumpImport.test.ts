// Importing JSON dumps of upstream responses: the live captures as they are published, a catalog dump with
// a site, idempotence; and `catalog:sync` as a command (a child process with its own data directory).

import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queryRows } from '../../storage/clickhouse.js';
import { tableOf, type CatalogDb } from '../../catalog/catalogDb.js';
import { findEvent, findMarket, listMarkets, listSeries } from '../../catalog/queries.js';
import { DumpFormatError, importDumpFile, importParsedDump } from '../../catalog/sync/dumpImport.js';
import { freshCatalog, liveCapture } from './support/testCatalog.js';

const CAPTURES = ['Market', 'MarketClosedSports', 'EventElection', 'SeriesSummary', 'SearchOptimized'];

async function counts(catalog: CatalogDb): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of ['markets', 'events', 'series', 'tags', 'eventMarkets', 'eventTags', 'seriesEvents'] as const) {
    const rows = await queryRows<{ n: string }>(catalog.client, `SELECT count() AS n FROM ${tableOf(catalog, table)} FINAL`);
    out[table] = Number(rows[0]?.n);
  }
  return out;
}

t.test('the live captures import as published, from a file', async (t) => {
  const catalog = await freshCatalog();
  const dir = mkdtempSync(join(tmpdir(), 'catalog-dump-'));
  const path = join(dir, 'captures.json');
  writeFileSync(path, JSON.stringify(CAPTURES.map(liveCapture)));
  const report = await importDumpFile(catalog, path);
  t.same(report, { markets: 2, events: 3, series: 1, tags: 0, skipped: 0 });

  const fed = await findMarket(catalog, { id: '2589812' });
  t.equal(fed?.negRiskMarketID, '0x09ac0b2770dbcad3f2e4f5356a68af57cb8ca7502b02645a07b0290d46026a00');
  t.match(fed?.events, [{ id: '606422', title: 'Fed Decision in October?' }]);
  const election = await findEvent(catalog, { id: '45915' });
  t.equal((election?.markets as unknown[]).length, 2);
  t.match(election?.tags, [{ id: '2', slug: 'politics', requiresTranslation: false }, { id: '101252' }]);
  t.match(await findEvent(catalog, { id: '580320' }), { slug: 'which-party-will-trump-endorse-in-the-2026-israeli-election-20260610144125261', markets: [] }, 'search hits without market ids bring no markets');
  t.match(await listSeries(catalog, { limit: 10, offset: 0 }), [{ id: '35', slug: 'fomc' }, { id: '11446', slug: 'soccer-unl', title: 'UEFA Nations League' }]);
  const all = await listMarkets(catalog, { creator: 'import' }, { columns: [], ascending: true }, { limit: 10, offset: 0 });
  t.equal(all.length, 4, 'imported markets belong to the import site');

  const before = await counts(catalog);
  await importDumpFile(catalog, path);
  t.same(await counts(catalog), before, 'importing again changes nothing');
});

t.test('a catalog dump with a site; a broken dump is refused', async (t) => {
  const catalog = await freshCatalog();
  await importParsedDump(catalog, { site: 'partner', markets: [{ id: '1', slug: 'm', updatedAt: '2026-01-01T00:00:00Z' }] });
  t.equal((await listMarkets(catalog, { creator: 'PARTNER' }, { columns: [], ascending: true }, { limit: 10, offset: 0 })).length, 1);
  await t.rejects(importParsedDump(catalog, { comments: [] }), DumpFormatError);
  const dir = mkdtempSync(join(tmpdir(), 'catalog-dump-'));
  writeFileSync(join(dir, 'broken.json'), '{"markets": [');
  await t.rejects(importDumpFile(catalog, join(dir, 'broken.json')), DumpFormatError);
});

t.test('npm run catalog:sync: --import, and the message without an upstream', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-cli-'));
  const dump = join(dir, 'captures.json');
  writeFileSync(dump, JSON.stringify(CAPTURES.map(liveCapture)));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'catalog/sync/syncMain.ts', '--data-dir', join(dir, 'data'), ...args], { encoding: 'utf8', env: { ...process.env, PMX_CATALOG_UPSTREAM_URL: '' } });
  const imported = run('--import', dump);
  t.equal(imported.status, 0, imported.stderr);
  t.match(imported.stdout, 'catalog import: 2 markets, 3 events, 1 series, 0 tags stored; 0 items skipped');
  const none = run();
  t.equal(none.status, 2);
  t.match(none.stderr, 'No upstream to sync from');
  t.equal(run('--no-such-setting').status, 2, 'settings are checked as the service checks them');
});
