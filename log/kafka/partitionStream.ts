// Raw records of the log's one partition from a given offset, read committed, as chunks the caller pulls.
//
// kafkajs reads through consumer groups only, so each stream is a consumer of its own fresh group (no offsets
// are ever committed) that seeks to the start offset. Chunks carry `next`, the offset after everything the
// fetch covered, transaction markers and aborted records included, which a caller needs to know when it has
// reached an end offset. The stream only moves forward: after seek(), and after kafkajs re-delivers anything
// (a fetch in flight during a seek, a rejoin), records below the stream's position are dropped, so every
// offset is delivered at most once and in order.
//
// Backpressure: while too many chunks wait, the partition is paused (the consumer keeps heart-beating).

import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka } from 'kafkajs';
import { PARTITION } from './kafkaTopic.js';

export interface RawRecord {
  readonly offset: number;
  readonly value: Buffer;
}

export interface Chunk {
  /** Committed data records (markers and aborted records removed), offsets ascending. */
  readonly records: readonly RawRecord[];
  /** The stream's position after this chunk: the next offset it will deliver. */
  readonly next: number;
}

export interface StreamOptions {
  readonly groupPrefix: string;
  /** Longest a fetch waits for data (also bounds how long close() takes). */
  readonly fetchWaitMs: number;
}

const PAUSE_AT = 32;
const RESUME_AT = 8;

export class PartitionStream {
  private readonly queue: Chunk[] = [];
  private waiter: (() => void) | null = null;
  private failure: Error | null = null;
  private paused = false;
  private closing: Promise<void> | null = null;
  private nextOffset: number;

  private constructor(
    private readonly consumer: Consumer,
    private readonly topic: string,
    start: number,
  ) {
    this.nextOffset = start;
  }

  static async open(kafka: Kafka, topic: string, start: number, options: StreamOptions): Promise<PartitionStream> {
    const consumer = kafka.consumer({
      groupId: `${options.groupPrefix}-${randomUUID()}`,
      readUncommitted: false,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: options.fetchWaitMs,
      retry: { retries: 5, restartOnFailure: async () => false },
    });
    const stream = new PartitionStream(consumer, topic, start);
    consumer.on(consumer.events.CRASH, (event) => stream.fail(event.payload.error));
    // Batches that held only markers or aborted records never reach eachBatch; their end arrives here.
    consumer.on(consumer.events.END_BATCH_PROCESS, (event) => {
      if (event.payload.batchSize === 0) stream.push([], Number(event.payload.lastOffset) + 1);
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      const running = consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          const records = batch.messages.map((m) => ({ offset: Number(m.offset), value: m.value ?? Buffer.alloc(0) }));
          stream.push(records, Number(batch.lastOffset()) + 1);
        },
      });
      // run() creates the consumer group synchronously, so the seek applies to the very first fetch.
      consumer.seek({ topic, partition: PARTITION, offset: String(start) });
      await running;
    } catch (error) {
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
    return stream;
  }

  /** The next offset this stream will deliver. */
  get position(): number {
    return this.nextOffset;
  }

  /**
   * The next chunk that moves the stream forward; null once the stream is closed or `signal` aborts.
   * With `stallMs`, fails when nothing arrives for that long.
   */
  async next(signal?: AbortSignal, stallMs?: number): Promise<Chunk | null> {
    for (;;) {
      if (this.failure !== null) throw this.failure;
      if (this.closing !== null || signal?.aborted === true) return null;
      const chunk = this.queue.shift();
      if (chunk === undefined) {
        await this.wait(signal, stallMs);
        continue;
      }
      if (this.paused && this.queue.length <= RESUME_AT) {
        this.paused = false;
        this.consumer.resume([{ topic: this.topic, partitions: [PARTITION] }]);
      }
      const records = chunk.records.filter((r) => r.offset >= this.nextOffset);
      if (records.length === 0 && chunk.next <= this.nextOffset) continue;
      this.nextOffset = Math.max(this.nextOffset, chunk.next);
      return { records, next: this.nextOffset };
    }
  }

  /** Skips forward to `offset` (never backward). */
  seek(offset: number): void {
    if (offset <= this.nextOffset || this.closing !== null) return;
    this.nextOffset = offset;
    this.consumer.seek({ topic: this.topic, partition: PARTITION, offset: String(offset) });
  }

  close(): Promise<void> {
    this.closing ??= this.consumer.disconnect().catch(() => undefined);
    this.wake();
    return this.closing;
  }

  private push(records: RawRecord[], next: number): void {
    if (this.closing !== null) return;
    this.queue.push({ records, next });
    if (!this.paused && this.queue.length >= PAUSE_AT) {
      this.paused = true;
      this.consumer.pause([{ topic: this.topic, partitions: [PARTITION] }]);
    }
    this.wake();
  }

  private fail(error: Error): void {
    this.failure ??= new Error(`reading Kafka topic "${this.topic}" failed: ${error.message}`, { cause: error });
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }

  private wait(signal: AbortSignal | undefined, stallMs: number | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const finish = (error?: Error): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', wake);
        if (this.waiter === wake) this.waiter = null;
        if (error === undefined) resolve();
        else reject(error);
      };
      const wake = (): void => finish();
      this.waiter = wake;
      signal?.addEventListener('abort', wake, { once: true });
      if (stallMs !== undefined) {
        timer = setTimeout(
          () => finish(new Error(`no data from Kafka topic "${this.topic}" for ${stallMs} ms while reading at offset ${this.nextOffset}`)),
          stallMs,
        );
      }
    });
  }
}
