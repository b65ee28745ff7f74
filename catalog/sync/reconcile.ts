// Reconciliation: how the catalog learns that the upstream deleted an object, or stopped listing it. The
// incremental passes only ever see objects that changed, so an object that disappears is never seen again;
// a reconciliation lists everything the upstream has and tombstones (store/tombstones.ts) what it no longer
// lists. Contract:
//
// - When: in a sync run, after the usual passes, once `intervalSec` has passed since the start of the last
//   reconciliation of this upstream (`catalog_reconciliations`, so a restart does not reset the clock), or
//   when forced. Without any earlier one, the first run records a baseline instead (its own full passes have
//   just read everything), so the first reconciliation comes one interval later. intervalSec 0: only forced.
// - The pass: every stream of the run, from offset 0 to the end, oldest first (order=updatedAt&ascending=
//   true), pages overlapping by `overlap` (at least 1). Every page is stored like any other (so the pass also
//   repairs whatever the incremental passes missed) and handed to the engine. Not resumable: it keeps the
//   ids it saw in memory (tens of MB for a million objects), and a run that fails or stops mid-pass deletes
//   nothing; the next run starts the reconciliation again from offset 0.
// - Seen: an id in any page of the pass, as an object of its own or nested in another object (an event's
//   markets, a market's events, ...), or a bare id in a relation array. Only the pass's own pages count.
// - Continuity: objects that leave the list ahead of the pass's offset while it runs (deleted, or updated
//   and so moved to the end) shift the rest towards the start, and more than `overlap` of them between two
//   pages would make the page boundary skip objects that never went away. So each page must hold at least
//   one of the objects the page before ended with (those past the new offset); when none is there, the pass
//   steps back a page and reads again (at most 10 times per stream). When it cannot re-establish continuity,
//   it reads on to the end (storing as usual) but ends as 'incomplete' and deletes nothing.
// - Judged: the stored, not yet deleted objects of the kinds the run's streams list (markets, events,
//   series, tags), written by this upstream (column `site`, see creatorScope.ts): the demo catalog and
//   imported dumps are never deleted by an upstream's reconciliation. Missing = judged and not seen.
// - Guard: when the missing objects of any kind are more than `maxDeleteFraction` of that kind's judged
//   objects, nothing at all is deleted: the outcome is 'refused' (an upstream answering an empty page by
//   mistake must not wipe the catalog). It is recorded, reported (SyncReport, progress, counters) and counts
//   as a reconciliation for the interval; a fraction of 1 turns the guard off.
// - Otherwise every missing object gets a tombstone ('applied'); idempotent (a deleted object is not
//   deleted again). The engine side (pausing deleted order-book markets) is handoff/deletionHandOff.ts's.
// - Residual risk, accepted: an object that moves from a stream not yet read to one already read while the
//   pass runs (a closed market reopening during the pass) can be missed; it is tombstoned, and restored as
//   soon as any later page holds it again (at the latest, the next reconciliation).

import { queryRows } from '../../storage/clickhouse.js';
import { tableOf, type CatalogDb } from '../catalogDb.js';
import type { UpsertResult } from '../store/upsertCatalog.js';
import { CATALOG_KINDS, deleteObjects, KIND_OF_RESOURCE, LIVE_ROW, noKindIds, RESOURCE_OF_KIND, timeText } from '../store/tombstones.js';
import type { CatalogKind } from '../upstream/gammaObjects.js';
import { idOf, isObject } from '../upstream/gammaValues.js';
import type { SyncResource } from './syncMetrics.js';
import type { SyncProgress } from './syncProgress.js';

export interface ReconcileSettings {
  /** Seconds between reconciliations of one upstream; 0 = only when forced. */
  readonly intervalSec: number;
  /** The largest share (0..1] of a kind's objects one reconciliation may delete. */
  readonly maxDeleteFraction: number;
  /** Reconcile in this run, whatever the interval says. */
  readonly force?: boolean;
}

export type ReconcileOutcome = 'applied' | 'refused' | 'incomplete';

export type PerResource = Readonly<Record<SyncResource, number>>;

export interface ReconcileReport {
  readonly outcome: ReconcileOutcome;
  readonly startedAtMs: number;
  readonly durationMs: number;
  readonly pages: number;
  /** Distinct ids the pass saw, per resource. */
  readonly seen: PerResource;
  /** Stored objects of this upstream that the pass did not see. */
  readonly missing: PerResource;
  /** Tombstones written (0 unless applied). */
  readonly deleted: PerResource;
  readonly message: string;
}

/** A stream as the worker defines it (sync/syncWorker.ts). */
export interface ReconcileStream {
  readonly name: string;
  readonly resource: SyncResource;
  readonly params: Readonly<Record<string, string>>;
}

export interface ReconcileContext {
  readonly catalog: CatalogDb;
  /** The upstream base URL (the `source` of the records). */
  readonly source: string;
  /** Its site (the `site` of the objects it wrote). */
  readonly site: string;
  readonly streams: readonly ReconcileStream[];
  readonly pageSize: number;
  readonly overlap: number;
  readonly settings: ReconcileSettings;
  readonly progress: SyncProgress;
  readonly now: () => number;
  readonly signal?: AbortSignal;
  /** One page of a stream (with the worker's retries). */
  fetch(stream: ReconcileStream, params: Record<string, string>): Promise<unknown[]>;
  /** Stores a page like any other (upsert, engine hand-off, counters). */
  store(stream: ReconcileStream, page: readonly unknown[]): Promise<UpsertResult>;
}

const MAX_REWINDS = 10;

const zero = (): Record<SyncResource, number> => ({ markets: 0, events: 0, series: 0, tags: 0 });

function perResource(counts: Readonly<Record<CatalogKind, number>>): Record<SyncResource, number> {
  const out = zero();
  for (const kind of CATALOG_KINDS) out[RESOURCE_OF_KIND[kind]] = counts[kind];
  return out;
}

const percent = (n: number, of: number): string => `${Math.round((100 * n) / Math.max(1, of))}%`;

/** Start (ms) of the last reconciliation of `source` that did not fail, or of its baseline. */
export async function lastReconciliation(catalog: CatalogDb, source: string): Promise<number | undefined> {
  const rows = await queryRows<{ t: string; n: string }>(
    catalog.client,
    `SELECT toUnixTimestamp64Milli(max(started_at)) AS t, count() AS n FROM ${tableOf(catalog, 'reconciliations')} WHERE source = {source:String} AND outcome != 'failed'`,
    { source },
  );
  return Number(rows[0]?.n ?? 0) === 0 ? undefined : Number(rows[0]?.t);
}

export interface ReconciliationRecord {
  readonly source: string;
  readonly startedAtMs: number;
  readonly finishedAtMs: number;
  readonly outcome: ReconcileOutcome | 'baseline' | 'failed';
  readonly pages: number;
  readonly seen: PerResource;
  readonly missing: PerResource;
  readonly deleted: PerResource;
  readonly message: string;
}

async function record(catalog: CatalogDb, r: ReconciliationRecord): Promise<void> {
  await catalog.client.insert({
    table: tableOf(catalog, 'reconciliations'),
    format: 'JSONEachRow',
    values: [
      {
        source: r.source,
        started_at: timeText(r.startedAtMs),
        finished_at: timeText(r.finishedAtMs),
        outcome: r.outcome,
        pages: r.pages,
        seen: r.seen,
        missing: r.missing,
        deleted: r.deleted,
        message: r.message,
      },
    ],
  });
}

/** The reconciliations of `source`, oldest first (for people and tests). */
export async function reconciliations(catalog: CatalogDb, source: string): Promise<{ outcome: string; started_at: string; message: string; deleted: Record<string, string> }[]> {
  return queryRows(catalog.client, `SELECT outcome, started_at, message, deleted FROM ${tableOf(catalog, 'reconciliations')} WHERE source = {source:String} ORDER BY started_at, finished_at`, { source });
}

/** Whether this run reconciles; records the baseline when there is nothing to count from yet. */
export async function reconciliationDue(catalog: CatalogDb, source: string, settings: ReconcileSettings, nowMs: number): Promise<boolean> {
  if (settings.force === true) return true;
  if (settings.intervalSec <= 0) return false;
  const last = await lastReconciliation(catalog, source);
  if (last === undefined) {
    const none = zero();
    await record(catalog, { source, startedAtMs: nowMs, finishedAtMs: nowMs, outcome: 'baseline', pages: 0, seen: none, missing: none, deleted: none, message: 'first sync: the next reconciliation is one interval from here' });
    return false;
  }
  return nowMs - last >= settings.intervalSec * 1000;
}

function pageIds(page: readonly unknown[]): string[] {
  return page.flatMap((item) => {
    const id = isObject(item) ? idOf(item.id) : undefined;
    return id === undefined ? [] : [id];
  });
}

/** Reads one stream from start to end; false when continuity could not be kept. */
async function listStream(ctx: ReconcileContext, stream: ReconcileStream, seen: Record<CatalogKind, Set<string>>): Promise<{ pages: number; continuous: boolean }> {
  const k = Math.max(1, ctx.overlap);
  const started = ctx.now();
  let offset = 0;
  let longest = 0;
  let pages = 0;
  let rewinds = 0;
  let continuous = true;
  let tail: string[] = [];
  let stored = 0;
  for (;;) {
    ctx.signal?.throwIfAborted();
    const params = { ...stream.params, limit: String(ctx.pageSize), offset: String(offset), order: 'updatedAt', ascending: 'true' };
    const page = await ctx.fetch(stream, params);
    const result = await ctx.store(stream, page);
    for (const kind of CATALOG_KINDS) for (const id of result.seen[kind]) seen[kind].add(id);
    pages += 1;
    stored += result[stream.resource];
    longest = Math.max(longest, page.length);
    const ids = pageIds(page);
    ctx.progress.page({ stream: stream.name, phase: 'reconcile', offset, pageItems: page.length, runItems: stored, elapsedMs: ctx.now() - started });
    if (offset > 0 && tail.length > 0 && !tail.some((id) => ids.includes(id))) {
      if (rewinds < MAX_REWINDS) {
        rewinds += 1;
        offset = Math.max(0, offset - Math.max(1, longest - k));
        continue;
      }
      continuous = false;
    }
    if (page.length === 0 || page.length < longest) break;
    const step = Math.max(1, page.length - k);
    // The objects the next page must start with, unless the list moved under the pass.
    tail = pageIds(page.slice(step));
    offset += step;
  }
  ctx.progress.streamDone(`${stream.name} (reconcile)`, stored, ctx.now() - started);
  return { pages, continuous };
}

async function judgedIds(catalog: CatalogDb, kind: CatalogKind, site: string): Promise<string[]> {
  const table = tableOf(catalog, RESOURCE_OF_KIND[kind]);
  const rows = await queryRows<{ id: string }>(catalog.client, `SELECT id FROM ${table} FINAL WHERE site = {site:String} AND ${LIVE_ROW}`, { site });
  return rows.map((r) => r.id);
}

/** One reconciliation (see the contract above); throws when the pass fails, having deleted nothing. */
export async function reconcileCatalog(ctx: ReconcileContext): Promise<ReconcileReport> {
  const { catalog } = ctx;
  const startedAtMs = ctx.now();
  const seen: Record<CatalogKind, Set<string>> = { market: new Set(), event: new Set(), series: new Set(), tag: new Set() };
  let pages = 0;
  let continuous = true;
  try {
    for (const stream of ctx.streams) {
      const listed = await listStream(ctx, stream, seen);
      pages += listed.pages;
      continuous &&= listed.continuous;
    }
  } catch (error) {
    if (!(ctx.signal?.aborted ?? false)) {
      const none = zero();
      const message = `the pass failed, nothing deleted: ${(error as Error).message}`;
      await record(catalog, { source: ctx.source, startedAtMs, finishedAtMs: ctx.now(), outcome: 'failed', pages, seen: none, missing: none, deleted: none, message }).catch(() => undefined);
    }
    throw error;
  }

  const seenCounts = perResource({ market: seen.market.size, event: seen.event.size, series: seen.series.size, tag: seen.tag.size });
  const kinds = [...new Set(ctx.streams.map((s) => KIND_OF_RESOURCE[s.resource]))];
  const missing = noKindIds();
  const judged: Record<CatalogKind, number> = { market: 0, event: 0, series: 0, tag: 0 };
  let outcome: ReconcileOutcome;
  let message: string;
  let deleted: Record<CatalogKind, number> = { market: 0, event: 0, series: 0, tag: 0 };
  if (!continuous) {
    outcome = 'incomplete';
    message = 'incomplete: the upstream list shifted under the pass more than it could read again; nothing deleted';
  } else {
    for (const kind of kinds) {
      const ids = await judgedIds(catalog, kind, ctx.site);
      judged[kind] = ids.length;
      missing[kind] = ids.filter((id) => !seen[kind].has(id));
    }
    const over = kinds.filter((kind) => missing[kind].length > ctx.settings.maxDeleteFraction * judged[kind]);
    if (over.length > 0) {
      outcome = 'refused';
      const what = over.map((kind) => `${missing[kind].length} of ${judged[kind]} ${RESOURCE_OF_KIND[kind]} (${percent(missing[kind].length, judged[kind])})`).join(', ');
      message = `refused: it would delete ${what}, more than the limit of ${percent(ctx.settings.maxDeleteFraction, 1)}; nothing deleted`;
    } else {
      outcome = 'applied';
      deleted = await deleteObjects(catalog, ctx.site, missing, ctx.now());
      const total = CATALOG_KINDS.reduce((n, kind) => n + deleted[kind], 0);
      const named = CATALOG_KINDS.filter((k) => deleted[k] > 0).map((k) => `${deleted[k]} ${deleted[k] === 1 ? k : RESOURCE_OF_KIND[k]}`);
      message = total === 0 ? 'nothing missing' : `deleted ${named.join(', ')}`;
    }
  }
  const missingCounts = perResource({ market: missing.market.length, event: missing.event.length, series: missing.series.length, tag: missing.tag.length });
  const finishedAtMs = ctx.now();
  const report: ReconcileReport = { outcome, startedAtMs, durationMs: finishedAtMs - startedAtMs, pages, seen: seenCounts, missing: missingCounts, deleted: perResource(deleted), message };
  await record(catalog, { source: ctx.source, startedAtMs, finishedAtMs, outcome, pages, seen: report.seen, missing: report.missing, deleted: report.deleted, message });
  return report;
}
