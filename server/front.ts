// The front of the service: HTTP (every surface) and WebSocket, on the public port behind the header edge.
// The same front runs in the single process (role `all`, service.ts) over the engine itself, and in an API
// node (role `api`, roles/apiRole.ts) over a replica following the log, with commands sent to the engine:
// it sees the engine only through a CommandGateway.

import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import type { CommandGateway } from '../host/commandGateway.js';
import type { CatalogDb } from '../catalog/catalogDb.js';
import type { MarketIndex } from '../catalog/marketIndex.js';
import type { LiveReadModel } from '../projections/live/liveReadModel.js';
import type { NotificationStore } from '../projections/notifications/notificationStore.js';
import { readContext, type ReadContext } from '../projections/readModel/index.js';
import type { ClickHouseClient } from '../storage/clickhouse.js';
import type { ProjectionProgress } from '../api/trading/tradingDeps.js';
import { createHttpServer, type HttpServer } from '../api/http/httpServer.js';
import type { HeaderEdge } from '../api/http/headerEdge.js';
import { corsPolicy } from '../api/http/cors.js';
import { IpAllowlist } from '../api/http/ipAllowlist.js';
import { ClientAddresses } from '../api/http/clientAddress.js';
import { EdgeLink } from '../api/ws/edgeSockets.js';
import { RateLimiter } from '../api/http/rateLimiter.js';
import { RATE_WINDOWS } from '../api/http/rateLimits.js';
import { ROOT_RULES } from '../api/http/rootRules.js';
import type { loadUws } from '../api/http/uwsLoader.js';
import { ApiKeyRegistry, loadMasterSecret } from '../auth/index.js';
import { tradingRoutes } from '../api/trading/tradingRoutes.js';
import { rewardsRoutes } from '../api/rewards/rewardsRoutes.js';
import { rewardsOperatorRoutes } from '../api/operator/rewardsOperatorRoutes.js';
import { InlineSignatureChecker, WorkerSignatureChecker, type SignatureChecker } from '../api/trading/signatureChecks.js';
import { operatorRoutes } from '../api/operator/operatorRoutes.js';
import type { StreamPublisher } from '../api/ws/streamPublisher.js';
import type { Fanout } from '../api/ws/topics.js';
import { newWsCounters } from '../api/ws/wsCounters.js';
import { attachWebSockets, listenWsDirect, uwsFanout, type WsServer } from '../api/ws/wsServer.js';
import { serviceRoutes, type Readiness } from './serviceRoutes.js';
import type { ServiceMetrics } from './metrics.js';
import { listenPublic, type PublicListener } from './publicListener.js';
import { surfaceRoutes } from './surfaceRoutes.js';
import { loadUiBundle } from './uiBundle.js';
import { uiRoutes } from './uiRoutes.js';

/** A fan-out whose target exists only once the front is up (the publisher is built before it). */
export class LateFanout implements Fanout {
  target: Fanout | undefined;
  /** Called when a key's deletion is published: its user-channel connections must go. */
  keyDeleted: ((apiKey: string) => void) | undefined;

  publish(topic: string, message: string): void {
    this.target?.publish(topic, message);
  }

  subscribers(topic: string): number {
    return this.target?.subscribers(topic) ?? 0;
  }
}

export interface FrontParts {
  readonly config: Config;
  readonly logger: Logger;
  readonly uws: ReturnType<typeof loadUws>;
  readonly clock: () => number;
  readonly metrics: ServiceMetrics;
  readonly gateway: CommandGateway;
  readonly projection: ProjectionProgress;
  readonly live: LiveReadModel | undefined;
  /** The notifications (GET /notifications answers 503 without them). */
  readonly notifications?: NotificationStore;
  readonly publisher: StreamPublisher;
  readonly fanout: LateFanout;
  readonly ch: ClickHouseClient;
  readonly catalog: CatalogDb;
  readonly markets: MarketIndex;
  readonly ready: () => Readiness;
  readonly onFatal?: (error: Error) => void;
}

export interface Front {
  readonly port: number;
  readonly http: HttpServer;
  readonly edge: HeaderEdge | undefined;
  readonly ws: WsServer;
  readonly wsPort: number | undefined;
  readonly reads: ReadContext;
  readonly registry: ApiKeyRegistry;
  /** The master secret of API keys (the demo traders derive their wallets from it). */
  readonly masterKey: Buffer;
  /** Stops taking connections, closes the WebSockets and lets requests in flight finish. */
  close(): Promise<void>;
}

export async function startFront(parts: FrontParts): Promise<Front> {
  const { config, logger, clock, metrics, gateway, live, publisher } = parts;
  const { uws, native } = parts.uws;
  const reads = readContext(parts.ch, config.clickhouseDatabase, { metadata: parts.markets.metadataSource(), now: clock, feeAccount: config.feeAccount });
  const master = await loadMasterSecret({ authSecret: config.authSecret, dataDir: config.dataDir });
  if (master.source === 'created') logger.info({ path: master.path }, 'created the master secret of API keys');
  const limiter = config.rateLimit ? new RateLimiter(RATE_WINDOWS) : undefined;
  const signatures: SignatureChecker = config.signatureWorkers > 0 ? new WorkerSignatureChecker(config, config.signatureWorkers) : new InlineSignatureChecker(config);
  const registry = new ApiKeyRegistry(gateway.engine, master.key);
  const tradingDeps = { settings: config, host: gateway, registry, signatures, projection: parts.projection, reads, live, notifications: parts.notifications, limiter, clock };
  const trading = tradingRoutes(tradingDeps);
  const publicRoutes = [
    ...surfaceRoutes({ config, host: gateway, catalog: parts.catalog, markets: parts.markets, reads, live, clock, projection: parts.projection }),
    ...trading,
    ...rewardsRoutes({ trading: tradingDeps, markets: parts.markets }),
  ];
  // The operator API exists only with a token (off by default); the OpenAPI document describes it when it does.
  const operator = config.operatorToken === undefined ? [] : [...operatorRoutes({ host: gateway, token: config.operatorToken }), ...rewardsOperatorRoutes({ host: gateway, token: config.operatorToken })];
  // The market page (/ui) is a page, not API: it is left out of the OpenAPI document.
  const routes = [...publicRoutes, ...serviceRoutes({ metrics, documented: [...publicRoutes, ...operator], native, ready: parts.ready }), ...uiRoutes(loadUiBundle), ...operator];
  const clientAddresses = new ClientAddresses(config.trustedProxies);
  const http = createHttpServer({
    uws,
    routes,
    rootRules: ROOT_RULES,
    limiter,
    activityAllowlist: new IpAllowlist(config.activityIpAllowlist),
    clientAddresses,
    betweenRequests: gateway.poll === undefined ? undefined : () => gateway.poll?.(),
    durable: gateway,
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
    clientAddresses,
  };
  // Behind the header edge, the edge writes the channels' output itself (api/ws/edgeSockets.ts).
  const edgeLink = new EdgeLink();
  const ws = attachWebSockets({ app: http.app, ...wsOptions, edge: edgeLink });
  // --ws-port: the same channels on an app of their own, listening straight on a TCP port.
  const wsDirect = config.wsPort === undefined ? undefined : await listenWsDirect(uws, config.httpHost, config.wsPort, wsOptions);
  const fanouts = [uwsFanout(http.app, wsCounters, (bytes) => ws.published(bytes), edgeLink)];
  if (wsDirect !== undefined) fanouts.push(uwsFanout(wsDirect.app, wsCounters, (bytes) => wsDirect.server.published(bytes)));
  parts.fanout.target = fanouts.length === 1 ? fanouts[0] : { publish: (topic, message) => fanouts.forEach((f) => f.publish(topic, message)), subscribers: (topic) => fanouts.reduce((n, f) => n + f.subscribers(topic), 0) };
  parts.fanout.keyDeleted = (apiKey) => {
    ws.keyDeleted(apiKey);
    wsDirect?.server.keyDeleted(apiKey);
  };
  metrics.watchWs(wsCounters, () => edgeLink.edge?.stats.wsSlowConsumers ?? 0);
  const listener: PublicListener = await listenPublic(http, config, (error) => {
    logger.fatal({ err: error }, "the header edge's thread failed: the public port is no longer served");
    parts.onFatal?.(error);
  });
  const { port, edge } = listener;
  if (edge !== undefined) {
    metrics.watchEdge(edge);
    edgeLink.edge = edge;
  }
  logger.info({ host: config.httpHost, port, uwsSocket: listener.socketPath }, 'listening');

  const close = async (): Promise<void> => {
    ws.close();
    wsDirect?.close();
    await listener.stop();
    listener.removeSocket();
    await http.drained();
    await signatures.close();
  };
  return { port, http, edge, ws, wsPort: wsDirect?.port, reads, registry, masterKey: master.key, close };
}
