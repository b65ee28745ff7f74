// Reads of series (GET /series, each with its events) and tags (GET /tags), ordered by numeric id.

import { queryRows } from '../storage/clickhouse.js';
import { tableOf, type CatalogDb } from './catalogDb.js';
import { byNumericId, inOrder, linksFrom, objectsById } from './catalogObjects.js';
import { visibleEventIds, visibleSeriesIds, visibleTagIds } from './creatorScope.js';
import type { Page } from './marketQueries.js';
import { seriesForm, tagForm } from './shapes.js';
import { LIVE_ROW } from './store/tombstones.js';
import { SqlWhere } from './sqlWhere.js';
import type { GammaObject } from './upstream/gammaValues.js';

async function pageOfIds(catalog: CatalogDb, table: 'series' | 'tags', where: SqlWhere, page: Page): Promise<string[]> {
  where.add(LIVE_ROW);
  const limit = where.bind(page.limit, 'UInt32');
  const offset = where.bind(page.offset, 'UInt64');
  const rows = await queryRows<{ id: string }>(catalog.client, `SELECT id FROM ${tableOf(catalog, table)} FINAL ${where.sql} ORDER BY id_num, id LIMIT ${limit} OFFSET ${offset}`, where.params);
  return rows.map((r) => r.id);
}

/** GET /series: each series with its events (only those visible under `creator` when given). */
export async function listSeries(catalog: CatalogDb, page: Page, creator?: string): Promise<GammaObject[]> {
  const where = new SqlWhere();
  if (creator !== undefined) where.add(`id IN (${visibleSeriesIds(catalog, where, creator)})`);
  const ids = await pageOfIds(catalog, 'series', where, page);
  const [series, links] = await Promise.all([objectsById(catalog, 'series', ids), linksFrom(catalog, 'seriesEvents', 'series_id', 'event_id', ids)]);
  let eventIds = [...new Set([...links.values()].flat())];
  if (creator !== undefined && eventIds.length > 0) {
    const visible = new SqlWhere();
    const sql = `SELECT id FROM ${tableOf(catalog, 'events')} FINAL WHERE id IN ${visible.bind(eventIds, 'Array(String)')} AND id IN (${visibleEventIds(catalog, visible, creator)})`;
    eventIds = (await queryRows<{ id: string }>(catalog.client, sql, visible.params)).map((r) => r.id);
  }
  const events = await objectsById(catalog, 'events', eventIds);
  return inOrder(ids, series).map((s) => seriesForm(s, inOrder([...(links.get(s.id as string) ?? [])].sort(byNumericId), events)));
}

/** GET /tags. */
export async function listTags(catalog: CatalogDb, page: Page, creator?: string): Promise<GammaObject[]> {
  const where = new SqlWhere();
  if (creator !== undefined) where.add(`id IN (${visibleTagIds(catalog, where, creator)})`);
  const ids = await pageOfIds(catalog, 'tags', where, page);
  return inOrder(ids, await objectsById(catalog, 'tags', ids)).map(tagForm);
}
