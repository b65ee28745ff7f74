// The whole service in one process (the embedded default of `npm start`): the engine host on its event log,
// the projector into ClickHouse following the same log, the catalog (demo data or an upstream sync) handing
// markets to the engine, and the HTTP server with every surface. close() is the graceful shutdown: stop
// accepting connections, let requests in flight finish, stop the catalog sync, let the projector catch up
// with the durable log, write the engine's final snapshot, and close the log and ClickHouse.

import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { EngineHost } from '../host/engineHost.js';
import { startEngineService, type EngineService } from '../host/engineService.js';
import { Projector } from '../projections/projector.js';
import { readContext, type ReadContext } from '../projections/readModel/index.js';
import { openClickHouse, type ClickHouseClient } from '../storage/clickhouse.js';
import { startCatalogService, type CatalogService } from '../catalog/catalogService.js';
import { MarketIndex } from '../catalog/marketIndex.js';
import { createHttpServer, type HttpServer } from '../api/http/httpServer.js';
import { IpAllowlist } from '../api/http/ipAllowlist.js';
import { RateLimiter } from '../api/http/rateLimiter.js';
import { RATE_WINDOWS } from '../api/http/rateLimits.js';
import { ROOT_RULES } from '../api/http/rootRules.js';
import { loadUws } from '../api/http/uwsLoader.js';
import { serviceRoutes } from './serviceRoutes.js';
import { ServiceMetrics } from './metrics.js';
import { surfaceRoutes } from './surfaceRoutes.js';

export interface ServiceHooks {
  /** An already open ClickHouse client (tests share one chDB per process); the service does not close it. */
  readonly clickhouse?: ClickHouseClient;
  readonly clock?: () => number;
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
  readonly ch: ClickHouseClient;
  readonly http: HttpServer;
  readonly metrics: ServiceMetrics;
  close(): Promise<void>;
}

export async function startService(config: Config, logger: Logger, hooks: ServiceHooks = {}): Promise<RunningService> {
  const clock = hooks.clock ?? Date.now;
  const { uws, native } = loadUws(config.allowSlowUws);
  if (!native) logger.warn('uWebSockets.js runs on its slow JavaScript fallback (--allow-slow-uws)');

  const metrics = new ServiceMetrics();
  // The projector is built after the engine, whose durable batches wake it.
  const late: { projector?: Projector } = {};
  const engineService = await startEngineService(config, {
    clock,
    onProgress: (p) => logger.debug({ recovery: p }, 'engine recovery'),
    onDurable: () => late.projector?.notify(),
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

  const projector = new Projector(ch, db, engineService.log, { feeAccount: config.feeAccount, onBatch: (_f, to) => metrics.projectedTo(to) });
  late.projector = projector;
  await projector.start();
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
      markets.refresh().catch((error: unknown) => logger.error({ err: error }, 'market index refresh failed'));
    },
  });
  await markets.refresh();

  const reads = readContext(ch, db, { metadata: markets.metadataSource(), now: clock, feeAccount: config.feeAccount });
  const publicRoutes = surfaceRoutes({ config, host, catalog, markets, reads, clock });
  const routes = [...publicRoutes, ...serviceRoutes({ metrics, documented: publicRoutes, native })];
  const http = createHttpServer({
    uws,
    routes,
    rootRules: ROOT_RULES,
    limiter: config.rateLimit ? new RateLimiter(RATE_WINDOWS) : undefined,
    activityAllowlist: new IpAllowlist(config.activityIpAllowlist),
    clock,
    onResponse: (route, status, startedAt) => metrics.request(route, status, clock() - startedAt),
    onError: (error, route) => logger.error({ err: error, route: `${route.method} ${route.path}` }, 'request failed'),
  });
  metrics.watch({ projector, log: engineService.log, host });
  const port = await http.listen(config.httpHost, config.httpPort);
  logger.info({ host: config.httpHost, port }, 'listening');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      http.stopListening();
      await http.drained();
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

  return { config, port, uwsNative: native, engine: host, engineService, projector, catalog, markets, reads, ch, http, metrics, close };
}
