// The catalog sync: pulls tags, series, events and markets from a Gamma-shaped upstream into the catalog
// tables, page by page, saving where each stream stands after every stored page.
//
// Streams: the upstream lists only open markets and events unless asked for closed ones (`closed` defaults
// to false there), so markets and events are each synced as two streams, closed=false and closed=true. An
// upstream that ignores the parameter just serves the same objects twice (harmless: writes are idempotent).
//
// Passes, per stream:
// - full (until the first one completes): order=updatedAt&ascending=true, offset paging. Consecutive full
//   pages overlap by `overlap` objects, so an object that moves to the end (because it was updated during
//   the pass) shifts the rest by one without a page boundary skipping anything.
// - incremental (after): order=updatedAt&ascending=false from offset 0, until a page reaches objects older
//   than the watermark (the latest updatedAt a completed pass has seen) or the end. Updates during the pass
//   move objects towards the front, which can only repeat objects, never skip them. If the upstream turns
//   out not to sort by updatedAt (a page out of order), the stream falls back to a full pass.
// A pass ends on an empty page, or on a page shorter than the longest one of the pass (an upstream may cap
// `limit` below what was asked, so a short first page proves nothing).
//
// Failure: each page is retried with backoff (upstreamClient.ts); when the retries run out the run stops
// with the error, and the next run resumes from the saved state. Writes are idempotent, so a page stored
// twice (crash between storing and saving the state) does no harm.
//
// Deletions upstream: after the streams, a run may reconcile (reconcile.ts: a complete pass that tombstones
// what the upstream no longer lists); any stored page restores the objects it holds (upsertCatalog.ts).

import type { CatalogDb } from '../catalogDb.js';
import { upsertCatalog, type UpsertResult } from '../store/upsertCatalog.js';
import { CATALOG_KINDS, RESOURCE_OF_KIND } from '../store/tombstones.js';
import { microsOf, isObject } from '../upstream/gammaValues.js';
import { loadStreamState, saveStreamState, type StreamState } from './syncState.js';
import { processSyncMetrics, type CatalogSyncMetrics, type SyncResource } from './syncMetrics.js';
import { silentProgress, type SyncProgress } from './syncProgress.js';
import { fetchPage, type RetryPolicy } from './upstreamClient.js';
import { reconcileCatalog, reconciliationDue, type PerResource, type ReconcileReport, type ReconcileSettings } from './reconcile.js';

export interface SyncStream {
  readonly name: string;
  readonly resource: SyncResource;
  readonly params: Readonly<Record<string, string>>;
}

export const SYNC_STREAMS: readonly SyncStream[] = [
  { name: 'tags', resource: 'tags', params: {} },
  { name: 'series', resource: 'series', params: {} },
  { name: 'events:open', resource: 'events', params: { closed: 'false' } },
  { name: 'events:closed', resource: 'events', params: { closed: 'true' } },
  { name: 'markets:open', resource: 'markets', params: { closed: 'false' } },
  { name: 'markets:closed', resource: 'markets', params: { closed: 'true' } },
];

export interface SyncOptions {
  readonly catalog: CatalogDb;
  readonly baseUrl: string;
  /** Objects asked for per page (default 500). */
  readonly pageSize?: number;
  /** Objects repeated between consecutive full-pass pages (default 5). */
  readonly overlap?: number;
  readonly streams?: readonly SyncStream[];
  readonly retry?: Partial<RetryPolicy>;
  readonly progress?: SyncProgress;
  readonly metrics?: CatalogSyncMetrics;
  readonly signal?: AbortSignal;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Called after each stored page (the service hands changed markets to the engine from here). */
  readonly onStored?: (stream: SyncStream, result: UpsertResult) => Promise<void> | void;
  readonly now?: () => number;
  /** Reconciliation with the upstream (reconcile.ts); absent = never. */
  readonly reconcile?: ReconcileSettings;
}

export interface StreamReport {
  readonly stream: string;
  readonly pages: number;
  readonly items: number;
  readonly state: StreamState;
}

export interface SyncReport {
  readonly streams: readonly StreamReport[];
  readonly items: number;
  readonly pages: number;
  readonly durationMs: number;
  /** Objects tombstoned by this run's reconciliation, per resource. */
  readonly deleted: PerResource;
  /** Tombstones this run lifted (objects seen again), per resource. */
  readonly restored: PerResource;
  /** Present when the run reconciled. */
  readonly reconciliation?: ReconcileReport;
}

/** The site id of markets synced from an upstream: its host (see creatorScope.ts). */
export function siteOfUpstream(baseUrl: string): string {
  return new URL(baseUrl).host.toLowerCase();
}

const updatedMicros = (items: readonly unknown[]): number[] =>
  items.flatMap((item) => {
    const micros = isObject(item) ? microsOf(item.updatedAt) : undefined;
    return micros === undefined ? [] : [micros];
  });

const isDescending = (times: readonly number[]): boolean => times.every((t, i) => i === 0 || t <= (times[i - 1] as number));

interface RunContext {
  readonly metrics: CatalogSyncMetrics;
  readonly progress: SyncProgress;
  readonly restored: Record<SyncResource, number>;
}

async function fetchStreamPage(options: SyncOptions, stream: SyncStream, params: Record<string, string>, run: RunContext): Promise<unknown[]> {
  return fetchPage(
    {
      baseUrl: options.baseUrl,
      retry: options.retry,
      signal: options.signal,
      sleep: options.sleep,
      onRetry: ({ attempt, delayMs, error }) => {
        run.metrics.retry();
        run.progress.retry(stream.name, attempt, delayMs, error);
      },
    },
    stream.resource,
    params,
  );
}

/** Stores one page, hands it on (onStored) and counts it. */
async function storePage(options: SyncOptions, stream: SyncStream, page: readonly unknown[], run: RunContext): Promise<UpsertResult> {
  const result = await upsertCatalog(options.catalog, { [stream.resource]: page }, siteOfUpstream(options.baseUrl), { now: options.now });
  await options.onStored?.(stream, result);
  run.metrics.page(stream.resource, result[stream.resource]);
  for (const kind of CATALOG_KINDS) {
    const n = result.restored[kind].length;
    if (n === 0) continue;
    run.restored[RESOURCE_OF_KIND[kind]] += n;
    run.metrics.restored(RESOURCE_OF_KIND[kind], n);
  }
  return result;
}

async function syncStream(options: SyncOptions, stream: SyncStream, run: RunContext): Promise<StreamReport> {
  const { progress } = run;
  const { catalog, baseUrl } = options;
  const now = options.now ?? Date.now;
  const pageSize = options.pageSize ?? 500;
  const overlap = overlapOf(options, pageSize);
  const started = now();
  let state = await loadStreamState(catalog, baseUrl, stream.name);
  let pages = 0;
  let items = 0;
  let longest = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const incremental = state.phase === 'incremental';
    const params = { ...stream.params, limit: String(pageSize), offset: String(state.nextOffset), order: 'updatedAt', ascending: incremental ? 'false' : 'true' };
    const page = await fetchStreamPage(options, stream, params, run);
    const stored = (await storePage(options, stream, page, run))[stream.resource];
    pages += 1;
    items += stored;
    longest = Math.max(longest, page.length);
    const times = updatedMicros(page);
    const passMax = Math.max(state.passMax, ...times);
    const ended = page.length === 0 || page.length < longest;
    let next: Omit<StreamState, 'version' | 'items'>;
    let done: boolean;
    if (!incremental) {
      done = ended;
      next = ended
        ? { ...state, phase: 'incremental', nextOffset: 0, watermark: Math.max(state.watermark, passMax), passMax: -1, fullPasses: state.fullPasses + 1 }
        : { ...state, nextOffset: state.nextOffset + Math.max(1, page.length - overlap), passMax };
    } else if (!isDescending(times)) {
      done = false;
      next = { ...state, phase: 'full', nextOffset: 0, passMax: -1 };
    } else {
      done = ended || times.some((t) => t < state.watermark);
      next = done ? { ...state, nextOffset: 0, watermark: Math.max(state.watermark, passMax), passMax: -1 } : { ...state, nextOffset: state.nextOffset + page.length, passMax };
    }
    state = await saveStreamState(catalog, { ...next, items: state.items + stored, version: state.version });
    progress.page({ stream: stream.name, phase: state.phase, offset: state.nextOffset, pageItems: page.length, runItems: items, elapsedMs: now() - started });
    if (done) break;
  }
  progress.streamDone(stream.name, items, now() - started);
  return { stream: stream.name, pages, items, state };
}

function overlapOf(options: SyncOptions, pageSize: number): number {
  return Math.max(0, Math.min(options.overlap ?? 5, Math.floor(pageSize / 2)));
}

async function reconcile(options: SyncOptions, streams: readonly SyncStream[], run: RunContext): Promise<ReconcileReport> {
  const now = options.now ?? Date.now;
  const pageSize = options.pageSize ?? 500;
  try {
    return await reconcileCatalog({
      catalog: options.catalog,
      source: options.baseUrl,
      site: siteOfUpstream(options.baseUrl),
      streams,
      pageSize,
      overlap: overlapOf(options, pageSize),
      settings: options.reconcile as ReconcileSettings,
      progress: run.progress,
      now,
      signal: options.signal,
      fetch: (stream, params) => fetchStreamPage(options, stream, params, run),
      store: (stream, page) => storePage(options, stream, page, run),
    });
  } catch (error) {
    if (!(options.signal?.aborted ?? false)) run.metrics.reconcileFailed();
    throw error;
  }
}

/** Runs every stream once (each resumes from its saved state), then reconciles when due; throws when a stream or the reconciliation fails for good. */
export async function runCatalogSync(options: SyncOptions): Promise<SyncReport> {
  const metrics = options.metrics ?? processSyncMetrics;
  const progress = options.progress ?? silentProgress;
  const now = options.now ?? Date.now;
  const started = now();
  metrics.runStarted();
  const run: RunContext = { metrics, progress, restored: { markets: 0, events: 0, series: 0, tags: 0 } };
  const streams = options.streams ?? SYNC_STREAMS;
  const reports: StreamReport[] = [];
  let reconciliation: ReconcileReport | undefined;
  try {
    for (const stream of streams) reports.push(await syncStream(options, stream, run));
    if (options.reconcile !== undefined && (await reconciliationDue(options.catalog, options.baseUrl, options.reconcile, started))) {
      reconciliation = await reconcile(options, streams, run);
      metrics.reconciled(reconciliation, now());
      progress.reconciled?.(reconciliation);
    }
  } catch (error) {
    metrics.runEnded(false, now() - started, now());
    throw error;
  }
  const durationMs = now() - started;
  metrics.runEnded(true, durationMs, now());
  const items = reports.reduce((n, r) => n + r.items, 0);
  progress.runDone(items, durationMs);
  const deleted = reconciliation?.deleted ?? { markets: 0, events: 0, series: 0, tags: 0 };
  return { streams: reports, items, pages: reports.reduce((n, r) => n + r.pages, 0), durationMs, deleted, restored: { ...run.restored }, reconciliation };
}
