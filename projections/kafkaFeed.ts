// Feeds the projector from the Kafka topic through a consumer group, committing offsets manually and only
// after the projector has committed the batch to ClickHouse. The projector's own progress table stays the
// source of truth for exactly-once: a redelivered batch is skipped by position, and when the group's offset
// is ahead of that progress (a new or restored ClickHouse), the gap is first read through the log itself.

import { Kafka, logLevel, type Consumer } from 'kafkajs';
import type { EventLog, EventsRecord } from '../log/eventLog.js';
import { decodeEvents } from '../log/recordCodec.js';
import type { Projector } from './projector.js';

/** Quiet time (ms) after a batch before the projector records its progress. */
const IDLE_RECORD_MS = 20;
/** Most bytes one fetch brings (a record is ~1 KB): the most one commit projects. */
const MAX_FETCH_BYTES = 32 * 1024 * 1024;

export interface KafkaFeedOptions {
  readonly brokers: readonly string[];
  readonly topic: string;
  readonly clientId: string;
  /** Consumer group of this projector (default `<topic>.projector.<projector name>`). */
  readonly groupId?: string;
  /** Longest a fetch waits for new records (ms; default 50). */
  readonly fetchWaitMs?: number;
  /**
   * Least time (ms) between two commits while records keep coming (default 0): after each commit the feed
   * waits out the rest of it, so the next fetch brings everything that arrived meanwhile as one batch (each
   * commit costs ClickHouse a fixed number of inserts whatever its size).
   */
  readonly minIntervalMs?: number;
}

export class KafkaProjectionFeed {
  private constructor(
    private readonly consumer: Consumer,
    private readonly stopped: Promise<void>,
    private readonly progress: { offsetLag: number; joined: boolean },
  ) {}

  /** Offsets of the topic beyond the last batch delivered (records and transaction markers): the feed's lag. */
  get offsetLag(): number {
    return this.progress.offsetLag;
  }

  /**
   * A member of the consumer group: joined, and not crashed, disconnected or stopped since (kafkajs rejoins
   * after a crash it can retry). A member the group gives no partition (a second projector) is joined too.
   */
  get joined(): boolean {
    return this.progress.joined;
  }

  /**
   * Starts consuming. `log` is a reader of the same topic (a KafkaLog opened with role 'reader'), used to fill
   * a gap between the projector's progress and the group's offset.
   */
  static async start(options: KafkaFeedOptions, projector: Projector, log: EventLog): Promise<KafkaProjectionFeed> {
    const kafka = new Kafka({ clientId: options.clientId, brokers: [...options.brokers], logLevel: logLevel.NOTHING });
    // A short fetch wait: a read_committed fetch can sit out its whole wait before it sees a commit, and readers
    // of the account reads wait for the projector (kafkajs's default is 5 s).
    // A 10 s session: a projector that died holds the group (and so its replacement) until its session expires
    // (kafkajs's default is 30 s; brokers accept 6 s and more by default).
    const consumer = kafka.consumer({
      groupId: options.groupId ?? `${options.topic}.projector.${projector.name}`,
      readUncommitted: false,
      maxWaitTimeInMs: options.fetchWaitMs ?? 50,
      // A fetch takes up to MAX_FETCH_BYTES (kafkajs's default is 1 MB, ~1,000 records): the commits are spaced
      // by minIntervalMs, so the most a fetch brings bounds how many records per second the feed can project.
      maxBytesPerPartition: MAX_FETCH_BYTES,
      maxBytes: MAX_FETCH_BYTES,
      sessionTimeout: 10_000,
      heartbeatInterval: 1_000,
    });
    const progress = { offsetLag: 0, joined: false };
    consumer.on(consumer.events.GROUP_JOIN, () => (progress.joined = true));
    for (const left of [consumer.events.CRASH, consumer.events.DISCONNECT, consumer.events.STOP]) consumer.on(left, () => (progress.joined = false));
    await consumer.connect();
    await consumer.subscribe({ topic: options.topic, fromBeginning: true });
    let fail: (error: Error) => void = () => undefined;
    const stopped = new Promise<void>((_, reject) => (fail = reject));
    stopped.catch(() => undefined);
    // Once no batch has followed for IDLE_RECORD_MS, the projector records its progress (projector.ts
    // recordProgress()): readers in other processes learn the projected position from that record.
    let idle: NodeJS.Timeout | undefined;
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat, isRunning }) => {
        const started = performance.now();
        clearTimeout(idle);
        const records: EventsRecord[] = [];
        let lastOffset: string | undefined;
        let bytes = 0;
        for (const message of batch.messages) {
          if (message.value !== null) {
            records.push(decodeEvents(message.value));
            bytes += message.value.length;
          }
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
        progress.offsetLag = Math.max(0, Number(batch.highWatermark) - Number(lastOffset) - 1);
        idle = setTimeout(() => projector.recordProgress().catch((error: unknown) => fail(error instanceof Error ? error : new Error(String(error)))), IDLE_RECORD_MS);
        await heartbeat();
        // The pause gathers what arrives meanwhile into the next batch. A batch that filled half a fetch says
        // the feed is behind: its next batch is waiting already, so it goes on at once. (The offsets left
        // beyond the batch do not say it: they include the transaction's marker and uncommitted records.)
        const rest = (options.minIntervalMs ?? 0) - (performance.now() - started);
        if (rest > 0 && bytes < MAX_FETCH_BYTES / 2 && isRunning()) await new Promise((resolve) => setTimeout(resolve, rest));
      },
    });
    return new KafkaProjectionFeed(consumer, stopped, progress);
  }

  /** Rejects when projecting a consumed batch failed (the consumer then stops taking batches). */
  get failure(): Promise<void> {
    return this.stopped;
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}
