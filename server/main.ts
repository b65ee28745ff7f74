// `npm start`: the whole service in one process on its embedded defaults (see service.ts). SIGINT and
// SIGTERM shut it down gracefully; another signal more than two seconds later exits at once. (Ctrl-C in a
// terminal reaches this process twice, from the terminal and forwarded by npm: that is one request.)

import { loadConfigOrExit } from '../config/index.js';
import { SlowUwsError } from '../api/http/uwsLoader.js';
import { startService } from './service.js';
import { createLogger } from './logger.js';
import { startupLines } from './startupLines.js';

const config = loadConfigOrExit();
const logger = createLogger(config);

try {
  let onFatal = (): void => {};
  const service = await startService(config, logger, { onFatal: () => onFatal() });
  for (const line of startupLines(config, service)) logger.info(line);
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
  if (error instanceof SlowUwsError) {
    logger.fatal(error.message);
    process.exit(3);
  }
  logger.fatal({ err: error }, 'the service failed to start');
  process.exit(1);
}
