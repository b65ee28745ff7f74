// The log's topic: created on first use with one partition (a total order) and no retention limit (the log is
// the source of truth: Kafka must never delete it by age or size); refused when it exists with more partitions.

import type { Admin } from 'kafkajs';

export const PARTITION = 0;

export interface TopicSpec {
  readonly topic: string;
  readonly create: boolean;
  /** -1: the broker's default. */
  readonly replicationFactor: number;
}

export async function ensureTopic(admin: Admin, spec: TopicSpec): Promise<void> {
  const { topic } = spec;
  const names = await admin.listTopics();
  if (!names.includes(topic)) {
    if (!spec.create) throw new Error(`Kafka topic "${topic}" does not exist (and topic creation is off)`);
    // Resolves false when another process created it first, which is fine.
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic,
          numPartitions: 1,
          replicationFactor: spec.replicationFactor,
          configEntries: [
            { name: 'cleanup.policy', value: 'delete' },
            { name: 'retention.ms', value: '-1' },
            { name: 'retention.bytes', value: '-1' },
            { name: 'unclean.leader.election.enable', value: 'false' },
          ],
        },
      ],
    });
  }
  const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
  const partitions = metadata.topics.find((t) => t.name === topic)?.partitions.length ?? 0;
  if (partitions !== 1) {
    throw new Error(`Kafka topic "${topic}" has ${partitions} partitions; the event log needs exactly 1 so that its order is total`);
  }
}

export interface TopicBounds {
  /** First offset still stored. */
  readonly low: number;
  /** Last stable offset: everything below it is committed or aborted (read_committed end of the topic). */
  readonly end: number;
}

/** Offsets are int64 in Kafka; as JS numbers they stay exact up to 2^53, far beyond any real topic. */
export async function topicBounds(admin: Admin, topic: string): Promise<TopicBounds> {
  // kafkajs's admin lists offsets with isolation level read_committed, so `offset` is the last stable offset.
  const partitions = await admin.fetchTopicOffsets(topic);
  const partition = partitions.find((p) => p.partition === PARTITION);
  if (partition === undefined) throw new Error(`Kafka topic "${topic}" has no partition ${PARTITION}`);
  return { low: Number(partition.low), end: Number(partition.offset) };
}
