// Importing a JSON dump of upstream responses from a file. Accepted forms (nested freely in arrays):
// - a catalog dump: { "site"?: "...", "markets"?: [...], "events"?: [...], "series"?: [...], "tags"?: [...] }
//   (the demo catalog's form);
// - a captured response: { "_captured": { "route": "GET /markets?..." }, "body": <array or one object> }, as in
//   the public live captures; the route names the resource (/markets, /events, /series, /series-summary,
//   /tags; /public-search contributes its events and tags);
// - an array of any of these.
// Imported markets are attributed to the dump's `site` (default 'import'; see creatorScope.ts).

import { readFile } from 'node:fs/promises';
import type { CatalogDb } from '../catalogDb.js';
import { upsertCatalog, type CatalogBatch, type UpsertResult } from '../store/upsertCatalog.js';
import { isObject } from '../upstream/gammaValues.js';

export const DEFAULT_DUMP_SITE = 'import';
const CHUNK = 1000;

export class DumpFormatError extends Error {
  override readonly name = 'DumpFormatError';
}

export interface DumpBatch {
  readonly site: string;
  readonly batch: CatalogBatch;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]);

function resourceOfRoute(route: string): 'markets' | 'events' | 'series' | 'tags' | 'search' | undefined {
  const path = route.replace(/^[A-Z]+\s+/, '').split(/[?\s]/)[0] ?? '';
  if (/^\/?public-search/.test(path)) return 'search';
  for (const resource of ['markets', 'events', 'series', 'tags'] as const) {
    if (new RegExp(`^/?${resource}(-summary)?(/|$)`).test(path)) return resource;
  }
  return undefined;
}

function batchOfCapture(capture: Record<string, unknown>, site: string): DumpBatch {
  const captured = capture._captured;
  const route = isObject(captured) && typeof captured.route === 'string' ? captured.route : '';
  const resource = resourceOfRoute(route);
  if (resource === undefined) throw new DumpFormatError(`a captured response's route "${route}" names no catalog resource`);
  const body = capture.body;
  if (resource === 'search') {
    const holder = isObject(body) ? body : {};
    return { site, batch: { events: asList(holder.events), tags: asList(holder.tags) } };
  }
  return { site, batch: { [resource]: asList(body) } };
}

/** The batches of a parsed dump (pure; throws DumpFormatError for an unrecognised form). */
export function batchesOfDump(value: unknown, site = DEFAULT_DUMP_SITE): DumpBatch[] {
  if (Array.isArray(value)) return value.flatMap((item) => batchesOfDump(item, site));
  if (!isObject(value)) throw new DumpFormatError('a dump holds objects or arrays of them');
  if ('_captured' in value && 'body' in value) return [batchOfCapture(value, site)];
  const kinds = ['markets', 'events', 'series', 'tags'] as const;
  if (!kinds.some((k) => Array.isArray(value[k]))) throw new DumpFormatError('an object of a dump has none of markets, events, series, tags, nor _captured and body');
  const dumpSite = typeof value.site === 'string' && value.site.trim() !== '' ? value.site.trim().toLowerCase() : site;
  const out: DumpBatch[] = [];
  for (const kind of kinds) {
    const items = asList(value[kind]);
    for (let i = 0; i < items.length; i += CHUNK) out.push({ site: dumpSite, batch: { [kind]: items.slice(i, i + CHUNK) } });
  }
  return out;
}

export interface ImportReport {
  readonly markets: number;
  readonly events: number;
  readonly series: number;
  readonly tags: number;
  readonly skipped: number;
}

/** Stores every batch of a parsed dump; `onStored` sees each result (for the engine hand-off). */
export async function importParsedDump(catalog: CatalogDb, value: unknown, onStored?: (result: UpsertResult) => Promise<void> | void, site?: string): Promise<ImportReport> {
  const totals = { markets: 0, events: 0, series: 0, tags: 0, skipped: 0 };
  for (const { site: batchSite, batch } of batchesOfDump(value, site)) {
    const result = await upsertCatalog(catalog, batch, batchSite);
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += result[key];
    await onStored?.(result);
  }
  return totals;
}

export async function importDumpFile(catalog: CatalogDb, path: string, onStored?: (result: UpsertResult) => Promise<void> | void): Promise<ImportReport> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new DumpFormatError(`cannot read the dump ${path}: ${(error as Error).message}`);
  }
  return importParsedDump(catalog, value, onStored);
}
