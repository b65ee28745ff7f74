// Loads the demo catalog shipped in the repository (demoCatalog.json, built by buildDemoCatalog.ts) into the
// catalog tables, once: a row in catalog_sync_state (source 'demo') records that it was loaded, so later
// starts leave the catalog alone even if its demo rows were changed since. Loading twice would be harmless
// anyway (same rows, same versions). Its markets reach the engine through the hand-off (catalogService.ts).

import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { ClickHouseClient } from '../../storage/clickhouse.js';
import { prepareCatalog } from '../catalogDb.js';
import { importParsedDump, type ImportReport } from '../sync/dumpImport.js';
import { loadStreamState, saveStreamState } from '../sync/syncState.js';
import { DEMO_CATALOG_FILE, DEMO_SITE } from './buildDemoCatalog.js';

const MARKER = { source: DEMO_SITE, stream: 'demo-catalog' } as const;

/** demoCatalog.json beside this module in the sources, or in the sources when running from dist/. */
export function demoCatalogPath(): string {
  const candidates = [new URL(`./${DEMO_CATALOG_FILE}`, import.meta.url), new URL(`../../../catalog/demo/${DEMO_CATALOG_FILE}`, import.meta.url)];
  const found = candidates.map((u) => fileURLToPath(u)).find((path) => existsSync(path));
  if (found === undefined) throw new Error(`the demo catalog ${DEMO_CATALOG_FILE} is missing from catalog/demo/`);
  return found;
}

export type DemoLoad = { readonly loaded: false } | ({ readonly loaded: true } & ImportReport);

export async function loadDemoCatalog(client: ClickHouseClient, db: string): Promise<DemoLoad> {
  const catalog = await prepareCatalog(client, db);
  const marker = await loadStreamState(catalog, MARKER.source, MARKER.stream);
  if (marker.version > 0) return { loaded: false };
  const report = await importParsedDump(catalog, JSON.parse(await readFile(demoCatalogPath(), 'utf8')));
  await saveStreamState(catalog, { ...marker, phase: 'incremental', fullPasses: 1, items: report.markets + report.events + report.series + report.tags });
  return { loaded: true, ...report };
}
