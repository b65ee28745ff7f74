// Feeds the projector from the Kafka topic through a consumer group, committing offsets manually and only
// after the projector has committed the batch to ClickHouse. The projector's own progress table stays the
// source of truth for exactly-once: a redelivered batch is skipped by position, and when the group's offset
// is ahead of that progress (a new or restored ClickHouse), the gap is first read through the log itself.

import { Kafka, logLevel, type Consumer } from 'kafkajs';
import type { EventLog, EventsRecord } from '../log/eventLog.js';
import { decodeEvents } from '../log/recordCodec.js';
import type { Projector } from './projector.js';

export interface KafkaFeedOptions {
  readonly brokers: readonly string[];
  readonly topic: string;
  readonly clientId: string;
  /** Consumer group of this projector (default `<topic>.projector.<projector name>`). */
  readonly groupId?: string;
}

export class KafkaProjectionFeed {
  private constructor(
    private readonly consumer: Consumer,
    private readonly stopped: Promise<void>,
  ) {}

  /**
   * Starts consuming. `log` is a reader of the same topic (a KafkaLog opened with role 'reader'), used to fill
   * a gap between the projector's progress and the group's offset.
   */
  static async start(options: KafkaFeedOptions, projector: Projector, log: EventLog): Promise<KafkaProjectionFeed> {
    const kafka = new Kafka({ clientId: options.clientId, brokers: [...options.brokers], logLevel: logLevel.NOTHING });
    const consumer = kafka.consumer({ groupId: options.groupId ?? `${options.topic}.projector.${projector.name}`, readUncommitted: false });
    await consumer.connect();
    await consumer.subscribe({ topic: options.topic, fromBeginning: true });
    let fail: (error: Error) => void = () => undefined;
    const stopped = new Promise<void>((_, reject) => (fail = reject));
    stopped.catch(() => undefined);
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat, isRunning }) => {
        const records: EventsRecord[] = [];
        let lastOffset: string | undefined;
        for (const message of batch.messages) {
          if (message.value !== null) records.push(decodeEvents(message.value));
          lastOffset = message.offset;
        }
        if (lastOffset === undefined || !isRunning()) return;
        const first = records[0];
        try {
          if (first !== undefined && first.pos > projector.position + 1) {
            // The group is ahead of what ClickHouse holds: read the missing positions from the log first.
            await projector.catchUpTo(log, first.pos - 1);
          }
          await projector.deliver(records);
        } catch (error) {
          fail(error instanceof Error ? error : new Error(String(error)));
          throw error;
        }
        // Only now, with the rows in ClickHouse, does the group move on.
        await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(BigInt(lastOffset) + 1n) }]);
        await heartbeat();
      },
    });
    return new KafkaProjectionFeed(consumer, stopped);
  }

  /** Rejects when projecting a consumed batch failed (the consumer then stops taking batches). */
  get failure(): Promise<void> {
    return this.stopped;
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
