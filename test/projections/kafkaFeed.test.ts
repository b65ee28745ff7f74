// Projections fed from a real Kafka topic through a consumer group: offsets are committed only after the
// ClickHouse insert, a restarted feed resumes from the committed offset without duplicates, and a projector
// behind the group's offset (a fresh database) fills the gap from the log.

import t from 'tap';
import { Kafka, logLevel } from 'kafkajs';
import { openKafkaLog } from '../../log/kafka/kafkaLog.js';
import { EngineHost, type Submission } from '../../host/engineHost.js';
import { Engine } from '../../engine/index.js';
import { Projector } from '../../projections/projector.js';
import { KafkaProjectionFeed } from '../../projections/kafkaFeed.js';
import { kafkaBrokers, uniqueTopic } from '../support/kafkaBroker.js';
import { genesis } from '../engine/modelCommands.js';
import { FEE_ACCOUNT, crossingCommands, freshDatabase, sessionFor } from '../support/projectionFixtures.js';
import type { ClickHouseClient } from '@clickhouse/client';
import { encodeRecord } from '../../log/recordCodec.js';

async function fillCounts(ch: ClickHouseClient, db: string): Promise<{ n: number; u: number }> {
  const result = await ch.query({ query: `SELECT count() AS n, uniqExact(fill_id) AS u FROM ${db}.fills`, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  const [row] = (await result.json()) as { n: number; u: number }[];
  return { n: Number(row?.n), u: Number(row?.u) };
}

t.test('a consumer group feeds the projector; offsets follow the inserts', async (t) => {
  const brokers = await kafkaBrokers();
  const topic = uniqueTopic('proj-feed');
  const writer = await openKafkaLog({ brokers, topic, clientId: 'test-writer', replicationFactor: 1 });
  const host = new EngineHost(new Engine(), writer, { maxBatch: 100, clock: () => Date.now() });
  const session = sessionFor(777, 300);
  const listed = genesis().length;
  const submissions = [...session.slice(0, listed), ...crossingCommands(200), ...session.slice(listed)].map(({ time: _t, ...rest }) => rest as Submission);
  let fills = 0;
  const submitAll = async (subs: Submission[]): Promise<void> => {
    for (let i = 0; i < subs.length; i += 50) {
      const replies = await Promise.all(subs.slice(i, i + 50).map((s) => host.submit(s)));
      for (const events of replies) fills += events.filter((e) => e.type === 'TradeExecuted').length;
    }
  };
  const half = Math.floor(submissions.length / 2);
  await submitAll(submissions.slice(0, half));

  const reader = await openKafkaLog({ brokers, topic, clientId: 'test-reader', role: 'reader' });
  const { ch, db } = await freshDatabase();
  const projector = new Projector(ch, db, reader, { feeAccount: FEE_ACCOUNT, maxBatch: 40 });
  await projector.start();
  const groupId = `${topic}.projector`;
  let feed = await KafkaProjectionFeed.start({ brokers, topic, clientId: 'test-feed', groupId }, projector, reader);
  await projector.waitFor(writer.lastPos, 60_000);
  t.same(await fillCounts(ch, db), { n: fills, u: fills }, `first half: ${fills} fills once`);
  t.equal(feed.joined, true, 'a member of the group while it runs');
  await feed.stop();
  t.equal(feed.joined, false, 'and no longer once stopped');

  await submitAll(submissions.slice(half));
  feed = await KafkaProjectionFeed.start({ brokers, topic, clientId: 'test-feed', groupId }, projector, reader);
  await projector.waitFor(writer.lastPos, 60_000);
  t.same(await fillCounts(ch, db), { n: fills, u: fills }, `after a restart of the feed: ${fills} fills, none twice`);
  await feed.stop();

  const admin = new Kafka({ clientId: 'test-admin', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  const committed = Number(offsets?.partitions[0]?.offset ?? -1);
  t.ok(committed > 0, `the group committed offset ${committed}`);
  await admin.disconnect();

  const fresh = await freshDatabase();
  const behind = new Projector(fresh.ch, fresh.db, reader, { feeAccount: FEE_ACCOUNT, maxBatch: 40 });
  await behind.start();
  const more = crossingCommands(60, 1_900_000_000_000, 'late').map(({ time: _t, ...rest }) => rest as Submission);
  const lateFeed = await KafkaProjectionFeed.start({ brokers, topic, clientId: 'test-feed', groupId }, behind, reader);
  await submitAll(more);
  await behind.waitFor(writer.lastPos, 60_000);
  t.same(await fillCounts(fresh.ch, fresh.db), { n: fills, u: fills }, 'a projector behind the group offset filled the gap from the log');
  await lateFeed.stop();
  await reader.close();
  await writer.close();
});

t.test('a backlog larger than kafkajs\'s default fetch is projected without pausing between batches', async (t) => {
  // The feed pauses minIntervalMs after a commit to gather the next batch; behind, it must not: the pause
  // would cap it at one fetch per interval. Here the pause is 20 s, and the backlog several default fetches
  // (1 MB): the projector must hold it all well within one pause.
  const brokers = await kafkaBrokers();
  const topic = uniqueTopic('proj-backlog');
  const writer = await openKafkaLog({ brokers, topic, clientId: 'test-writer', replicationFactor: 1 });
  const host = new EngineHost(new Engine(), writer, { maxBatch: 500, clock: () => Date.now() });
  const submissions = [...genesis(), ...crossingCommands(6_000, 1_800_000_000_000, 'backlog')].map(({ time: _t, ...rest }) => rest as Submission);
  for (let i = 0; i < submissions.length; i += 500) await Promise.all(submissions.slice(i, i + 500).map((s) => host.submit(s)));
  const reader = await openKafkaLog({ brokers, topic, clientId: 'test-reader', role: 'reader' });
  let bytes = 0;
  for await (const record of reader.read(1)) bytes += encodeRecord(record).length;
  t.ok(bytes > 3 * 1024 * 1024, `the backlog is ${(bytes / 1024 / 1024).toFixed(1)} MB of records`);

  const { ch, db } = await freshDatabase();
  let commits = 0;
  const projector = new Projector(ch, db, reader, { feeAccount: FEE_ACCOUNT, minIntervalMs: 20_000, onBatch: () => (commits += 1) });
  await projector.start();
  const started = performance.now();
  const feed = await KafkaProjectionFeed.start({ brokers, topic, clientId: 'test-feed', groupId: `${topic}.projector`, minIntervalMs: 20_000 }, projector, reader);
  await projector.waitFor(writer.lastPos, 15_000);
  t.pass(`${writer.lastPos} records projected in ${commits} commits, ${Math.round(performance.now() - started)} ms`);
  await feed.stop();
  await reader.close();
  await writer.close();
});
