// Counters of the catalog sync, kept per process. catalogSyncCounters() is the read side: a later issue
// exposes it through prom-client (names follow Prometheus conventions: *_total counters, gauges otherwise).

import type { ReconcileOutcome, ReconcileReport } from './reconcile.js';

export type SyncResource = 'markets' | 'events' | 'series' | 'tags';

export interface CatalogSyncCounters {
  readonly catalog_sync_runs_total: number;
  readonly catalog_sync_runs_failed_total: number;
  readonly catalog_sync_pages_total: number;
  /** Objects stored, per resource. */
  readonly catalog_sync_items_total: Readonly<Record<SyncResource, number>>;
  readonly catalog_sync_retries_total: number;
  /** 1 while a run is in progress. */
  readonly catalog_sync_running: number;
  /** Unix seconds of the end of the last successful run; 0 = never. */
  readonly catalog_sync_last_success_seconds: number;
  readonly catalog_sync_last_run_duration_seconds: number;
  /** Tombstones written by reconciliations (objects the upstream no longer lists), per resource. */
  readonly catalog_sync_deleted_total: Readonly<Record<SyncResource, number>>;
  /** Tombstones lifted because an object was seen again, per resource. */
  readonly catalog_sync_restored_total: Readonly<Record<SyncResource, number>>;
  /** Reconciliations by outcome ('failed': the pass did not complete). */
  readonly catalog_sync_reconciliations_total: Readonly<Record<ReconcileOutcome | 'failed', number>>;
  /** Unix seconds of the end of the last reconciliation that completed (applied, refused or incomplete); 0 = never. */
  readonly catalog_sync_last_reconciliation_seconds: number;
}

export class CatalogSyncMetrics {
  private runs = 0;
  private failed = 0;
  private pages = 0;
  private items: Record<SyncResource, number> = { markets: 0, events: 0, series: 0, tags: 0 };
  private retries = 0;
  private running = 0;
  private lastSuccess = 0;
  private lastDuration = 0;
  private deleted: Record<SyncResource, number> = { markets: 0, events: 0, series: 0, tags: 0 };
  private restoredItems: Record<SyncResource, number> = { markets: 0, events: 0, series: 0, tags: 0 };
  private reconciliations: Record<ReconcileOutcome | 'failed', number> = { applied: 0, refused: 0, incomplete: 0, failed: 0 };
  private lastReconciliation = 0;

  runStarted(): void {
    this.runs += 1;
    this.running += 1;
  }

  runEnded(ok: boolean, durationMs: number, nowMs: number): void {
    this.running = Math.max(0, this.running - 1);
    this.lastDuration = durationMs / 1000;
    if (ok) this.lastSuccess = nowMs / 1000;
    else this.failed += 1;
  }

  page(resource: SyncResource, items: number): void {
    this.pages += 1;
    this.items[resource] += items;
  }

  retry(): void {
    this.retries += 1;
  }

  restored(resource: SyncResource, items: number): void {
    this.restoredItems[resource] += items;
  }

  reconciled(report: ReconcileReport, nowMs: number): void {
    this.reconciliations[report.outcome] += 1;
    for (const resource of Object.keys(this.deleted) as SyncResource[]) this.deleted[resource] += report.deleted[resource];
    this.lastReconciliation = nowMs / 1000;
  }

  reconcileFailed(): void {
    this.reconciliations.failed += 1;
  }

  snapshot(): CatalogSyncCounters {
    return {
      catalog_sync_runs_total: this.runs,
      catalog_sync_runs_failed_total: this.failed,
      catalog_sync_pages_total: this.pages,
      catalog_sync_items_total: { ...this.items },
      catalog_sync_retries_total: this.retries,
      catalog_sync_running: this.running,
      catalog_sync_last_success_seconds: this.lastSuccess,
      catalog_sync_last_run_duration_seconds: this.lastDuration,
      catalog_sync_deleted_total: { ...this.deleted },
      catalog_sync_restored_total: { ...this.restoredItems },
      catalog_sync_reconciliations_total: { ...this.reconciliations },
      catalog_sync_last_reconciliation_seconds: this.lastReconciliation,
    };
  }
}

/** The process-wide counters every sync run updates unless given its own. */
export const processSyncMetrics = new CatalogSyncMetrics();

export function catalogSyncCounters(): CatalogSyncCounters {
  return processSyncMetrics.snapshot();
}
