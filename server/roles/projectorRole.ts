// Role `projector`: the Kafka log into ClickHouse, exactly once. A Kafka consumer group hands it the log's
// records (projections/kafkaFeed.ts); the projector's own progress table in ClickHouse decides what is new, so
// a batch delivered twice (a restart, a rebalance) is projected once, and the group's offset moves only after
// ClickHouse holds the batch. Its HTTP port serves /health, /ready and /metrics.
//
// Run exactly one: the log has one partition, and a second projector would project from its own restored
// state (docs/architecture.md, Roles, says why one suffices).

import type { Logger } from 'pino';
import { projectionIntervalOf, type Config } from '../../config/index.js';
import { openKafkaLog } from '../../log/kafka/kafkaLog.js';
import { Projector } from '../../projections/projector.js';
import { KafkaProjectionFeed } from '../../projections/kafkaFeed.js';
import { ServiceMetrics } from '../metrics.js';
import { startRoleHttp } from './roleHttp.js';
import { retrying } from './startupRetry.js';
import { openRoleClickHouse } from './clickhouseOf.js';
import type { RoleProcess } from './roleProcess.js';

/**
 * Offsets of the log beyond the last batch projected past which the projector reports itself not ready: a
 * backlog (a restart, a burst beyond what it projects), not the transactions that arrive while it pauses between
 * commits (two offsets each, a record and its marker: at 2,500 commands/s and one commit a second, ~5,000).
 */
const READY_LAG = 20_000;

export async function startProjectorRole(config: Config, logger: Logger, signal: AbortSignal): Promise<RoleProcess> {
  const metrics = new ServiceMetrics();
  const brokers = config.kafkaBrokers;
  const log = await retrying(
    `opening the Kafka log (topic ${config.kafkaTopic} at ${brokers.join(',')}) to read`,
    () => openKafkaLog({ brokers, topic: config.kafkaTopic, clientId: config.kafkaClientId, role: 'reader' }),
    logger,
    signal,
  );
  const ch = await openRoleClickHouse(config, logger, signal);
  const db = config.clickhouseDatabase;
  const projector = new Projector(ch, db, log, { feeAccount: config.feeAccount, minIntervalMs: projectionIntervalOf(config), bookHistoryRetentionDays: config.bookHistoryRetentionDays });
  await retrying('restoring the projector from ClickHouse', () => projector.start(), logger, signal);
  logger.info({ pos: projector.position }, 'projector restored');
  // projection_position read from the projector when scraped: its restored position from start-up on, not only
  // once it commits again (with nothing new in the log, it does not).
  metrics.watch({ projector });
  let failure: Error | undefined;
  const feed = await retrying(
    'joining the projector consumer group',
    () => KafkaProjectionFeed.start({ brokers, topic: config.kafkaTopic, clientId: config.kafkaClientId, minIntervalMs: projectionIntervalOf(config) }, projector, log),
    logger,
    signal,
  );
  feed.failure.catch((error: unknown) => {
    failure = error instanceof Error ? error : new Error(String(error));
    logger.fatal({ err: failure }, 'projecting a batch failed; the projector stopped taking batches');
  });
  metrics.gauge('projector_kafka_offset_lag', 'Offsets of the log topic beyond the last batch projected (records and transaction markers).', () => feed.offsetLag);
  const http = await startRoleHttp({
    host: config.httpHost,
    port: config.httpPort,
    role: 'projector',
    metrics,
    // Connected (a member of its consumer group) and caught up (within READY_LAG offsets of the log's end).
    ready: () => {
      const problems: string[] = [];
      if (failure !== undefined) problems.push(`projecting failed: ${failure.message}`);
      if (!feed.joined) problems.push('not a member of the projector consumer group (joining)');
      else if (feed.offsetLag > READY_LAG) problems.push(`${feed.offsetLag} offsets behind the end of the log`);
      return { ready: problems.length === 0, problems };
    },
  });
  logger.info({ host: config.httpHost, port: http.port }, 'projector role: /health, /ready and /metrics');

  let closing: Promise<void> | undefined;
  return {
    role: 'projector',
    port: http.port,
    close: () =>
      (closing ??= (async () => {
        await feed.stop();
        await log.close();
        await ch.close();
        await http.close();
        metrics.close();
        logger.info('stopped');
      })()),
  };
}
