// The whole service in one process (the embedded default of `npm start`): the engine host on its event log,
// the projector into ClickHouse following the same log, the catalog (demo data or an upstream sync) handing
// markets to the engine, and the HTTP server with every surface, behind the header edge on the public port
// (front.ts). close() is the graceful shutdown: stop accepting connections (the edge first, then
// uWS), let requests in flight finish, stop the catalog sync, let the projector catch up with the durable
// log, write the engine's final snapshot, and close the log and ClickHouse.

import { join } from 'node:path';
import type { Logger } from 'pino';
import { liveStateOptionsOf, projectionIntervalOf, projectionLagBudgetOf, projectionLightLoadOf, type Config } from '../config/index.js';
import type { EngineHost } from '../host/engineHost.js';
import type { LogRecord } from '../log/eventLog.js';
import { startEngineService, type EngineService } from '../host/engineService.js';
import { Projector } from '../projections/projector.js';
import { ProjectorThread } from '../projections/projectorThread.js';
import { Journal } from '../log/journal/journal.js';
import type { ProjectionProgress } from '../api/trading/tradingDeps.js';
import { projectorReaches } from '../api/trading/readYourWrites.js';
import { LiveReadModel } from '../projections/live/liveReadModel.js';
import { NotificationStore } from '../projections/notifications/notificationStore.js';
import { NotificationSnapshots } from '../projections/notifications/notificationSnapshots.js';
import type { ReadContext } from '../projections/readModel/index.js';
import { chdbPathOf, openClickHouse, type ClickHouseClient } from '../storage/clickhouse.js';
import { startClickHouseHttp, type ClickHouseHttpServer, type ClickHouseHttpUser } from '../api/clickhouseHttp/clickhouseHttpServer.js';
import { startCatalogService, type CatalogService } from '../catalog/catalogService.js';
import { MarketIndex } from '../catalog/marketIndex.js';
import type { HttpServer } from '../api/http/httpServer.js';
import type { HeaderEdge } from '../api/http/headerEdge.js';
import { loadUws } from '../api/http/uwsLoader.js';
import { DurableFollower } from '../log/durableFollower.js';
import { ServiceMetrics } from './metrics.js';
import { keepForeignThreadsNiced } from './processPriority.js';
import { watchChainAffinity, type ChainAffinity } from './chainAffinity.js';
import type { DemoTraders } from '../demo/demoTraders.js';
import { startDemoTradersThread } from '../demo/demoThread.js';
import { LateFanout, startFront } from './front.js';
import { StreamPublisher } from '../api/ws/streamPublisher.js';
import { startHeapTrim, type HeapTrim } from '../threads/heapTrim.js';
import { threadHeaps, type ThreadHeap } from '../threads/threadHeaps.js';
import type { WsServer } from '../api/ws/wsServer.js';

/** Demo traders run with --demo-traders on the demo catalog only: never when an upstream catalog is set. */
export function demoTradersWanted(config: Config): boolean {
  return config.demoTraders && config.demoCatalog && config.catalogUpstreamUrl === undefined;
}
export interface ServiceHooks {
  /** An already open ClickHouse client (tests share one chDB per process); the service does not close it. */
  readonly clickhouse?: ClickHouseClient;
  readonly clock?: () => number;
  /**
   * The engine host's clock (stamps each command's time), when it must differ from `clock` (the API's): tests
   * of decisions that two clocks could disagree on. Default: `clock`.
   */
  readonly engineClock?: () => number;
  /** Told of each durable batch before it is published to WebSocket subscribers (benchmarks time delivery from here). */
  readonly onDurable?: (records: readonly LogRecord[]) => void;
  /** Told of each durable batch once it is published to WebSocket subscribers (benchmarks time the publisher's work). */
  readonly onPublished?: (records: readonly LogRecord[]) => void;
  /** The service can no longer serve (the header edge's thread died); the caller should close it. */
  readonly onFatal?: (error: Error) => void;
}

export interface RunningService {
  readonly config: Config;
  readonly port: number;
  readonly uwsNative: boolean;
  readonly engine: EngineHost;
  readonly engineService: EngineService;
  readonly projector: ServiceProjector;
  readonly catalog: CatalogService;
  readonly markets: MarketIndex;
  readonly reads: ReadContext;
  /** The in-memory read model; undefined with --live-reads false. */
  readonly live: LiveReadModel | undefined;
  /** The notifications (projections/notifications/). */
  readonly notifications: NotificationStore;
  readonly ch: ClickHouseClient;
  readonly http: HttpServer;
  /** The header edge on the public port; undefined with --header-edge false. */
  readonly edge: HeaderEdge | undefined;
  /** Where the order path's threads run (server/chainAffinity.ts); undefined with --chain-affinity false. */
  readonly chainAffinity: Pick<ChainAffinity, 'placement' | 'moves'> | undefined;
  readonly metrics: ServiceMetrics;
  /** The demo traders, when they run (demoTradersWanted). */
  readonly demo: DemoTraders | undefined;
  /** The embedded ClickHouse over ClickHouse's HTTP interface; undefined unless --clickhouse-http-port is set. */
  readonly clickhouseHttp: ClickHouseHttpServer | undefined;
  /** The market and user WebSocket channels (on the public port). */
  readonly ws: WsServer;
  /** The port serving only the WebSocket channels, straight from uWS (--ws-port); undefined when unset. */
  readonly wsPort: number | undefined;
  readonly publisher: StreamPublisher;
  close(): Promise<void>;
}

/** The projector as the service runs it: on its own thread (projections/projectorThread.ts) or on this one. */
export interface ServiceProjector extends ProjectionProgress {
  /** Starts projecting (after the read model restored itself as of `position`). */
  run(): void;
  /** Projects up to `to`, records the progress and stops. */
  stop(to: number): Promise<void>;
}

/**
 * The main thread's light-load collections (threads/heapTrim.ts) at --heap-trim-seconds, for the whole service
 * and for each role's process (main.ts); none where gc is not exposed (in-process tests), which is logged.
 */
export function startMainThreadHeapTrim(config: Config, logger: Logger): HeapTrim | undefined {
  const heapTrim = startHeapTrim({ intervalMs: config.heapTrimSeconds * 1000 });
  if (config.heapTrimSeconds > 0 && heapTrim === undefined) logger.info('heap trim off: the process runs without --expose-gc');
  return heapTrim;
}

export async function startService(config: Config, logger: Logger, hooks: ServiceHooks = {}): Promise<RunningService> {
  const clock = hooks.clock ?? Date.now;
  const uws = loadUws(config.allowSlowUws);
  if (!uws.native) logger.warn('uWebSockets.js runs on its slow JavaScript fallback (--allow-slow-uws)');

  const metrics = new ServiceMetrics();
  // The consumers of the durable records, on the one follower (log/durableFollower.ts), in this order: the
  // in-memory read model (projections/live/), the notifications (projections/notifications/), the WebSocket publisher (which takes the creation time of an
  // order open since before start-up from the read model, or without it from the projector's open orders, as
  // they stood before the batch), then the projector's hand-over (it builds the records at once between its
  // commits, and reads the log for whatever it was not handed: the records made durable before it existed, or
  // after it fell behind). They are built after the engine; until then their registrations pass the batches by.
  const late: { projector?: Projector; projectorThread?: ProjectorThread; live?: LiveReadModel; notifications?: NotificationStore; publisher?: StreamPublisher; markets?: MarketIndex } = {};
  const follower = new DurableFollower((consumer, error) => logger.error({ err: error, consumer }, 'a consumer of the durable records failed'));
  follower.register({ name: 'read model', accept: (records) => late.live?.offer(records), deferredSeconds: () => late.live?.deferredSeconds ?? 0 });
  follower.register({ name: 'notifications', accept: (records) => late.notifications?.offer(records), deferredSeconds: () => late.notifications?.deferredSeconds ?? 0 });
  if (hooks.onDurable !== undefined) follower.register({ name: 'durable hook', accept: hooks.onDurable });
  follower.register({ name: 'WebSocket publisher', accept: (records) => late.publisher?.publish(records) });
  if (hooks.onPublished !== undefined) follower.register({ name: 'published hook', accept: hooks.onPublished });
  // The projector on the request thread is handed the records; on its own thread it is told the durable end
  // (an atomic store) and reads them from the journal.
  follower.register({
    name: 'projector',
    accept: (records) => {
      late.projector?.offer(records);
      const last = records[records.length - 1];
      if (last !== undefined) late.projectorThread?.durable(last.pos);
    },
  });
  metrics.watchFollower(follower);
  const engineService = await startEngineService(config, {
    clock: hooks.engineClock ?? clock,
    onProgress: (p) => logger.debug({ recovery: p }, 'engine recovery'),
    onDurable: (records) => follower.offer(records),
    onStop: (error) => logger.fatal({ err: error }, 'engine stopped: the event log failed for good'),
    onSnapshotError: (error) => logger.error({ err: error }, 'engine snapshot failed'),
  });
  const host = engineService.host;
  logger.info({ pos: engineService.recovery.pos, seq: host.engine.seq }, 'engine recovered');
  // Built now, while the engine holds exactly the recovered (durable) state and nothing else submits yet;
  // uWS's fan-out is plugged in once the front exists (nobody can subscribe before).
  const fanout = new LateFanout();
  const publisher = new StreamPublisher({
    engine: host.engine,
    fanout,
    catalog: (conditionId) => late.markets?.get(conditionId),
    clock,
    // Orders the publisher starts following from the engine (a key's first user connection, a market's first
    // subscriber): the engine keeps no creation time or trades; the in-memory read model holds every open
    // order's (creation times never change, even after it stopped following the log), the projector's state
    // the creation time (with --live-reads false). Trades only from a model still following the log.
    knownOrder: (orderId) => {
      const o = late.live?.knownOrder(orderId);
      if (o !== undefined) return o;
      const createdAt = late.projector?.openOrderCreatedAt(orderId);
      return createdAt === undefined ? undefined : { createdAt };
    },
    onApiKeyDeleted: (apiKey) => fanout.keyDeleted?.(apiKey),
  });
  late.publisher = publisher;

  const ownsClickHouse = hooks.clickhouse === undefined;
  const ch =
    hooks.clickhouse ??
    (await openClickHouse({ mode: config.clickhouseMode, dataDir: config.dataDir, url: config.clickhouseUrl, user: config.clickhouseUser, password: config.clickhousePassword, database: config.clickhouseDatabase }));
  const db = config.clickhouseDatabase;
  if (!ownsClickHouse) await ch.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });

  // Analysts' queries wait for the projector to reach what was acknowledged (the projector starts below).
  const projected: { projector?: ServiceProjector } = {};
  const analystsCaughtUp = async (): Promise<void> => {
    await projectorReaches(projected.projector, host.position, ANALYST_WAIT_MS);
  };
  const clickhouseHttp = config.clickhouseHttpPort === undefined ? undefined : await startClickHouseEndpoint(config, ch, logger, analystsCaughtUp);

  const projectorOptions = { feeAccount: config.feeAccount, minIntervalMs: projectionIntervalOf(config), lightLoad: projectionLightLoadOf(config), lagBudgetMs: projectionLagBudgetOf(config), bookHistoryRetentionDays: config.bookHistoryRetentionDays };
  const log = engineService.log;
  let projector: ServiceProjector;
  if (config.projectorThread && config.liveReads && log instanceof Journal) {
    const thread = ProjectorThread.launch({
      client: ch,
      db,
      journalDir: log.dir,
      durableEnd: log.lastPos,
      options: projectorOptions,
      onFailure: (error) => logger.error({ err: error }, 'projector stopped'),
    });
    late.projectorThread = thread;
    await thread.ready;
    projector = {
      get position() {
        return thread.position;
      },
      waitFor: (pos, timeoutMs) => thread.waitFor(pos, timeoutMs),
      run: () => thread.run(),
      stop: (to) => thread.stop(to),
    };
  } else {
    const onMain = new Projector(ch, db, log, projectorOptions);
    late.projector = onMain;
    await onMain.start();
    const stopRun = new AbortController();
    let running: Promise<void> | undefined;
    projector = {
      get position() {
        return onMain.position;
      },
      waitFor: (pos, timeoutMs) => onMain.waitFor(pos, timeoutMs),
      run: () => {
        running ??= onMain.run(stopRun.signal).catch((error: unknown) => logger.error({ err: error }, 'projector stopped'));
      },
      stop: async (to) => {
        try {
          await onMain.catchUpTo(log, to);
        } finally {
          stopRun.abort();
          await running;
        }
      },
    };
  }
  projected.projector = projector;
  // Restored as of the projector's committed position before the projector writes anything newer.
  const live = config.liveReads
    ? new LiveReadModel(engineService.log, {
        ...liveStateOptionsOf(config),
        onFailure: (error) => logger.error({ err: error }, 'the in-memory read model stopped; its reads go to ClickHouse'),
      })
    : undefined;
  late.live = live;
  await live?.start(ch, db, projector.position);
  // From its own newest snapshot in the data directory and the log after it (the whole log without one).
  const notifications = new NotificationStore(engineService.log, {
    snapshots: new NotificationSnapshots(join(config.dataDir, 'notifications')),
    // Taken from a copy beside the engine's on the snapshot thread: never serialised on the order path.
    copy: engineService.snapshots,
    onSnapshotError: (error) => logger.error({ err: error }, 'notifications snapshot failed'),
    onFailure: (error) => logger.error({ err: error }, 'the notifications stopped; GET /notifications answers 503'),
  });
  late.notifications = notifications;
  const notificationsStart = await notifications.start();
  for (const reason of notificationsStart.skipped) logger.warn({ reason }, 'notifications snapshot skipped');
  logger.info({ snapshotPos: notificationsStart.snapshotPos, pos: notifications.position }, 'notifications restored');
  projector.run();
  // The embedded ClickHouse's threads below the order path's (--clickhouse-nice); its pools exist by now and
  // the threads they add later are set within a second.
  const clickhouseNice = config.clickhouseMode === 'embedded' && config.clickhouseNice > 0 ? keepForeignThreadsNiced(config.clickhouseNice, (error) => logger.warn({ err: error }, 'the embedded ClickHouse threads keep their CPU priority')) : undefined;

  const markets = new MarketIndex(ch, db);
  late.markets = markets;
  const catalog = await startCatalogService({
    client: ch,
    config,
    engine: { host, view: host.engine },
    onError: (error) => logger.error({ err: error }, 'catalog sync failed'),
    onSynced: (report) => {
      metrics.catalogSynced(report);
      const reconciled = report.reconciliation;
      if (reconciled?.outcome === 'applied') logger.info({ deleted: reconciled.deleted, restored: report.restored }, `catalog reconciled: ${reconciled.message}`);
      else if (reconciled !== undefined) logger.warn({ outcome: reconciled.outcome, missing: reconciled.missing }, `catalog reconciliation ${reconciled.message}`);
      markets.refresh().catch((error: unknown) => logger.error({ err: error }, 'market index refresh failed'));
    },
    onDeletionHandOff: (report) => {
      if (report.paused + report.resumed + report.rejected.length > 0) logger.info({ deletions: report }, 'catalog deletions handed to the engine');
    },
  });
  await markets.refresh();

  metrics.watch({ projector, log: engineService.log, host });
  metrics.asyncGauge('clickhouse_memory_tracked_bytes', "Memory ClickHouse's allocator tracks as in use (its MemoryTracking metric: queries, merges, caches, tables in memory).", async () => {
    const result = await ch.query({ query: "SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'", format: 'JSONEachRow' });
    const rows = await result.json<{ value: string | number }>();
    return Number(rows[0]?.value ?? NaN);
  });
  metrics.asyncGauge('clickhouse_allocator_resident_bytes', "Memory ClickHouse's allocator (its jemalloc) holds resident: what it tracks as in use, its free pages not yet returned to the system, and its metadata.", async () => {
    // The summary line of jemalloc's statistics: "Allocated: N, active: N, metadata: N (...), resident: N, mapped: N, retained: N".
    const query = "SELECT extract(stats, 'Allocated: [^\\n]*?resident: (\\d+)') AS resident FROM system.jemalloc_stats";
    const rows = await (await ch.query({ query, format: 'JSONEachRow' })).json<{ resident: string }>();
    const resident = rows[0]?.resident ?? '';
    if (!/^\d+$/.test(resident)) throw new Error('no resident figure in system.jemalloc_stats');
    return Number(resident);
  });
  const heapTrim = startMainThreadHeapTrim(config, logger);
  // One question to the threads serves both gauges of a scrape.
  let asked: { at: number; heaps: Promise<ThreadHeap[]> } | undefined;
  const heapsOf = async (field: 'usedBytes' | 'totalBytes'): Promise<[string, number][]> => {
    if (asked === undefined || Date.now() - asked.at > 1000) asked = { at: Date.now(), heaps: threadHeaps() };
    return (await asked.heaps).map((heap) => [heap.thread, heap[field]]);
  };
  metrics.asyncLabelledGauge('nodejs_thread_heap_used_bytes', "JS heap in use of each of the service's worker threads with an event loop (the main thread's is nodejs_heap_size_used_bytes).", 'thread', () => heapsOf('usedBytes'));
  metrics.asyncLabelledGauge('nodejs_thread_heap_total_bytes', "JS heap committed by each of the service's worker threads with an event loop (the main thread's is nodejs_heap_size_total_bytes).", 'thread', () => heapsOf('totalBytes'));
  const front = await startFront({
    config,
    logger,
    uws,
    clock,
    metrics,
    gateway: host,
    projection: projector,
    live,
    notifications,
    publisher,
    fanout,
    ch,
    catalog: catalog.catalog,
    markets,
    ready: () => {
      const problems: string[] = [];
      if (host.stopped !== null) problems.push(`the engine has stopped: ${host.stopped.message}`);
      if (live !== undefined && !live.ready) problems.push('the in-memory read model is not serving (reads go to ClickHouse)');
      if (!notifications.ready) problems.push('the notifications are not serving (GET /notifications answers 503)');
      return { ready: problems.length === 0, problems };
    },
    onFatal: hooks.onFatal,
  });
  const port = front.port;
  // The order path's threads on one CPU while they need less than one (server/chainAffinity.ts).
  const chain = config.chainAffinity
    ? watchChainAffinity(
        (placement, cpus) => logger.info({ placement, cpus }, placement === 'pinned' ? "the order path's threads share one CPU (light load)" : "the order path's threads run on every CPU"),
        (error) => logger.warn({ err: error }, "the order path's threads stay on every CPU"),
      )
    : undefined;
  if (chain !== undefined) metrics.watchChainAffinity(chain);

  // Demo traders trade the demo catalog through the public port like any client, on a thread of their own;
  // never beside a real catalog.
  const demo = demoTradersWanted(config)
    ? await startDemoTradersThread({ clobUrl: `http://127.0.0.1:${port}/clob`, chainId: config.chainId, host, seed: front.masterKey, logger, cycleMs: config.demoTraderCycleMs, heapTrimMs: config.heapTrimSeconds * 1000 })
    : undefined;

  // Every consumer of the durable batches is in place: heartbeat sessions may now expire on the host's timer.
  host.watchDeadlines();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      heapTrim?.stop();
      await chain?.stop();
      await demo?.stop();
      await clickhouseHttp?.close();
      await front.close();
      await catalog.close();
      await host.idle();
      // Its last snapshot, at the last durable position: the next start reads no log before it.
      await notifications.close().catch((error: unknown) => logger.error({ err: error }, 'notifications snapshot at shutdown failed'));
      await projector.stop(host.position).catch((error: unknown) => logger.error({ err: error }, 'projector catch-up at shutdown failed'));
      await engineService.close();
      clickhouseNice?.stop();
      metrics.close();
      if (ownsClickHouse) await ch.close();
      logger.info('stopped');
    })();
    return closing;
  };

  return {
    config,
    port,
    uwsNative: uws.native,
    engine: host,
    engineService,
    projector,
    catalog,
    markets,
    reads: front.reads,
    live,
    notifications,
    ch,
    http: front.http,
    edge: front.edge,
    chainAffinity: chain,
    metrics,
    demo,
    clickhouseHttp,
    ws: front.ws,
    wsPort: front.wsPort,
    publisher,
    close,
  };
}

/**
 * How long an analyst's query waits for the projector to reach what was acknowledged before it arrived; past it
 * the query runs on what the tables hold.
 */
const ANALYST_WAIT_MS = 5_000;

async function startClickHouseEndpoint(config: Config, ch: ClickHouseClient, logger: Logger, caughtUp: () => Promise<void>): Promise<ClickHouseHttpServer> {
  const chdbPath = chdbPathOf(ch);
  if (chdbPath === undefined) throw new Error('--clickhouse-http-port serves the embedded ClickHouse; this service has none (server mode)');
  const users: ClickHouseHttpUser[] = [];
  if (config.analystPassword !== undefined) users.push({ name: config.analystUser, password: config.analystPassword, role: 'analyst' });
  if (config.clickhouseServicePassword !== undefined) users.push({ name: config.clickhouseServiceUser, password: config.clickhouseServicePassword, role: 'service' });
  const server = await startClickHouseHttp({
    host: config.clickhouseHttpHost,
    port: config.clickhouseHttpPort ?? 0,
    chdbPath,
    database: config.clickhouseDatabase,
    users,
    analystLimits: {
      maxExecutionSec: config.analystMaxExecutionSec,
      maxMemoryBytes: config.analystMaxMemoryBytes,
      maxResultRows: config.analystMaxResultRows,
      maxResultBytes: config.analystMaxResultBytes,
      maxThreads: config.analystMaxThreads,
      nice: config.analystNice,
    },
    analystConcurrentQueries: config.analystMaxConcurrentQueries,
    analystQueuedQueries: config.analystMaxQueuedQueries,
    caughtUp,
    onError: (error) => logger.error({ err: error }, 'ClickHouse HTTP request failed'),
  });
  logger.info({ host: config.clickhouseHttpHost, port: server.port, users: users.map((u) => `${u.name} (${u.role})`) }, "serving the embedded ClickHouse over ClickHouse's HTTP interface");
  return server;
}
