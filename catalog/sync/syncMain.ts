// `npm run catalog:sync`: one sync of the catalog from the configured upstream (catalogUpstreamUrl), or, with
// `--import <file>`, an import of a JSON dump of upstream responses (dumpImport.ts). The sync reconciles with
// the upstream when catalogReconcileIntervalSec has passed, or now with `--reconcile` (reconcile.ts; deleted
// markets are paused in the engine when the service next starts). Every other argument is a
// setting of the service (--help lists them). Progress goes to stdout (a progress line on a terminal, plain
// lines otherwise). In embedded mode chDB's data directory belongs to one process: run this while the
// service is stopped, or use a ClickHouse server. Exit status: 0 done, 1 failed, 2 bad arguments.

import { formatProblems, parseConfig, renderHelp } from '../../config/index.js';
import { openClickHouse } from '../../storage/clickhouse.js';
import { prepareCatalog } from '../catalogDb.js';
import { importDumpFile } from './dumpImport.js';
import { splitImportFlag, splitReconcileFlag } from './syncArgs.js';
import { terminalProgress } from './syncProgress.js';
import { runCatalogSync } from './syncWorker.js';

const USAGE = 'Usage: npm run catalog:sync [-- --import <dump.json> | --reconcile] [-- <settings>]\n';

async function main(): Promise<number> {
  const { reconcile, rest: args } = splitReconcileFlag(process.argv.slice(2));
  const { importPath, rest, problem } = splitImportFlag(args);
  if (problem !== undefined) {
    process.stderr.write(`${problem}\n${USAGE}`);
    return 2;
  }
  const parsed = parseConfig(rest, process.env);
  if (parsed.kind === 'help') {
    process.stdout.write(USAGE + renderHelp());
    return 0;
  }
  for (const warning of parsed.warnings) process.stderr.write(`config warning: ${warning}\n`);
  if (parsed.kind === 'invalid') {
    process.stderr.write(formatProblems(parsed.problems) + '\n');
    return 2;
  }
  const config = parsed.config;
  if (importPath === undefined && config.catalogUpstreamUrl === undefined) {
    process.stderr.write(`No upstream to sync from: set --catalog-upstream-url (PMX_CATALOG_UPSTREAM_URL), or import a dump with --import <file>.\n${USAGE}`);
    return 2;
  }
  const client = await openClickHouse({
    mode: config.clickhouseMode,
    dataDir: config.dataDir,
    url: config.clickhouseUrl,
    user: config.clickhouseUser,
    password: config.clickhousePassword,
    database: config.clickhouseDatabase,
  });
  try {
    const catalog = await prepareCatalog(client, config.clickhouseDatabase);
    if (importPath !== undefined) {
      const report = await importDumpFile(catalog, importPath);
      process.stdout.write(`catalog import: ${report.markets} markets, ${report.events} events, ${report.series} series, ${report.tags} tags stored; ${report.skipped} items skipped\n`);
    } else {
      const report = await runCatalogSync({
        catalog,
        baseUrl: config.catalogUpstreamUrl as string,
        progress: terminalProgress(process.stdout),
        reconcile: { intervalSec: config.catalogReconcileIntervalSec, maxDeleteFraction: config.catalogReconcileMaxDeletePercent / 100, force: reconcile },
      });
      process.stdout.write(`catalog sync: ${report.items} objects in ${report.pages} pages from ${config.catalogUpstreamUrl as string}\n`);
      if (report.reconciliation?.outcome === 'refused') process.stderr.write(`catalog reconcile ${report.reconciliation.message}\n`);
    }
    return 0;
  } catch (error) {
    process.stderr.write(`catalog sync failed: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await client.close();
  }
}

process.exitCode = await main();
