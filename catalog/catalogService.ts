// The catalog as a running part of the service: at start it applies the schema, loads the demo catalog on
// first start (when demoCatalog is on) and hands the catalog's order-book markets to the engine, and the
// pending consequences of deletions (handoff/deletionHandOff.ts); when an upstream is configured it syncs at
// once and then every catalogSyncIntervalSec (runs never overlap), handing each stored page's markets to the
// engine, reconciling with the upstream every catalogReconcileIntervalSec (sync/reconcile.ts) and, after
// every run, pausing deleted markets and resuming restored ones. close() stops the schedule and waits for a
// running sync, which it aborts (the next start resumes it from the saved state).

import type { Config } from '../config/index.js';
import type { ClickHouseClient } from '../storage/clickhouse.js';
import { prepareCatalog, type CatalogDb } from './catalogDb.js';
import { loadDemoCatalog, type DemoLoad } from './demo/loadDemoCatalog.js';
import { handOffCatalog } from './handoff/catalogHandOff.js';
import { handOffDeletions, type DeletionHandOffReport } from './handoff/deletionHandOff.js';
import { handOffMarkets, type CommandSink, type EngineMarketView, type HandOffReport } from './handoff/handOffMarkets.js';
import { silentProgress, type SyncProgress } from './sync/syncProgress.js';
import { runCatalogSync, type SyncReport } from './sync/syncWorker.js';

export type CatalogConfig = Pick<
  Config,
  'clickhouseDatabase' | 'catalogUpstreamUrl' | 'catalogSyncIntervalSec' | 'catalogReconcileIntervalSec' | 'catalogReconcileMaxDeletePercent' | 'demoCatalog'
>;

export interface CatalogServiceOptions {
  readonly client: ClickHouseClient;
  readonly config: CatalogConfig;
  /** The engine to hand markets to; without it the catalog only serves reads. */
  readonly engine?: { readonly host: CommandSink; readonly view: EngineMarketView };
  readonly progress?: SyncProgress;
  /** Failures of scheduled syncs and hand-offs (they are retried at the next interval). */
  readonly onError?: (error: Error) => void;
  readonly onSynced?: (report: SyncReport) => void;
  /** What the engine did about deletions after each run (pauses, resumptions). */
  readonly onDeletionHandOff?: (report: DeletionHandOffReport) => void;
}

export interface SyncNowOptions {
  /** Reconcile with the upstream in this run, whatever catalogReconcileIntervalSec says. */
  readonly reconcile?: boolean;
}

export interface CatalogService {
  readonly catalog: CatalogDb;
  readonly demo: DemoLoad | undefined;
  readonly startHandOff: HandOffReport | undefined;
  readonly startDeletionHandOff: DeletionHandOffReport | undefined;
  /** Runs one sync now (after a running one finishes); rejects when it fails. */
  syncNow(options?: SyncNowOptions): Promise<SyncReport>;
  close(): Promise<void>;
}

export async function startCatalogService(options: CatalogServiceOptions): Promise<CatalogService> {
  const { client, config, engine } = options;
  const catalog = await prepareCatalog(client, config.clickhouseDatabase);
  const demo = config.demoCatalog ? await loadDemoCatalog(client, config.clickhouseDatabase) : undefined;
  const startHandOff = engine === undefined ? undefined : await handOffCatalog(catalog, engine.host, engine.view);
  const startDeletionHandOff = engine === undefined ? undefined : await handOffDeletions(catalog, engine.host, engine.view);

  const abort = new AbortController();
  let running: Promise<SyncReport> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const runOnce = async (upstream: string, force: boolean): Promise<SyncReport> => {
    try {
      return await runCatalogSync({
        catalog,
        baseUrl: upstream,
        progress: options.progress ?? silentProgress,
        signal: abort.signal,
        reconcile: { intervalSec: config.catalogReconcileIntervalSec, maxDeleteFraction: config.catalogReconcileMaxDeletePercent / 100, force },
        onStored: async (_stream, result) => {
          if (engine !== undefined && result.storedMarkets.length > 0) await handOffMarkets(engine.host, engine.view, result.storedMarkets);
        },
      });
    } finally {
      // Also after a failed run: the pages it stored may have restored markets. Its own failure is reported,
      // not thrown over the run's outcome; the next run tries again.
      if (engine !== undefined && !abort.signal.aborted) {
        await handOffDeletions(catalog, engine.host, engine.view).then(
          (report) => options.onDeletionHandOff?.(report),
          (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error))),
        );
      }
    }
  };

  const sync = async (now: SyncNowOptions = {}): Promise<SyncReport> => {
    const upstream = config.catalogUpstreamUrl;
    if (upstream === undefined) throw new Error('no catalog upstream is configured (catalogUpstreamUrl)');
    await running?.catch(() => undefined);
    running = runOnce(upstream, now.reconcile === true);
    const report = await running;
    options.onSynced?.(report);
    return report;
  };

  const schedule = (delayMs: number): void => {
    if (closed || config.catalogUpstreamUrl === undefined) return;
    timer = setTimeout(() => {
      sync()
        .catch((error: unknown) => {
          if (!abort.signal.aborted) options.onError?.(error instanceof Error ? error : new Error(String(error)));
        })
        .finally(() => schedule(config.catalogSyncIntervalSec * 1000));
    }, delayMs);
    timer.unref();
  };
  schedule(0);

  return {
    catalog,
    demo,
    startHandOff,
    startDeletionHandOff,
    syncNow: (now) => sync(now),
    close: async () => {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      abort.abort(new Error('the catalog service is closing'));
      await running?.catch(() => undefined);
    },
  };
}
