// The ClickHouse server of a role (every role but `all` runs in server mode), opened with retries.

import type { Logger } from 'pino';
import type { Config } from '../../config/index.js';
import { openClickHouse, type ClickHouseClient } from '../../storage/clickhouse.js';
import { retrying } from './startupRetry.js';

export function openRoleClickHouse(config: Config, logger: Logger, signal: AbortSignal): Promise<ClickHouseClient> {
  return retrying(
    `connecting to ClickHouse at ${config.clickhouseUrl}`,
    () => openClickHouse({ mode: config.clickhouseMode, dataDir: config.dataDir, url: config.clickhouseUrl, user: config.clickhouseUser, password: config.clickhousePassword, database: config.clickhouseDatabase }),
    logger,
    signal,
  );
}
