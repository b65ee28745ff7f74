// `npm start`: the whole service in one process on its embedded defaults (see service.ts), or one role of the
// scale-out deployment with --role engine | api | projector (roles/). SIGINT and SIGTERM shut it down
// gracefully (also while a role still waits for Kafka or ClickHouse at start-up); another signal more than two
// seconds later exits at once. (Ctrl-C in a terminal reaches this process twice, from the terminal and
// forwarded by npm: that is one request.)

import { loadConfigOrExit } from '../config/index.js';
import { SlowUwsError } from '../api/http/uwsLoader.js';
import { startMainThreadHeapTrim, startService } from './service.js';
import { createLogger } from './logger.js';
import { startupLines } from './startupLines.js';
import { startEngineRole } from './roles/engineRole.js';
import { startApiRole } from './roles/apiRole.js';
import { startProjectorRole } from './roles/projectorRole.js';
import { StartupAborted } from './roles/startupRetry.js';
import { setProcessNice } from './processPriority.js';

const config = loadConfigOrExit();
const logger = createLogger(config);
if (config.nice > 0) logger.info({ nice: config.nice, threads: setProcessNice(config.nice) }, `running at nice ${config.nice}`);

const startup = new AbortController();
const abortStartup = (): void => startup.abort();
process.once('SIGINT', abortStartup);
process.once('SIGTERM', abortStartup);

/** The running process: the whole service, or one role. */
async function start(onFatal: () => void): Promise<{ close(): Promise<void> }> {
  switch (config.role) {
    case 'all': {
      const service = await startService(config, logger, { onFatal });
      for (const line of startupLines(config, service)) logger.info(line);
      return service;
    }
    case 'engine':
      return startEngineRole(config, logger, startup.signal);
    case 'api':
      return startApiRole(config, logger, startup.signal);
    case 'projector':
      return startProjectorRole(config, logger, startup.signal);
  }
}

try {
  let onFatal = (): void => {};
  const service = await start(() => onFatal());
  // The whole service starts its own (service.ts); a role's process, here.
  if (config.role !== 'all') startMainThreadHeapTrim(config, logger);
  process.off('SIGINT', abortStartup);
  process.off('SIGTERM', abortStartup);
  if (config.role !== 'all') logger.info(`role ${config.role} started`);
  let firstSignalAt: number | undefined;
  const stop = (signal: string): void => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < 2000) return;
      logger.warn(`${signal} again: exiting without a graceful shutdown`);
      process.exit(130);
    }
    firstSignalAt = Date.now();
    logger.info(`${signal}: shutting down`);
    service.close().then(
      () => process.exit(process.exitCode ?? 0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  onFatal = () => {
    process.exitCode = 1;
    stop('a fatal failure');
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
} catch (error) {
  if (error instanceof StartupAborted) {
    logger.info(`${error.message}: not started`);
    process.exit(0);
  }
  if (error instanceof SlowUwsError) {
    logger.fatal(error.message);
    process.exit(3);
  }
  logger.fatal({ err: error }, 'the service failed to start');
  process.exit(1);
}
