// The one writer of the log's topic: a transactional, idempotent kafkajs producer (acks -1, one request in
// flight). Initialising it (InitProducerId for the transactional id) bumps the id's epoch, which fences every
// earlier producer of that id, and aborts or completes a transaction such a producer left open, so the topic's
// committed contents are settled once init() returns. Each write() is one transaction: its records become
// visible to read_committed readers together or not at all.

import type { Kafka, Message, Producer } from 'kafkajs';
import { PARTITION } from './kafkaTopic.js';
import { withCachedCoordinator } from './coordinatorCache.js';

/**
 * Retries inside one send. Right after a commit the coordinator is still writing the commit markers and answers
 * the next transaction's first request with CONCURRENT_TRANSACTIONS for a few milliseconds; the producer's
 * coordinator (coordinatorCache.ts) retries that itself first, and what still fails is retried here at once and
 * then doubling from 1 ms (kafkajs's default first wait is 300 ms; a first wait of 5 ms made a one-record
 * append's median 19 ms on a local broker, 1 ms makes it 13 ms). Bounded, unlike kafkajs's default for
 * idempotent producers (forever), so that an unreachable cluster fails the append after about 15 s instead of
 * hanging the engine; the transaction, not the retry count, is what keeps a retried append from duplicating.
 */
const SEND_RETRY = { initialRetryTime: 1, maxRetryTime: 2_000, retries: 17 };

/** Kafka refuses record batches over the broker's message.max.bytes (1 MiB by default); stay well below it. */
const MAX_SEND_BYTES = 900_000;
const MESSAGE_OVERHEAD = 64;

export interface WriterSpec {
  readonly topic: string;
  readonly transactionalId: string;
  readonly transactionTimeoutMs: number;
}

export class TransactionalWriter {
  private producer: Producer | null = null;

  constructor(
    private readonly kafka: Kafka,
    private readonly spec: WriterSpec,
  ) {}

  /** Connects a fresh producer and takes the transactional id over (fencing earlier holders). */
  async init(): Promise<void> {
    await this.close();
    const producer = withCachedCoordinator(this.kafka, () => this.kafka.producer({
      transactionalId: this.spec.transactionalId,
      transactionTimeout: this.spec.transactionTimeoutMs,
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: () => () => PARTITION,
      retry: SEND_RETRY,
    }));
    try {
      await producer.connect();
      // kafkajs sends InitProducerId on the first transaction; an empty one sends nothing else.
      const transaction = await producer.transaction();
      await transaction.abort();
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      throw error;
    }
    this.producer = producer;
  }

  /** Writes `values` in one transaction; resolves with the offset of each value once committed. */
  async write(values: readonly Buffer[], headers: readonly Record<string, string>[]): Promise<number[]> {
    const producer = this.producer;
    if (producer === null) throw new Error('the Kafka writer is not initialised');
    const transaction = await producer.transaction();
    const offsets: number[] = [];
    let next = 0;
    while (next < values.length) {
      const messages: Message[] = [];
      let bytes = 0;
      while (next < values.length && (messages.length === 0 || bytes + (values[next] as Buffer).length + MESSAGE_OVERHEAD <= MAX_SEND_BYTES)) {
        const value = values[next] as Buffer;
        messages.push({ partition: PARTITION, value, headers: { ...headers[next] } });
        bytes += value.length + MESSAGE_OVERHEAD;
        next++;
      }
      const [metadata] = await transaction.send({ topic: this.spec.topic, acks: -1, messages });
      const base = Number(metadata?.baseOffset ?? Number.NaN);
      // Within one transaction and one partition, a send's records take consecutive offsets.
      for (let i = 0; i < messages.length; i++) offsets.push(base + i);
    }
    await transaction.commit();
    return offsets;
  }

  async close(): Promise<void> {
    const producer = this.producer;
    this.producer = null;
    if (producer !== null) await producer.disconnect().catch(() => undefined);
  }
}
