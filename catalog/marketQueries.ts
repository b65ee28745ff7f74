// Reads of catalog markets: the list with filters and sorting (GET /markets) and one market by id,
// condition id or slug (GET /markets/{id}, /markets/slug/{slug}). Step 1 picks ids in SQL (filters, order,
// page); step 2 fetches those objects and their events by id.

import { queryRows } from '../storage/clickhouse.js';
import { tableOf, type CatalogDb } from './catalogDb.js';
import { byNumericId, inOrder, linksFrom, objectsById } from './catalogObjects.js';
import { visibleMarketIds } from './creatorScope.js';
import { LIVE_ROW, liveRefSql } from './store/tombstones.js';
import { marketListForm, marketSingleForm } from './shapes.js';
import { SqlWhere } from './sqlWhere.js';
import type { GammaObject } from './upstream/gammaValues.js';

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

/** Columns from sortColumns.ts (never user text) and the direction; empty columns = by id. */
export interface Sort {
  readonly columns: readonly string[];
  readonly ascending: boolean;
}

export interface MarketFilter {
  /** Market ids. */
  readonly ids?: readonly string[];
  readonly active?: boolean;
  readonly closed?: boolean;
  readonly archived?: boolean;
  readonly tagIds?: readonly string[];
  readonly tagSlugs?: readonly string[];
  readonly eventIds?: readonly string[];
  readonly eventSlugs?: readonly string[];
  readonly conditionIds?: readonly string[];
  readonly slugs?: readonly string[];
  readonly creator?: string;
}

export function orderBy(sort: Sort): string {
  const dir = sort.ascending ? 'ASC' : 'DESC';
  const columns = sort.columns.length === 0 ? ['id_num'] : sort.columns;
  const keys = columns.map((c) => `${c} ${dir} NULLS LAST`);
  const tieDir = columns.length === 1 && columns[0] === 'id_num' ? dir : 'ASC';
  return `ORDER BY ${keys.join(', ')}, id_num ${tieDir}, id ${tieDir}`;
}

export function flagConditions(where: SqlWhere, filter: { active?: boolean; closed?: boolean; archived?: boolean }): void {
  for (const key of ['active', 'closed', 'archived'] as const) {
    const value = filter[key];
    if (value !== undefined) where.add(`${key} = ${where.bind(value ? 1 : 0, 'UInt8')}`);
  }
}

/** SQL selecting the ids of events carrying any of the given tags (by id and/or slug, both must hold); deleted tags carry none. */
export function taggedEventIds(catalog: CatalogDb, where: SqlWhere, tagIds: readonly string[] | undefined, tagSlugs: readonly string[] | undefined): string[] {
  const out: string[] = [];
  const eventTags = tableOf(catalog, 'eventTags');
  if (tagIds !== undefined) out.push(`SELECT event_id FROM ${eventTags} FINAL WHERE linked = 1 AND tag_id IN ${where.bind(tagIds, 'Array(String)')} AND ${liveRefSql(catalog, 'tag', 'tag_id')}`);
  if (tagSlugs !== undefined) {
    const slugs = `SELECT id FROM ${tableOf(catalog, 'tags')} FINAL WHERE slug IN ${where.bind(tagSlugs, 'Array(String)')} AND ${LIVE_ROW}`;
    out.push(`SELECT event_id FROM ${eventTags} FINAL WHERE linked = 1 AND tag_id IN (${slugs})`);
  }
  return out;
}

function marketWhere(catalog: CatalogDb, filter: MarketFilter): SqlWhere {
  const where = new SqlWhere();
  where.add(LIVE_ROW);
  flagConditions(where, filter);
  if (filter.ids !== undefined) where.add(`id IN ${where.bind(filter.ids, 'Array(String)')}`);
  if (filter.slugs !== undefined) where.add(`slug IN ${where.bind(filter.slugs, 'Array(String)')}`);
  if (filter.conditionIds !== undefined) where.add(`condition_id IN ${where.bind(filter.conditionIds.map((c) => c.toLowerCase()), 'Array(String)')}`);
  if (filter.creator !== undefined) where.add(`id IN (${visibleMarketIds(catalog, where, filter.creator)})`);
  const eventSets: string[] = taggedEventIds(catalog, where, filter.tagIds, filter.tagSlugs);
  if (filter.eventIds !== undefined) eventSets.push(`SELECT arrayJoin(${where.bind(filter.eventIds, 'Array(String)')})`);
  if (filter.eventSlugs !== undefined) eventSets.push(`SELECT id FROM ${tableOf(catalog, 'events')} FINAL WHERE slug IN ${where.bind(filter.eventSlugs, 'Array(String)')}`);
  const eventMarkets = tableOf(catalog, 'eventMarkets');
  // A deleted event has no markets.
  for (const events of eventSets) where.add(`id IN (SELECT market_id FROM ${eventMarkets} FINAL WHERE linked = 1 AND event_id IN (${events}) AND ${liveRefSql(catalog, 'event', 'event_id')})`);
  return where;
}

/** Markets' events, each list ordered by event id. */
async function eventsOfMarkets(catalog: CatalogDb, marketIds: readonly string[], columns: 'summary' | 'full'): Promise<Map<string, GammaObject[]>> {
  const links = await linksFrom(catalog, 'eventMarkets', 'market_id', 'event_id', marketIds);
  const eventIds = [...new Set([...links.values()].flat())];
  let events: Map<string, GammaObject>;
  if (columns === 'full') {
    events = await objectsById(catalog, 'events', eventIds);
  } else {
    events = new Map();
    if (eventIds.length > 0) {
      const rows = await queryRows<GammaObject & { id: string }>(catalog.client, `SELECT id, ticker, slug, title FROM ${tableOf(catalog, 'events')} FINAL WHERE id IN {ids:Array(String)} AND ${LIVE_ROW}`, { ids: eventIds });
      for (const row of rows) events.set(row.id, row);
    }
  }
  const out = new Map<string, GammaObject[]>();
  for (const [marketId, ids] of links) out.set(marketId, inOrder([...ids].sort(byNumericId), events));
  return out;
}

/** GET /markets: list form. */
export async function listMarkets(catalog: CatalogDb, filter: MarketFilter, sort: Sort, page: Page): Promise<GammaObject[]> {
  const where = marketWhere(catalog, filter);
  const limit = where.bind(page.limit, 'UInt32');
  const offset = where.bind(page.offset, 'UInt64');
  const ids = (
    await queryRows<{ id: string }>(catalog.client, `SELECT id FROM ${tableOf(catalog, 'markets')} FINAL ${where.sql} ${orderBy(sort)} LIMIT ${limit} OFFSET ${offset}`, where.params)
  ).map((r) => r.id);
  const [markets, events] = await Promise.all([objectsById(catalog, 'markets', ids), eventsOfMarkets(catalog, ids, 'summary')]);
  return inOrder(ids, markets).map((m) => marketListForm(m, events.get(m.id as string) ?? []));
}

export type MarketKey = { readonly id: string } | { readonly conditionId: string } | { readonly slug: string };

/** GET /markets/{id} and /markets/slug/{slug}: single form, or undefined when absent, deleted or not visible. */
export async function findMarket(catalog: CatalogDb, key: MarketKey, creator?: string): Promise<GammaObject | undefined> {
  const where = new SqlWhere();
  where.add(LIVE_ROW);
  if ('id' in key) where.add(`id = ${where.bind(key.id, 'String')}`);
  else if ('conditionId' in key) where.add(`condition_id = ${where.bind(key.conditionId.toLowerCase(), 'String')}`);
  else where.add(`slug = ${where.bind(key.slug, 'String')}`);
  if (creator !== undefined) where.add(`id IN (${visibleMarketIds(catalog, where, creator)})`);
  const rows = await queryRows<{ id: string; json: string }>(catalog.client, `SELECT id, json FROM ${tableOf(catalog, 'markets')} FINAL ${where.sql} ORDER BY id_num, id LIMIT 1`, where.params);
  const row = rows[0];
  if (row === undefined) return undefined;
  const events = await eventsOfMarkets(catalog, [row.id], 'full');
  return marketSingleForm(JSON.parse(row.json) as GammaObject, events.get(row.id) ?? []);
}
