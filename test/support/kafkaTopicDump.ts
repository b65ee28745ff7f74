// The raw contents of a log topic, below the KafkaLog reader (which skips repeated positions): every committed
// record's position in offset order, so tests can see duplicates.

import { Kafka, logLevel } from 'kafkajs';
import { positionOf } from '../../log/recordCodec.js';
import { topicBounds } from '../../log/kafka/kafkaTopic.js';
import { PartitionStream } from '../../log/kafka/partitionStream.js';

export interface TopicDump {
  /** Positions of the committed records, in offset order. */
  readonly positions: number[];
  /** Offsets of those records. */
  readonly offsets: number[];
  /** The topic's last stable offset. */
  readonly end: number;
}

/**
 * Waits until position `last` is visible (0: does not wait) (Kafka writes commit markers just after a commit returns, so
 * read_committed readers see a transaction a moment later), then dumps. Transactions become visible in offset
 * order, so once `last` is visible every earlier committed record, duplicates included, is visible too.
 */
export async function dumpTopic(brokers: readonly string[], topic: string, last: number): Promise<TopicDump> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const dump = await dumpOnce(brokers, topic);
    if (last <= 0 || dump.positions.includes(last) || Date.now() > deadline) return dump;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function dumpOnce(brokers: readonly string[], topic: string): Promise<TopicDump> {
  const kafka = new Kafka({ clientId: 'test-dump', brokers: [...brokers], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { low, end } = await topicBounds(admin, topic);
    const positions: number[] = [];
    const offsets: number[] = [];
    if (end <= low) return { positions, offsets, end };
    const stream = await PartitionStream.open(kafka, topic, low, { groupPrefix: 'test-dump', fetchWaitMs: 100 });
    try {
      while (stream.position < end) {
        const chunk = await stream.next(undefined, 20_000);
        if (chunk === null) break;
        for (const r of chunk.records) {
          if (r.offset >= end) continue;
          positions.push(positionOf(r.value));
          offsets.push(r.offset);
        }
      }
    } finally {
      await stream.close();
    }
    return { positions, offsets, end };
  } finally {
    await admin.disconnect();
  }
}
