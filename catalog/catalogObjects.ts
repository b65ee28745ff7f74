// Fetching stored objects and links by id: the second step of every read (the first picks the ids).
// Deleted objects (store/tombstones.ts) are never fetched, so every relation drops them too.

import { queryRows } from '../storage/clickhouse.js';
import { tableOf, type CatalogDb } from './catalogDb.js';
import { LIVE_ROW } from './store/tombstones.js';
import { idNumber, type GammaObject } from './upstream/gammaValues.js';

type ObjectTable = 'markets' | 'events' | 'series' | 'tags';
type LinkTable = 'eventMarkets' | 'eventTags' | 'seriesEvents';

/** Stored objects by id (missing and deleted ids are absent from the map). */
export async function objectsById(catalog: CatalogDb, table: ObjectTable, ids: readonly string[]): Promise<Map<string, GammaObject>> {
  const out = new Map<string, GammaObject>();
  if (ids.length === 0) return out;
  const rows = await queryRows<{ id: string; json: string }>(catalog.client, `SELECT id, json FROM ${tableOf(catalog, table)} FINAL WHERE id IN {ids:Array(String)} AND ${LIVE_ROW}`, { ids: [...new Set(ids)] });
  for (const row of rows) out.set(row.id, JSON.parse(row.json) as GammaObject);
  return out;
}

/** The objects in the order of `ids`, skipping ids without an object. */
export function inOrder(ids: readonly string[], objects: ReadonlyMap<string, GammaObject>): GammaObject[] {
  const out: GammaObject[] = [];
  for (const id of ids) {
    const object = objects.get(id);
    if (object !== undefined) out.push(object);
  }
  return out;
}

export function byNumericId(a: string, b: string): number {
  return idNumber(a) - idNumber(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Live links of a relation whose `from` column is one of `ids`: a map from each id to the ids in the `to`
 * column, ordered by `position` when the table has one, else numerically.
 */
export async function linksFrom(catalog: CatalogDb, table: LinkTable, from: string, to: string, ids: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (ids.length === 0) return out;
  const position = table === 'eventTags' ? 'position' : '0';
  const rows = await queryRows<{ f: string; t: string; p: number }>(
    catalog.client,
    `SELECT ${from} AS f, ${to} AS t, ${position} AS p FROM ${tableOf(catalog, table)} FINAL WHERE linked = 1 AND ${from} IN {ids:Array(String)}`,
    { ids: [...new Set(ids)] },
  );
  rows.sort((a, b) => Number(a.p) - Number(b.p) || byNumericId(a.t, b.t));
  for (const row of rows) {
    const list = out.get(row.f) ?? [];
    list.push(row.t);
    out.set(row.f, list);
  }
  return out;
}
