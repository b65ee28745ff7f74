// Tombstones of catalog objects the upstream no longer lists (table catalog_deletions, see schema.ts).
//
// Contract:
// - One row per (kind, id), ReplacingMergeTree by `version`: the latest statement wins. A tombstone is
//   written by a complete reconciliation (sync/reconcile.ts) and lifted ("restored") by any later write of
//   the object, its own copy or a copy nested in another object (upsertCatalog.ts calls restoreSeen).
//   Rows are never removed, so the table is also the history (deleted_at, restored_at).
// - Versions come from one counter over the whole table: max(now in µs, highest version + 1), so a later
//   statement always wins, whatever the clock did.
// - The object's row carries a copy of the statement (`deleted`), so that reads (queries.ts, the hand-off to
//   the engine) filter with LIVE_ROW on the table they read anyway instead of a subquery on this one (which
//   cost 3 to 5 ms per request); a reference from a link table uses liveRefSql(). The copy is the row
//   itself rewritten with the same version and the flag changed (the later insert wins a version tie in a
//   ReplacingMergeTree): the object's content is untouched, so a restored object comes back as it was
//   stored. Any write of an object's row (upsertCatalog) has `deleted = 0`: writing it is seeing it.
// - Order of the two writes, so that a crash between them heals: a deletion writes the tombstone, then the
//   rows (the next reconciliation finds the row still live, and writes the rows again); a restoration writes
//   the rows, then the tombstone (the next sighting finds the tombstone still deleted, and restores again).
// - `engine` is the engine follow-up of a market's tombstone (done by handoff/deletionHandOff.ts):
//   'pause' = deleted, the engine market is to be paused if it is active; 'paused' = deleted, the hand-off
//   paused it; 'resume' = restored after the hand-off had paused it, it is to be resumed; '' = nothing.
//   The hand-off thus resumes only what the deletion paused (never a market an operator or a closing paused).

import { queryRows } from '../../storage/clickhouse.js';
import { tableOf, type CatalogDb } from '../catalogDb.js';
import type { CatalogKind } from '../upstream/gammaObjects.js';

export const CATALOG_KINDS: readonly CatalogKind[] = ['market', 'event', 'series', 'tag'];

export type CatalogResource = 'markets' | 'events' | 'series' | 'tags';

export const RESOURCE_OF_KIND: Readonly<Record<CatalogKind, CatalogResource>> = { market: 'markets', event: 'events', series: 'series', tag: 'tags' };
export const KIND_OF_RESOURCE: Readonly<Record<CatalogResource, CatalogKind>> = { markets: 'market', events: 'event', series: 'series', tags: 'tag' };

export type EngineFollowUp = '' | 'pause' | 'paused' | 'resume';

export interface Tombstone {
  readonly kind: CatalogKind;
  readonly id: string;
  /** The site whose reconciliation deleted the object. */
  readonly site: string;
  readonly deleted: boolean;
  /** 'YYYY-MM-DD hh:mm:ss.sss' (UTC) of the last deletion. */
  readonly deletedAt: string;
  /** Same form, when restored since; null while deleted. */
  readonly restoredAt: string | null;
  readonly engine: EngineFollowUp;
  readonly version: number;
}

export type KindIds = Readonly<Record<CatalogKind, readonly string[]>>;

export const noKindIds = (): Record<CatalogKind, string[]> => ({ market: [], event: [], series: [], tag: [] });

/** SQL condition on an object table (catalog_markets, _events, _series, _tags): the row's object is not deleted. */
export const LIVE_ROW = 'deleted = 0';

/** SQL selecting the ids of the deleted objects of one kind (kinds are constants, never request text). */
export function deletedIdsSql(catalog: CatalogDb, kind: CatalogKind): string {
  return `SELECT id FROM ${tableOf(catalog, 'deletions')} FINAL WHERE kind = '${kind}' AND deleted = 1`;
}

/** SQL condition on another table (a link table): `column` references an object of `kind` that is not deleted. */
export function liveRefSql(catalog: CatalogDb, kind: CatalogKind, column: string): string {
  return `${column} NOT IN (${deletedIdsSql(catalog, kind)})`;
}

/** Sets the `deleted` copy in the object rows (a row already in that state is not rewritten). */
export async function setRowsDeleted(catalog: CatalogDb, ids: Partial<KindIds>, deleted: boolean): Promise<void> {
  for (const kind of CATALOG_KINDS) {
    const list = ids[kind];
    if (list === undefined || list.length === 0) continue;
    const table = tableOf(catalog, RESOURCE_OF_KIND[kind]);
    await catalog.client.command({
      // The filter sits in a subquery: next to `REPLACE (… AS deleted)`, `deleted` would name the new value.
      query: `INSERT INTO ${table} SELECT * REPLACE (${deleted ? 1 : 0} AS deleted) FROM (SELECT * FROM ${table} FINAL WHERE id IN {ids:Array(String)} AND deleted = ${deleted ? 0 : 1})`,
      query_params: { ids: [...new Set(list)] },
    });
  }
}

export function timeText(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

interface TombstoneRow {
  kind: string;
  id: string;
  site: string;
  deleted: number;
  deleted_at: string;
  restored_at: string | null;
  engine: string;
  version: string;
}

const fromRow = (row: TombstoneRow): Tombstone => ({
  kind: row.kind as CatalogKind,
  id: row.id,
  site: row.site,
  deleted: Number(row.deleted) === 1,
  deletedAt: row.deleted_at,
  restoredAt: row.restored_at,
  engine: row.engine as EngineFollowUp,
  version: Number(row.version),
});

const COLUMNS = 'kind, id, site, deleted, deleted_at, restored_at, engine, version';

/** Current tombstones of the given objects (deleted ones only when `deletedOnly`). */
export async function tombstonesOf(catalog: CatalogDb, ids: Partial<KindIds>, deletedOnly: boolean): Promise<Tombstone[]> {
  const params: Record<string, unknown> = {};
  const parts: string[] = [];
  for (const kind of CATALOG_KINDS) {
    const list = ids[kind];
    if (list === undefined || list.length === 0) continue;
    params[kind] = [...new Set(list)];
    parts.push(`(kind = '${kind}' AND id IN {${kind}:Array(String)})`);
  }
  if (parts.length === 0) return [];
  const rows = await queryRows<TombstoneRow>(
    catalog.client,
    `SELECT ${COLUMNS} FROM ${tableOf(catalog, 'deletions')} FINAL WHERE (${parts.join(' OR ')})${deletedOnly ? ' AND deleted = 1' : ''}`,
    params,
  );
  return rows.map(fromRow);
}

/** Tombstones of markets whose engine follow-up is pending ('pause' or 'resume'). */
export async function pendingMarketTombstones(catalog: CatalogDb): Promise<Tombstone[]> {
  const rows = await queryRows<TombstoneRow>(catalog.client, `SELECT ${COLUMNS} FROM ${tableOf(catalog, 'deletions')} FINAL WHERE kind = 'market' AND engine IN ('pause', 'resume')`);
  return rows.map(fromRow);
}

async function nextVersion(catalog: CatalogDb, nowMs: number): Promise<number> {
  const rows = await queryRows<{ v: string }>(catalog.client, `SELECT max(version) AS v FROM ${tableOf(catalog, 'deletions')}`);
  return Math.max(Math.round(nowMs * 1000), Number(rows[0]?.v ?? 0) + 1);
}

/** Writes new statements about objects (each replaces the object's current one). */
export async function writeTombstones(catalog: CatalogDb, tombstones: readonly Omit<Tombstone, 'version'>[], nowMs: number): Promise<void> {
  if (tombstones.length === 0) return;
  const version = await nextVersion(catalog, nowMs);
  await catalog.client.insert({
    table: tableOf(catalog, 'deletions'),
    format: 'JSONEachRow',
    values: tombstones.map((t) => ({
      kind: t.kind,
      id: t.id,
      site: t.site,
      deleted: t.deleted ? 1 : 0,
      deleted_at: t.deletedAt,
      restored_at: t.restoredAt,
      engine: t.engine,
      version,
    })),
  });
}

/** Tombstones the given objects (already-deleted ones keep their tombstone); returns how many are new per kind. */
export async function deleteObjects(catalog: CatalogDb, site: string, ids: KindIds, nowMs: number): Promise<Record<CatalogKind, number>> {
  const previous = new Map((await tombstonesOf(catalog, ids, false)).map((t) => [`${t.kind}|${t.id}`, t]));
  const at = timeText(nowMs);
  const rows: Omit<Tombstone, 'version'>[] = [];
  const counts: Record<CatalogKind, number> = { market: 0, event: 0, series: 0, tag: 0 };
  for (const kind of CATALOG_KINDS) {
    for (const id of new Set(ids[kind])) {
      const before = previous.get(`${kind}|${id}`);
      if (before?.deleted === true) continue;
      // Restored but not yet resumed: the engine market is still paused by the earlier deletion.
      const engine: EngineFollowUp = kind !== 'market' ? '' : before?.engine === 'resume' ? 'paused' : 'pause';
      rows.push({ kind, id, site, deleted: true, deletedAt: at, restoredAt: null, engine });
      counts[kind] += 1;
    }
  }
  await writeTombstones(catalog, rows, nowMs);
  await setRowsDeleted(catalog, ids, true);
  return counts;
}

/** Lifts the tombstones of objects a write has just seen again; returns the restored ids per kind. */
export async function restoreSeen(catalog: CatalogDb, seen: Readonly<Record<CatalogKind, ReadonlySet<string>>>, nowMs: number): Promise<Record<CatalogKind, string[]>> {
  const restored = noKindIds();
  const ids = { market: [...seen.market], event: [...seen.event], series: [...seen.series], tag: [...seen.tag] };
  const deleted = await tombstonesOf(catalog, ids, true);
  if (deleted.length === 0) return restored;
  const at = timeText(nowMs);
  for (const t of deleted) restored[t.kind].push(t.id);
  await setRowsDeleted(catalog, restored, false);
  await writeTombstones(
    catalog,
    deleted.map((t) => ({ ...t, deleted: false, restoredAt: at, engine: t.engine === 'paused' ? 'resume' : '' })),
    nowMs,
  );
  return restored;
}
