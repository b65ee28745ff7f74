// Reads of catalog events: the list (GET /events) and one event by id or slug (GET /events/{id},
// /events/slug/{slug}), with their tags, and for the single form their markets and series.

import { queryRows } from '../storage/clickhouse.js';
import { tableOf, type CatalogDb } from './catalogDb.js';
import { byNumericId, inOrder, linksFrom, objectsById } from './catalogObjects.js';
import { normaliseCreator, visibleEventIds } from './creatorScope.js';
import { flagConditions, orderBy, taggedEventIds, type Page, type Sort } from './marketQueries.js';
import { eventListForm, eventSingleForm } from './shapes.js';
import { LIVE_ROW } from './store/tombstones.js';
import { SqlWhere } from './sqlWhere.js';
import type { GammaObject } from './upstream/gammaValues.js';

export interface EventFilter {
  /** Event ids. */
  readonly ids?: readonly string[];
  readonly active?: boolean;
  readonly closed?: boolean;
  readonly archived?: boolean;
  readonly tagIds?: readonly string[];
  readonly tagSlugs?: readonly string[];
  readonly seriesSlugs?: readonly string[];
  readonly slugs?: readonly string[];
  readonly creator?: string;
}

function eventWhere(catalog: CatalogDb, filter: EventFilter): SqlWhere {
  const where = new SqlWhere();
  where.add(LIVE_ROW);
  flagConditions(where, filter);
  if (filter.ids !== undefined) where.add(`id IN ${where.bind(filter.ids, 'Array(String)')}`);
  if (filter.slugs !== undefined) where.add(`slug IN ${where.bind(filter.slugs, 'Array(String)')}`);
  for (const tagged of taggedEventIds(catalog, where, filter.tagIds, filter.tagSlugs)) where.add(`id IN (${tagged})`);
  if (filter.seriesSlugs !== undefined) {
    const series = `SELECT id FROM ${tableOf(catalog, 'series')} FINAL WHERE slug IN ${where.bind(filter.seriesSlugs, 'Array(String)')} AND ${LIVE_ROW}`;
    where.add(`id IN (SELECT event_id FROM ${tableOf(catalog, 'seriesEvents')} FINAL WHERE linked = 1 AND series_id IN (${series}))`);
  }
  if (filter.creator !== undefined) where.add(`id IN (${visibleEventIds(catalog, where, filter.creator)})`);
  return where;
}

/** Tags of events, each list in the event's own order. */
export async function tagsOfEvents(catalog: CatalogDb, eventIds: readonly string[]): Promise<Map<string, GammaObject[]>> {
  const links = await linksFrom(catalog, 'eventTags', 'event_id', 'tag_id', eventIds);
  const tags = await objectsById(catalog, 'tags', [...links.values()].flat());
  const out = new Map<string, GammaObject[]>();
  for (const [eventId, ids] of links) out.set(eventId, inOrder(ids, tags));
  return out;
}

/** GET /events: list form. */
export async function listEvents(catalog: CatalogDb, filter: EventFilter, sort: Sort, page: Page): Promise<GammaObject[]> {
  const where = eventWhere(catalog, filter);
  const limit = where.bind(page.limit, 'UInt32');
  const offset = where.bind(page.offset, 'UInt64');
  const ids = (
    await queryRows<{ id: string }>(catalog.client, `SELECT id FROM ${tableOf(catalog, 'events')} FINAL ${where.sql} ${orderBy(sort)} LIMIT ${limit} OFFSET ${offset}`, where.params)
  ).map((r) => r.id);
  const [events, tags] = await Promise.all([objectsById(catalog, 'events', ids), tagsOfEvents(catalog, ids)]);
  return inOrder(ids, events).map((e) => eventListForm(e, tags.get(e.id as string) ?? []));
}

/** Markets of one event, by id, limited to those visible under `creator` when given. */
async function marketsOfEvent(catalog: CatalogDb, eventId: string, creator: string | undefined): Promise<GammaObject[]> {
  const ids = ((await linksFrom(catalog, 'eventMarkets', 'event_id', 'market_id', [eventId])).get(eventId) ?? []).sort(byNumericId);
  const markets = inOrder(ids, await objectsById(catalog, 'markets', ids));
  if (creator === undefined) return markets;
  const c = normaliseCreator(creator);
  const visible = await queryRows<{ id: string }>(
    catalog.client,
    `SELECT id FROM ${tableOf(catalog, 'markets')} FINAL WHERE id IN {ids:Array(String)} AND (creator = {c:String} OR site = {c:String})`,
    { ids, c },
  );
  const keep = new Set(visible.map((r) => r.id));
  return markets.filter((m) => keep.has(m.id as string));
}

export type EventKey = { readonly id: string } | { readonly slug: string };

/** GET /events/{id} and /events/slug/{slug}: single form, or undefined when absent, deleted or not visible. */
export async function findEvent(catalog: CatalogDb, key: EventKey, creator?: string): Promise<GammaObject | undefined> {
  const where = new SqlWhere();
  where.add(LIVE_ROW);
  if ('id' in key) where.add(`id = ${where.bind(key.id, 'String')}`);
  else where.add(`slug = ${where.bind(key.slug, 'String')}`);
  if (creator !== undefined) where.add(`id IN (${visibleEventIds(catalog, where, creator)})`);
  const rows = await queryRows<{ id: string; json: string }>(catalog.client, `SELECT id, json FROM ${tableOf(catalog, 'events')} FINAL ${where.sql} ORDER BY id_num, id LIMIT 1`, where.params);
  const row = rows[0];
  if (row === undefined) return undefined;
  const [tags, markets, seriesLinks] = await Promise.all([
    tagsOfEvents(catalog, [row.id]),
    marketsOfEvent(catalog, row.id, creator),
    linksFrom(catalog, 'seriesEvents', 'event_id', 'series_id', [row.id]),
  ]);
  const seriesIds = (seriesLinks.get(row.id) ?? []).sort(byNumericId);
  const series = inOrder(seriesIds, await objectsById(catalog, 'series', seriesIds));
  return eventSingleForm(JSON.parse(row.json) as GammaObject, tags.get(row.id) ?? [], markets, series);
}
