// GET /public-search over the catalog. Semantics, decided here (the spec leaves them open):
// - the query is split on white space into terms (at most 8), matched case-insensitively as substrings;
// - an event matches when every term occurs in its title, ticker or slug, or every term occurs in the
//   question, group item title or slug of one of its markets;
// - events are ranked: every term in the title first, then open before closed, then by volume (highest
//   first), then by id; `page` and `limit_per_type` page through them; pagination counts events;
// - a tag matches when every term occurs in its label or slug; tags are ranked by event_count (its events,
//   visible under `creator` when given), then id, and paged like the events; under `creator`, tags with no
//   visible event are left out.
// - deleted objects (store/tombstones.ts) neither match nor count: an event does not match through a
//   deleted market, and a tag's event_count leaves deleted events out.

import { queryRows } from '../storage/clickhouse.js';
import { tableOf, type CatalogDb } from './catalogDb.js';
import { byNumericId } from './catalogObjects.js';
import { visibleEventIds } from './creatorScope.js';
import { SqlWhere } from './sqlWhere.js';
import { LIVE_ROW, liveRefSql } from './store/tombstones.js';

export const MAX_SEARCH_TERMS = 8;

export interface SearchRequest {
  readonly terms: readonly string[];
  readonly limit: number;
  /** 1-based. */
  readonly page: number;
  readonly searchTags: boolean;
  readonly creator?: string;
}

export interface SearchEvent {
  readonly id: string;
  readonly ticker: string;
  readonly slug: string;
  readonly title: string;
}

export interface SearchTag {
  readonly id: string;
  readonly label: string;
  readonly slug: string;
  readonly event_count: number;
}

export interface SearchResult {
  readonly events: SearchEvent[];
  readonly tags: SearchTag[];
  readonly totalEvents: number;
}

/** Lowercased terms of a query, at most MAX_SEARCH_TERMS. */
export function searchTerms(q: string): string[] {
  return q.toLowerCase().split(/\s+/).filter((t) => t !== '').slice(0, MAX_SEARCH_TERMS);
}

function allTermsIn(where: SqlWhere, column: string, terms: readonly string[]): string {
  return terms.map((t) => `position(${column}, ${where.bind(t, 'String')}) > 0`).join(' AND ');
}

function matchingEvents(catalog: CatalogDb, where: SqlWhere, request: SearchRequest): void {
  const markets = `SELECT id FROM ${tableOf(catalog, 'markets')} FINAL WHERE ${allTermsIn(where, 'search_text', request.terms)} AND ${LIVE_ROW}`;
  const viaMarkets = `SELECT event_id FROM ${tableOf(catalog, 'eventMarkets')} FINAL WHERE linked = 1 AND market_id IN (${markets})`;
  where.add(LIVE_ROW);
  where.add(`((${allTermsIn(where, 'search_text', request.terms)}) OR id IN (${viaMarkets}))`);
  if (request.creator !== undefined) where.add(`id IN (${visibleEventIds(catalog, where, request.creator)})`);
}

async function searchEvents(catalog: CatalogDb, request: SearchRequest): Promise<{ events: SearchEvent[]; total: number }> {
  const where = new SqlWhere();
  matchingEvents(catalog, where, request);
  const titleHit = request.terms.map((t) => `positionCaseInsensitiveUTF8(title, ${where.bind(t, 'String')}) > 0`).join(' AND ');
  const limit = where.bind(request.limit, 'UInt32');
  const offset = where.bind((request.page - 1) * request.limit, 'UInt64');
  // count() OVER () is the number of matches before LIMIT: the page and the total in one scan.
  const rows = await queryRows<SearchEvent & { total: string }>(
    catalog.client,
    `SELECT id, ticker, slug, title, count() OVER () AS total FROM ${tableOf(catalog, 'events')} FINAL ${where.sql}
     ORDER BY (${titleHit}) DESC, closed ASC, volume DESC NULLS LAST, id_num ASC, id ASC LIMIT ${limit} OFFSET ${offset}`,
    where.params,
  );
  let total = Number(rows[0]?.total ?? 0);
  if (rows.length === 0 && request.page > 1) {
    const count = await queryRows<{ n: string }>(catalog.client, `SELECT count() AS n FROM ${tableOf(catalog, 'events')} FINAL ${where.sql}`, where.params);
    total = Number(count[0]?.n ?? 0);
  }
  return { events: rows.map(({ id, ticker, slug, title }) => ({ id, ticker, slug, title })), total };
}

async function searchTags(catalog: CatalogDb, request: SearchRequest): Promise<SearchTag[]> {
  const where = new SqlWhere();
  const text = 'lower(concat(label, \' \', slug))';
  const tags = await queryRows<{ id: string; label: string; slug: string }>(
    catalog.client,
    `SELECT id, label, slug FROM ${tableOf(catalog, 'tags')} FINAL WHERE ${allTermsIn(where, text, request.terms)} AND ${LIVE_ROW}`,
    where.params,
  );
  if (tags.length === 0) return [];
  const counting = new SqlWhere();
  counting.add('linked = 1').add(`tag_id IN ${counting.bind(tags.map((t) => t.id), 'Array(String)')}`).add(liveRefSql(catalog, 'event', 'event_id'));
  if (request.creator !== undefined) counting.add(`event_id IN (${visibleEventIds(catalog, counting, request.creator)})`);
  const counts = await queryRows<{ tag_id: string; n: string }>(
    catalog.client,
    `SELECT tag_id, count() AS n FROM ${tableOf(catalog, 'eventTags')} FINAL ${counting.sql} GROUP BY tag_id`,
    counting.params,
  );
  const countOf = new Map(counts.map((c) => [c.tag_id, Number(c.n)]));
  return tags
    .map((t) => ({ id: t.id, label: t.label, slug: t.slug, event_count: countOf.get(t.id) ?? 0 }))
    .filter((t) => request.creator === undefined || t.event_count > 0)
    .sort((a, b) => b.event_count - a.event_count || byNumericId(a.id, b.id))
    .slice((request.page - 1) * request.limit, request.page * request.limit);
}

export async function searchCatalog(catalog: CatalogDb, request: SearchRequest): Promise<SearchResult> {
  const [events, tags] = await Promise.all([searchEvents(catalog, request), request.searchTags ? searchTags(catalog, request) : Promise.resolve([])]);
  return { events: events.events, tags, totalEvents: events.total };
}
