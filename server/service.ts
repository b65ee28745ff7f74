// The whole service in one process (the embedded default of `npm start`): the engine host on its event log,
// the projector into ClickHouse following the same log, the catalog (demo data or an upstream sync) handing
// markets to the engine, and the HTTP server with every surface, behind the header edge on the public port
// (publicListener.ts). close() is the graceful shutdown: stop accepting connections (the edge first, then
// uWS), let requests in flight finish, stop the catalog sync, let the projector catch up with the durable
// log, write the engine's final snapshot, and close the log and ClickHouse.

import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { EngineHost } from '../host/engineHost.js';
import { startEngineService, type EngineService } from '../host/engineService.js';
import { Projector } from '../projections/projector.js';
import { LiveReadModel } from '../projections/live/liveReadModel.js';
import { readContext, type ReadContext } from '../projections/readModel/index.js';
import { openClickHouse, type ClickHouseClient } from '../storage/clickhouse.js';
import { startCatalogService, type CatalogService } from '../catalog/catalogService.js';
import { MarketIndex } from '../catalog/marketIndex.js';
import { createHttpServer, type HttpServer } from '../api/http/httpServer.js';
import type { HeaderEdge } from '../api/http/headerEdge.js';
import { IpAllowlist } from '../api/http/ipAllowlist.js';
import { RateLimiter } from '../api/http/rateLimiter.js';
import { RATE_WINDOWS } from '../api/http/rateLimits.js';
import { ROOT_RULES } from '../api/http/rootRules.js';
import { loadUws } from '../api/http/uwsLoader.js';
import { serviceRoutes } from './serviceRoutes.js';
import { ServiceMetrics } from './metrics.js';
import { listenPublic } from './publicListener.js';
import { surfaceRoutes } from './surfaceRoutes.js';
import { ApiKeyRegistry, loadMasterSecret } from '../auth/index.js';
import { tradingRoutes } from '../api/trading/tradingRoutes.js';
import { InlineSignatureChecker, WorkerSignatureChecker } from '../api/trading/signatureChecks.js';
import { operatorRoutes } from '../api/operator/operatorRoutes.js';

export interface ServiceHooks {
  /** An already open ClickHouse client (tests share one chDB per process); the service does not close it. */
  readonly clickhouse?: ClickHouseClient;
  readonly clock?: () => number;
  /**
   * The engine host's clock (stamps each command's time), when it must differ from `clock` (the API's): tests
   * of decisions that two clocks could disagree on. Default: `clock`.
   */
  readonly engineClock?: () => number;
  /** The service can no longer serve (the header edge's thread died); the caller should close it. */
  readonly onFatal?: (error: Error) => void;
}

export interface RunningService {
  readonly config: Config;
  readonly port: number;
  readonly uwsNative: boolean;
  readonly engine: EngineHost;
  readonly engineService: EngineService;
  readonly projector: Projector;
  readonly catalog: CatalogService;
  readonly markets: MarketIndex;
  readonly reads: ReadContext;
  /** The in-memory read model; undefined with --live-reads false. */
  readonly live: LiveReadModel | undefined;
  readonly ch: ClickHouseClient;
  readonly http: HttpServer;
  /** The header edge on the public port; undefined with --header-edge false. */
  readonly edge: HeaderEdge | undefined;
  readonly metrics: ServiceMetrics;
  close(): Promise<void>;
}

export async function startService(config: Config, logger: Logger, hooks: ServiceHooks = {}): Promise<RunningService> {
  const clock = hooks.clock ?? Date.now;
  const { uws, native } = loadUws(config.allowSlowUws);
  if (!native) logger.warn('uWebSockets.js runs on its slow JavaScript fallback (--allow-slow-uws)');

  const metrics = new ServiceMetrics();
  // The projector is built after the engine, whose durable batches are handed to it in memory (it reads the
  // log for whatever it was not handed: the records made durable before it existed, or after it fell behind).
  // The in-memory read model (projections/live/) follows the same records.
  const late: { projector?: Projector; live?: LiveReadModel } = {};
  const engineService = await startEngineService(config, {
    clock: hooks.engineClock ?? clock,
    onProgress: (p) => logger.debug({ recovery: p }, 'engine recovery'),
    onDurable: (records) => {
      late.projector?.offer(records);
      late.live?.offer(records);
    },
    onStop: (error) => logger.fatal({ err: error }, 'engine stopped: the event log failed for good'),
    onSnapshotError: (error) => logger.error({ err: error }, 'engine snapshot failed'),
  });
  const host = engineService.host;
  logger.info({ pos: engineService.recovery.pos, seq: host.engine.seq }, 'engine recovered');

  const ownsClickHouse = hooks.clickhouse === undefined;
  const ch =
    hooks.clickhouse ??
    (await openClickHouse({ mode: config.clickhouseMode, dataDir: config.dataDir, url: config.clickhouseUrl, user: config.clickhouseUser, password: config.clickhousePassword, database: config.clickhouseDatabase }));
  const db = config.clickhouseDatabase;
  if (!ownsClickHouse) await ch.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });

  const projector = new Projector(ch, db, engineService.log, { feeAccount: config.feeAccount, minIntervalMs: config.projectionIntervalMs, onBatch: (_f, to) => metrics.projectedTo(to) });
  late.projector = projector;
  await projector.start();
  // Restored as of the projector's committed position before the projector writes anything newer.
  const live = config.liveReads
    ? new LiveReadModel(engineService.log, {
        feeAccount: config.feeAccount,
        maxFinishedOrders: config.liveFinishedOrders,
        onFailure: (error) => logger.error({ err: error }, 'the in-memory read model stopped; its reads go to ClickHouse'),
      })
    : undefined;
  late.live = live;
  await live?.start(ch, db, projector.position);
  const projectorStop = new AbortController();
  const projectorRun = projector.run(projectorStop.signal).catch((error: unknown) => logger.error({ err: error }, 'projector stopped'));

  const markets = new MarketIndex(ch, db);
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

  const reads = readContext(ch, db, { metadata: markets.metadataSource(), now: clock, feeAccount: config.feeAccount });
  const master = await loadMasterSecret({ authSecret: config.authSecret, dataDir: config.dataDir });
  if (master.source === 'created') logger.info({ path: master.path }, 'created the master secret of API keys');
  const limiter = config.rateLimit ? new RateLimiter(RATE_WINDOWS) : undefined;
  const signatures = config.signatureWorkers > 0 ? new WorkerSignatureChecker(config, config.signatureWorkers) : new InlineSignatureChecker(config);
  const trading = tradingRoutes({
    settings: config,
    host,
    registry: new ApiKeyRegistry(host.engine, master.key),
    signatures,
    projection: projector,
    reads,
    live,
    limiter,
    clock,
  });
  const publicRoutes = [...surfaceRoutes({ config, host, catalog, markets, reads, live, clock }), ...trading];
  // The operator API exists only with a token (off by default); it is not in the OpenAPI document.
  const operator = config.operatorToken === undefined ? [] : operatorRoutes({ host, token: config.operatorToken });
  const routes = [...publicRoutes, ...serviceRoutes({ metrics, documented: publicRoutes, native }), ...operator];
  const http = createHttpServer({
    uws,
    routes,
    rootRules: ROOT_RULES,
    limiter,
    activityAllowlist: new IpAllowlist(config.activityIpAllowlist),
    clock,
    onResponse: (route, status, startedAt) => metrics.request(route, status, clock() - startedAt),
    onError: (error, route) => logger.error({ err: error, route: `${route.method} ${route.path}` }, 'request failed'),
  });
  metrics.watch({ projector, log: engineService.log, host });
  const listener = await listenPublic(http, config, (error) => {
    logger.fatal({ err: error }, "the header edge's thread failed: the public port is no longer served");
    hooks.onFatal?.(error);
  });
  const { port, edge } = listener;
  if (edge !== undefined) metrics.watchEdge(edge);
  logger.info({ host: config.httpHost, port, uwsSocket: listener.socketPath }, 'listening');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await listener.stop();
      listener.removeSocket();
      await http.drained();
      await signatures.close();
      await catalog.close();
      await host.idle();
      await projector.catchUpTo(engineService.log, host.position).catch((error: unknown) => logger.error({ err: error }, 'projector catch-up at shutdown failed'));
      projectorStop.abort();
      await projectorRun;
      await engineService.close();
      metrics.close();
      if (ownsClickHouse) await ch.close();
      logger.info('stopped');
    })();
    return closing;
  };

  return { config, port, uwsNative: native, engine: host, engineService, projector, catalog, markets, reads, live, ch, http, edge, metrics, close };
}
