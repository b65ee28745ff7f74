// Role `engine`: the single writer of the Kafka log. It recovers the engine from its snapshots (its data
// directory) and the log, takes commands from API nodes on the engine port (cluster/commandServer.ts), applies
// them in batches, appends each batch in one Kafka transaction and only then answers. Opening the log fences
// any earlier engine of the topic. It also runs the catalog (demo data or the upstream sync), which writes the
// catalog tables and hands markets to the engine. Its HTTP port serves /health, /ready and /metrics.

import type { Logger } from 'pino';
import type { Config } from '../../config/index.js';
import { startEngineService, type EngineService } from '../../host/engineService.js';
import { startCatalogService } from '../../catalog/catalogService.js';
import { startCommandServer, type CommandServer } from '../../cluster/commandServer.js';
import { ServiceMetrics } from '../metrics.js';
import { startRoleHttp } from './roleHttp.js';
import { retrying } from './startupRetry.js';
import { openRoleClickHouse } from './clickhouseOf.js';
import type { RoleProcess } from './roleProcess.js';

export async function startEngineRole(config: Config, logger: Logger, signal: AbortSignal): Promise<RoleProcess> {
  const metrics = new ServiceMetrics();
  let stopped: Error | null = null;
  // The command port exists once the engine has recovered; durable batches go to its nodes from then on.
  const late: { commands?: CommandServer } = {};
  const appendSeconds = metrics.summary('engine_append_seconds', 'Time of one durable append of a batch to the Kafka log.');
  const batchCommands = metrics.summary('engine_batch_commands', 'Commands applied and appended in one batch.');
  const engineService: EngineService = await retrying(
    `opening the Kafka log (topic ${config.kafkaTopic} at ${config.kafkaBrokers.join(',')}) and recovering the engine`,
    () =>
      startEngineService(config, {
        onProgress: (p) => logger.info({ recovery: p }, 'engine recovery'),
        onStop: (error) => {
          stopped = error;
          logger.fatal({ err: error }, 'engine stopped: the event log failed for good');
        },
        onSnapshotError: (error) => logger.error({ err: error }, 'engine snapshot failed'),
        onDurable: (records) => late.commands?.publish(records),
        onAppended: (commands, ms) => {
          appendSeconds(ms / 1000);
          batchCommands(commands);
        },
      }),
    logger,
    signal,
  );
  const host = engineService.host;
  logger.info({ pos: engineService.recovery.pos, seq: host.engine.seq }, 'engine recovered');
  const ch = await openRoleClickHouse(config, logger, signal);
  const catalog = await retrying(
    'starting the catalog',
    () =>
      startCatalogService({
        client: ch,
        config,
        engine: { host, view: host.engine },
        onError: (error) => logger.error({ err: error }, 'catalog sync failed'),
        onSynced: (report) => metrics.catalogSynced(report),
      }),
    logger,
    signal,
  );
  const commands = await startCommandServer({
    host,
    listenHost: config.engineHost,
    port: config.enginePort,
    token: config.engineToken,
    onConnection: (node, remote) => logger.info({ node, remote }, 'API node connected'),
    onDisconnection: (node, remote) => logger.info({ node, remote }, 'API node disconnected'),
    onProtocolError: (remote, message) => logger.warn({ remote }, `engine port: ${message}`),
  });
  late.commands = commands;
  // API nodes now receive every durable batch: heartbeat sessions may expire on the host's timer.
  host.watchDeadlines();
  logger.info({ host: config.engineHost, port: commands.port, token: config.engineToken !== undefined }, 'taking commands from API nodes');
  metrics.watch({ log: engineService.log, host });
  metrics.gauge('engine_command_connections', 'API nodes connected to the engine port.', () => commands.connections);
  metrics.gauge('engine_commands_received', 'Commands received on the engine port since start.', () => commands.commands);
  const http = await startRoleHttp({
    host: config.httpHost,
    port: config.httpPort,
    role: 'engine',
    metrics,
    ready: () => (stopped === null ? { ready: true, problems: [] } : { ready: false, problems: [`the engine has stopped: ${(stopped as Error).message}`] }),
  });
  logger.info({ host: config.httpHost, port: http.port }, 'engine role: /health, /ready and /metrics');

  let closing: Promise<void> | undefined;
  return {
    role: 'engine',
    port: http.port,
    enginePort: commands.port,
    close: () =>
      (closing ??= (async () => {
        await commands.close();
        await catalog.close();
        await engineService.close();
        await ch.close();
        await http.close();
        metrics.close();
        logger.info('stopped');
      })()),
  };
}
