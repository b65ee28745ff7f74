// The whole service in one process (the embedded default of `npm start`): the engine host on its event log,
// the projector into ClickHouse following the same log, the catalog (demo data or an upstream sync) handing
// markets to the engine, and the HTTP server with every surface, behind the header edge on the public port
// (publicListener.ts). close() is the graceful shutdown: stop accepting connections (the edge first, then
// uWS), let requests in flight finish, stop the catalog sync, let the projector catch up with the durable
// log, write the engine's final snapshot, and close the log and ClickHouse.

import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { EngineHost } from '../host/engineHost.js';
import type { LogRecord } from '../log/eventLog.js';
import { startEngineService, type EngineService } from '../host/engineService.js';
import { Projector } from '../projections/projector.js';
import { LiveReadModel } from '../projections/live/liveReadModel.js';
import { readContext, type ReadContext } from '../projections/readModel/index.js';
import { chdbPathOf, openClickHouse, type ClickHouseClient } from '../storage/clickhouse.js';
import { startClickHouseHttp, type ClickHouseHttpServer, type ClickHouseHttpUser } from '../api/clickhouseHttp/clickhouseHttpServer.js';
import { startCatalogService, type CatalogService } from '../catalog/catalogService.js';
import { MarketIndex } from '../catalog/marketIndex.js';
import { createHttpServer, type HttpServer } from '../api/http/httpServer.js';
import type { HeaderEdge } from '../api/http/headerEdge.js';
import { corsPolicy } from '../api/http/cors.js';
import { IpAllowlist } from '../api/http/ipAllowlist.js';
import { RateLimiter } from '../api/http/rateLimiter.js';
import { RATE_WINDOWS } from '../api/http/rateLimits.js';
import { ROOT_RULES } from '../api/http/rootRules.js';
import { loadUws } from '../api/http/uwsLoader.js';
import { serviceRoutes } from './serviceRoutes.js';
import { ServiceMetrics } from './metrics.js';
import { listenPublic } from './publicListener.js';
import { surfaceRoutes } from './surfaceRoutes.js';
import { loadUiBundle } from './uiBundle.js';
import { uiRoutes } from './uiRoutes.js';
import { ApiKeyRegistry, loadMasterSecret } from '../auth/index.js';
import { tradingRoutes } from '../api/trading/tradingRoutes.js';
import { InlineSignatureChecker, WorkerSignatureChecker } from '../api/trading/signatureChecks.js';
import { operatorRoutes } from '../api/operator/operatorRoutes.js';
import { startDemoTraders, type DemoTraders } from '../demo/demoTraders.js';

/** Demo traders run with --demo-traders on the demo catalog only: never when an upstream catalog is set. */
export function demoTradersWanted(config: Config): boolean {
  return config.demoTraders && config.demoCatalog && config.catalogUpstreamUrl === undefined;
}
import { StreamPublisher } from '../api/ws/streamPublisher.js';
import type { Fanout } from '../api/ws/topics.js';
import { newWsCounters } from '../api/ws/wsCounters.js';
import { attachWebSockets, listenWsDirect, uwsFanout, type WsServer } from '../api/ws/wsServer.js';

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

export async function startService(config: Config, logger: Logger, hooks: ServiceHooks = {}): Promise<RunningService> {
  const clock = hooks.clock ?? Date.now;
  const { uws, native } = loadUws(config.allowSlowUws);
  if (!native) logger.warn('uWebSockets.js runs on its slow JavaScript fallback (--allow-slow-uws)');

  const metrics = new ServiceMetrics();
  // The projector is built after the engine, whose durable batches are handed to it in memory (it reads the
  // log for whatever it was not handed: the records made durable before it existed, or after it fell behind).
  // The in-memory read model (projections/live/) follows the same records.
  const late: { projector?: Projector; live?: LiveReadModel; publisher?: StreamPublisher; markets?: MarketIndex; fanout?: Fanout; keyDeleted?: (apiKey: string) => void } = {};
  const engineService = await startEngineService(config, {
    clock: hooks.engineClock ?? clock,
    onProgress: (p) => logger.debug({ recovery: p }, 'engine recovery'),
    onDurable: (records) => {
      late.projector?.offer(records);
      late.live?.offer(records);
      hooks.onDurable?.(records);
      try {
        late.publisher?.publish(records);
      } catch (error) {
        logger.error({ err: error }, 'WebSocket publishing failed');
      }
      hooks.onPublished?.(records);
    },
    onStop: (error) => logger.fatal({ err: error }, 'engine stopped: the event log failed for good'),
    onSnapshotError: (error) => logger.error({ err: error }, 'engine snapshot failed'),
  });
  const host = engineService.host;
  logger.info({ pos: engineService.recovery.pos, seq: host.engine.seq }, 'engine recovered');
  // Built now, while the engine holds exactly the recovered (durable) state and nothing else submits yet;
  // uWS's fan-out is plugged in once the app exists (nobody can subscribe before).
  const publisher = new StreamPublisher({
    engine: host.engine,
    fanout: { publish: (topic, message) => late.fanout?.publish(topic, message), subscribers: (topic) => late.fanout?.subscribers(topic) ?? 0 },
    catalog: (conditionId) => late.markets?.get(conditionId),
    clock,
    // Orders open at start-up: the engine keeps no creation time; the in-memory read model holds every open
    // order's (even after it stopped following the log: creation times never change), the projector's
    // state too (with --live-reads false).
    creationTime: (orderId) => late.live?.state.byId.get(orderId)?.createdAt ?? late.projector?.openOrderCreatedAt(orderId),
    onApiKeyDeleted: (apiKey) => late.keyDeleted?.(apiKey),
  });
  late.publisher = publisher;

  const ownsClickHouse = hooks.clickhouse === undefined;
  const ch =
    hooks.clickhouse ??
    (await openClickHouse({ mode: config.clickhouseMode, dataDir: config.dataDir, url: config.clickhouseUrl, user: config.clickhouseUser, password: config.clickhousePassword, database: config.clickhouseDatabase }));
  const db = config.clickhouseDatabase;
  if (!ownsClickHouse) await ch.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });

  const clickhouseHttp = config.clickhouseHttpPort === undefined ? undefined : await startClickHouseEndpoint(config, ch, logger);

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

  const reads = readContext(ch, db, { metadata: markets.metadataSource(), now: clock, feeAccount: config.feeAccount });
  const master = await loadMasterSecret({ authSecret: config.authSecret, dataDir: config.dataDir });
  if (master.source === 'created') logger.info({ path: master.path }, 'created the master secret of API keys');
  const limiter = config.rateLimit ? new RateLimiter(RATE_WINDOWS) : undefined;
  const signatures = config.signatureWorkers > 0 ? new WorkerSignatureChecker(config, config.signatureWorkers) : new InlineSignatureChecker(config);
  const registry = new ApiKeyRegistry(host.engine, master.key);
  const trading = tradingRoutes({
    settings: config,
    host,
    registry,
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
  // The market page (/ui) is a page, not API: it is left out of the OpenAPI document like the operator API.
  const routes = [...publicRoutes, ...serviceRoutes({ metrics, documented: publicRoutes, native }), ...uiRoutes(loadUiBundle), ...operator];
  const http = createHttpServer({
    uws,
    routes,
    rootRules: ROOT_RULES,
    limiter,
    activityAllowlist: new IpAllowlist(config.activityIpAllowlist),
    cors: config.corsOrigins.length === 0 ? undefined : corsPolicy(config.corsOrigins),
    compressMinBytes: config.compressMinBytes,
    clock,
    onResponse: (route, status, startedAt) => metrics.request(route, status, clock() - startedAt),
    onError: (error, route) => logger.error({ err: error, route: `${route.method} ${route.path}` }, 'request failed'),
  });
  const wsCounters = newWsCounters();
  const wsOptions = {
    publisher,
    credentials: (apiKey: string) => registry.lookup(apiKey),
    limits: {
      maxSubscriptions: config.wsMaxSubscriptions,
      maxMessageBytes: config.wsMaxMessageBytes,
      maxConnectionsPerIp: config.wsMaxConnectionsPerIp,
      idleTimeoutSec: config.wsIdleTimeoutSec,
      maxBackpressureBytes: config.wsMaxBackpressureBytes,
    },
    counters: wsCounters,
  };
  const ws = attachWebSockets({ app: http.app, ...wsOptions });
  // --ws-port: the same channels on an app of their own, listening straight on a TCP port.
  const wsDirect = config.wsPort === undefined ? undefined : await listenWsDirect(uws, config.httpHost, config.wsPort, wsOptions);
  const fanouts = [uwsFanout(http.app, wsCounters, (bytes) => ws.published(bytes))];
  if (wsDirect !== undefined) fanouts.push(uwsFanout(wsDirect.app, wsCounters, (bytes) => wsDirect.server.published(bytes)));
  late.fanout = fanouts.length === 1 ? fanouts[0] : { publish: (topic, message) => fanouts.forEach((f) => f.publish(topic, message)), subscribers: (topic) => fanouts.reduce((n, f) => n + f.subscribers(topic), 0) };
  late.keyDeleted = (apiKey) => {
    ws.keyDeleted(apiKey);
    wsDirect?.server.keyDeleted(apiKey);
  };
  metrics.watch({ projector, log: engineService.log, host });
  metrics.watchWs(wsCounters);
  const listener = await listenPublic(http, config, (error) => {
    logger.fatal({ err: error }, "the header edge's thread failed: the public port is no longer served");
    hooks.onFatal?.(error);
  });
  const { port, edge } = listener;
  if (edge !== undefined) metrics.watchEdge(edge);
  logger.info({ host: config.httpHost, port, uwsSocket: listener.socketPath }, 'listening');

  // Demo traders trade the demo catalog through the public port like any client; never beside a real catalog.
  const demo = demoTradersWanted(config)
    ? await startDemoTraders({ clobUrl: `http://127.0.0.1:${port}/clob`, chainId: config.chainId, host, seed: master.key, logger, cycleMs: config.demoTraderCycleMs })
    : undefined;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      await demo?.stop();
      ws.close();
      wsDirect?.close();
      await listener.stop();
      listener.removeSocket();
      await clickhouseHttp?.close();
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

  return { config, port, uwsNative: native, engine: host, engineService, projector, catalog, markets, reads, live, ch, http, edge, metrics, demo, clickhouseHttp, ws, wsPort: wsDirect?.port, publisher, close };
}

async function startClickHouseEndpoint(config: Config, ch: ClickHouseClient, logger: Logger): Promise<ClickHouseHttpServer> {
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
    onError: (error) => logger.error({ err: error }, 'ClickHouse HTTP request failed'),
  });
  logger.info({ host: config.clickhouseHttpHost, port: server.port, users: users.map((u) => `${u.name} (${u.role})`) }, "serving the embedded ClickHouse over ClickHouse's HTTP interface");
  return server;
}
