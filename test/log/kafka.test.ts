// The Kafka event log against a real broker (KAFKA_BROKERS, or one started by test/support/kafkaBroker.ts):
// append and read back, read from the middle, follow, idempotent appends, ambiguous acknowledgements (a commit
// that lands but whose reply is lost), fencing of an older writer, reopening, and refusal of a damaged topic.
// Every test uses its own topic. Records come from the real engine (test/support/records.ts).

import t from 'tap';
import { Kafka, logLevel } from 'kafkajs';
import { FatalLogError, LogCorruptError, type LogRecord } from '../../log/eventLog.js';
import { encodeRecord, UnknownRecordVersionError } from '../../log/recordCodec.js';
import { KafkaLog, type KafkaLogOptions } from '../../log/kafka/kafkaLog.js';
import { KafkaAppendError } from '../../log/kafka/kafkaErrors.js';
import { kafkaBrokers, leaveOpenTransaction, uniqueTopic } from '../support/kafkaBroker.js';
import { API, FaultySockets } from '../support/kafkaFaults.js';
import { dumpTopic } from '../support/kafkaTopicDump.js';
import { recordsFor, sessionCommands } from '../support/records.js';

const brokers = await kafkaBrokers();

function options(topic: string, over: Partial<KafkaLogOptions> = {}): KafkaLogOptions {
  return { brokers, topic, clientId: 'kafka-log-test', replicationFactor: 1, ...over };
}

async function open(topic: string, over: Partial<KafkaLogOptions> = {}): Promise<KafkaLog> {
  return KafkaLog.open(options(topic, over));
}

async function readAll(log: KafkaLog, from = 1): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for await (const record of log.read(from)) out.push(record);
  return out;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const session = recordsFor(sessionCommands(60));
const slice = (from: number, to: number): LogRecord[] => session.slice(from - 1, to);

t.test('an empty topic: lastPos 0, read yields nothing', async (t) => {
  const log = await open(uniqueTopic('empty'));
  t.teardown(() => log.close());
  t.equal(log.lastPos, 0);
  t.same(await readAll(log), []);
});

t.test('appended records read back equal, whole and from the middle', async (t) => {
  const log = await open(uniqueTopic('roundtrip'));
  t.teardown(() => log.close());
  await log.append(slice(1, 5));
  await log.append(slice(6, 12));
  await log.append(slice(13, 20));
  t.equal(log.lastPos, 20);
  const all = await readAll(log);
  t.same(all, slice(1, 20), 'positions, commands and events equal what was appended');
  t.match(all[0], { pos: 1, command: { type: 'ListMarket' }, events: [{ type: 'MarketListed' }] });
  t.same((await readAll(log, 9)).map((r) => r.pos), range(9, 20), 'read from the middle of a batch');
  t.same((await readAll(log, 13)).map((r) => r.pos), range(13, 20), 'read from the start of a batch');
  t.same(await readAll(log, 21), [], 'read past the end yields nothing');
});

t.test('read finds a position far into a topic of one-record transactions (a marker after every record)', async (t) => {
  const topic = uniqueTopic('markers');
  const writer = await open(topic);
  for (let pos = 1; pos <= 60; pos++) await writer.append(slice(pos, pos));
  await writer.close();
  const dump = await dumpTopic(brokers, topic, 60);
  t.equal(dump.end, 120, 'each append took two offsets: the record and its commit marker');
  // A fresh reader knows no offsets: it has to find position 50 (offset 98) by seeking forward.
  const reader = await open(topic, { role: 'reader' });
  t.teardown(() => reader.close());
  t.same((await readAll(reader, 50)).map((r) => r.pos), range(50, 60));
  t.same(await readAll(reader, 50), slice(50, 60));
  // A wrong offset hint (past the position) costs a second search, not a wrong answer.
  const hinted = await open(topic, { role: 'reader' });
  t.teardown(() => hinted.close());
  hinted.addOffsetHint(29, 110);
  t.same((await readAll(hinted, 30)).map((r) => r.pos), range(30, 60), 'a bad hint is recovered from');
  t.ok((hinted.offsetHint(59) ?? 0) <= 118, 'offset hints stay lower bounds');
});

t.test('follow yields existing records, then records appended after it started, until aborted', async (t) => {
  const log = await open(uniqueTopic('follow'));
  t.teardown(() => log.close());
  await log.append(slice(1, 3));
  const controller = new AbortController();
  const giveUp = setTimeout(() => controller.abort(), 20_000);
  const seen: number[] = [];
  const following = (async () => {
    for await (const record of log.follow(2, controller.signal)) {
      seen.push(record.pos);
      if (record.pos === 6) controller.abort();
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 300));
  await log.append(slice(4, 4));
  await log.append(slice(5, 6));
  await following;
  clearTimeout(giveUp);
  t.same(seen, range(2, 6), 'old and new records, in order, each once');
});

t.test('appends are idempotent by position: a repeated batch and an overlapping one add no duplicates', async (t) => {
  const topic = uniqueTopic('idempotent');
  const log = await open(topic);
  t.teardown(() => log.close());
  await log.append(slice(1, 6));
  await log.append(slice(1, 6));
  await log.append(slice(4, 8));
  await log.append(slice(8, 8));
  await log.append([]);
  t.equal(log.lastPos, 8);
  const dump = await dumpTopic(brokers, topic, 8);
  t.same(dump.positions, range(1, 8), 'the topic holds each position once');
  t.equal(dump.end, 10, 'two transactions (8 records and 2 markers): the skipped appends wrote nothing');
  t.same(await readAll(log), slice(1, 8));
  await t.rejects(log.append(slice(10, 11)), FatalLogError, 'an append that would leave a gap is refused');
});

t.test('ambiguous acknowledgement: the commit lands but its reply is lost; the retry re-learns and adds nothing', async (t) => {
  const topic = uniqueTopic('ambiguous');
  const faults = new FaultySockets();
  const log = await open(topic, { socketFactory: faults.factory });
  t.teardown(() => log.close());
  await log.append(slice(1, 4));
  faults.arm(API.EndTxn, 'lose-response');
  const failure = await log.append(slice(5, 9)).then(
    () => null,
    (e: unknown) => e,
  );
  t.equal(faults.fired, 1, 'the EndTxn reply was lost');
  t.type(failure, KafkaAppendError, 'the append reports a retriable failure');
  t.match(failure, { retriable: true, message: /may or may not have landed/ });
  await log.append(slice(5, 9));
  t.equal(log.lastPos, 9, 'the retry learned that the batch had landed');
  await log.append(slice(10, 11));
  const dump = await dumpTopic(brokers, topic, 11);
  t.same(dump.positions, range(1, 11), 'no duplicate of the batch whose acknowledgement was lost');
  t.same(await readAll(log), slice(1, 11));
});

t.test('ambiguous failure that did not land: the retry writes the batch exactly once', async (t) => {
  const topic = uniqueTopic('notlanded');
  const faults = new FaultySockets();
  const log = await open(topic, { socketFactory: faults.factory });
  t.teardown(() => log.close());
  await log.append(slice(1, 2));
  faults.arm(API.EndTxn, 'lose-request');
  await t.rejects(log.append(slice(3, 5)), KafkaAppendError, 'the commit never reached the broker');
  t.equal(faults.fired, 1);
  await log.append(slice(3, 5));
  t.equal(log.lastPos, 5);
  const dump = await dumpTopic(brokers, topic, 5);
  t.same(dump.positions, range(1, 5), 'the open transaction was aborted and the retry wrote each record once');
});

t.test('an append that lands but whose caller sees a failure: a retry from a reopened log adds nothing', async (t) => {
  const topic = uniqueTopic('reopenretry');
  const first = await open(topic);
  await first.append(slice(1, 3));
  await first.append(slice(4, 6)); // landed; suppose the process lost the reply and restarted
  await first.close();
  const second = await open(topic);
  t.teardown(() => second.close());
  t.equal(second.lastPos, 6, 'the reopened log learned the last durable position from the topic');
  await second.append(slice(4, 6));
  await second.append(slice(4, 7));
  t.same((await dumpTopic(brokers, topic, 7)).positions, range(1, 7));
});

t.test('a second writer fences the first: its next append is FatalLogError and its records stay', async (t) => {
  const topic = uniqueTopic('fencing');
  const first = await open(topic);
  t.teardown(() => first.close());
  await first.append(slice(1, 3));
  const reader = await open(topic, { role: 'reader' });
  t.teardown(() => reader.close());
  await first.append(slice(4, 5));
  t.equal(first.lastPos, 5, 'opening a reader does not fence the writer');

  const second = await open(topic, { clientId: 'another-engine' });
  t.teardown(() => second.close());
  t.equal(second.lastPos, 5, 'the new writer starts from the durable end');
  const rejected = await first.append(slice(6, 7)).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(rejected, FatalLogError, 'the fenced writer cannot append');
  t.match(rejected, { retriable: false, message: /fenced/ });
  await t.rejects(first.append(slice(6, 7)), FatalLogError, 'and stays fenced');
  await second.append(slice(6, 8));
  t.same((await dumpTopic(brokers, topic, 8)).positions, range(1, 8), "the first writer's records stay; nothing of its fenced append");
  t.same(await readAll(reader), slice(1, 8));
  t.equal(reader.lastPos, 8, "a reader's lastPos follows what it read");
  await t.rejects(reader.append(slice(9, 9)), FatalLogError, 'a reader never writes');
});

t.test('reopening learns lastPos, also when the topic ends with an aborted transaction', async (t) => {
  const topic = uniqueTopic('reopen');
  const first = await open(topic);
  await first.append(slice(1, 10));
  await first.close();
  const second = await open(topic);
  t.equal(second.lastPos, 10);
  await second.append(slice(11, 12));
  await second.close();

  // A crashed writer leaves a transaction open; the next writer's start aborts it.
  await leaveOpenTransaction(brokers, topic, `${topic}.engine-writer`, encodeRecord(slice(13, 13)[0] as LogRecord));

  const third = await open(topic);
  t.teardown(() => third.close());
  t.equal(third.lastPos, 12, 'the uncommitted record does not count');
  await third.append(slice(13, 14));
  t.same((await readAll(third)).map((r) => r.pos), range(1, 14));
  t.same((await dumpTopic(brokers, topic, 14)).positions, range(1, 14), 'the aborted record is invisible');
});

t.test('a topic with a gap or an unknown record version is refused clearly', async (t) => {
  const kafka = new Kafka({ clientId: 'test-raw-writer', brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  t.teardown(() => producer.disconnect());

  const gappy = uniqueTopic('gap');
  const log = await open(gappy);
  t.teardown(() => log.close());
  await producer.send({ topic: gappy, acks: -1, messages: [1, 2, 4].map((pos) => ({ partition: 0, value: encodeRecord(slice(pos, pos)[0] as LogRecord) })) });
  await t.rejects(readAll(log), LogCorruptError, 'a missing position');
  await t.rejects(readAll(log), { message: /position 4 follows position 2/ });

  const versioned = uniqueTopic('version');
  const other = await open(versioned);
  t.teardown(() => other.close());
  const future = Buffer.from(encodeRecord(slice(1, 1)[0] as LogRecord));
  future.writeUInt8(9, 0);
  await producer.send({ topic: versioned, acks: -1, messages: [{ partition: 0, value: future }] });
  await t.rejects(readAll(other), UnknownRecordVersionError);
});

t.test('a topic with more than one partition is refused', async (t) => {
  const kafka = new Kafka({ clientId: 'test-admin', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  t.teardown(() => admin.disconnect());
  const topic = uniqueTopic('partitions');
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 2, replicationFactor: 1 }] });
  await t.rejects(open(topic), { message: /has 2 partitions; the event log needs exactly 1/ });
});
