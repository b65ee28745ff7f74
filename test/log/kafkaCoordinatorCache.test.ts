// log/kafka/coordinatorCache.ts against a real broker: a transactional producer looks its transaction
// coordinator up once, not before every AddPartitionsToTxn and EndTxn as kafkajs does by itself, and refreshes
// no metadata when a transaction begun right after a commit is answered CONCURRENT_TRANSACTIONS; transactions
// still commit, and a second producer of the same transactional id still fences the first.

import t from 'tap';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { withCachedCoordinator } from '../../log/kafka/coordinatorCache.js';
import { kafkaBrokers, uniqueTopic } from '../support/kafkaBroker.js';

async function transactions(producer: Producer, topic: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const transaction = await producer.transaction();
    await transaction.send({ topic, acks: -1, messages: [{ partition: 0, value: Buffer.from(`record ${i}`) }] });
    await transaction.commit();
  }
}

t.test('one coordinator lookup for many transactions; fencing unchanged', async (t) => {
  const brokers = await kafkaBrokers();
  const topic = uniqueTopic('coordinator-cache');
  const kafka = new Kafka({ clientId: 'test-coordinator', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }] });
  const transactionalId = `${topic}-writer`;
  const options = { transactionalId, idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false };

  const count = async (producer: Producer, work: () => Promise<void>): Promise<Record<string, number>> => {
    const requests: Record<string, number> = {};
    const off = producer.on(producer.events.REQUEST, (e) => (requests[e.payload.apiName] = (requests[e.payload.apiName] ?? 0) + 1));
    await work();
    off();
    return requests;
  };

  const plain = kafka.producer({ ...options, transactionalId: `${transactionalId}-plain` });
  await plain.connect();
  const uncached = await count(plain, () => transactions(plain, topic, 20));
  t.ok((uncached.GroupCoordinator ?? 0) >= 40, `kafkajs alone looks the coordinator up ${uncached.GroupCoordinator} times for 20 transactions`);
  await plain.disconnect();

  const first = withCachedCoordinator(kafka, () => kafka.producer(options));
  await first.connect();
  const cached = await count(first, () => transactions(first, topic, 20));
  t.ok((cached.GroupCoordinator ?? 0) <= 1, `with the cache: ${cached.GroupCoordinator ?? 0} lookups for 20 transactions`);
  t.equal(cached.EndTxn, 20, 'every transaction was committed');
  // One Metadata request: the producer's first send learns the topic.
  t.ok((cached.Metadata ?? 0) <= 1, `no metadata refresh (${cached.Metadata ?? 0} Metadata requests): a CONCURRENT_TRANSACTIONS answer (${(cached.AddPartitionsToTxn ?? 0) - 20} here) is retried at the coordinator`);

  const second = withCachedCoordinator(kafka, () => kafka.producer(options));
  await second.connect();
  await transactions(second, topic, 1);
  await t.rejects(transactions(first, topic, 1), 'the first producer is fenced by the second');
  await transactions(second, topic, 3);

  const consumer = kafka.consumer({ groupId: `${topic}-check`, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value?.toString() ?? '') });
  // Every committed record, and none of the fenced transaction (which was never committed).
  const until = Date.now() + 20_000;
  while (seen.length < 44 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.equal(seen.length, 44, '20 + 20 + 1 + 3 committed records, and nothing of the fenced transaction');
  await consumer.disconnect();
  await second.disconnect();
  await first.disconnect().catch(() => undefined);
  await admin.disconnect();
});
