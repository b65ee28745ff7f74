// The Kafka log's writer lanes (log/kafka/writerLanes.ts) against a real broker: appends take the lanes'
// transactional ids in turn, the first append after opening is on lane 1, another holder of any lane's id
// stops the writer at its first append there, a transaction a crashed writer left open on lane 2 is aborted
// at open, and the lanes spare the coordinator's refusals (CONCURRENT_TRANSACTIONS) that back to back
// transactions on one id meet.

import t, { type Test } from 'tap';
import { Kafka, logLevel } from 'kafkajs';
import { FatalLogError, type LogRecord } from '../../log/eventLog.js';
import { encodeRecord } from '../../log/recordCodec.js';
import { KafkaLog, type KafkaLogOptions } from '../../log/kafka/kafkaLog.js';
import { laneIds } from '../../log/kafka/writerLanes.js';
import { kafkaBrokers, leaveOpenTransaction, uniqueTopic } from '../support/kafkaBroker.js';
import { API, FaultySockets } from '../support/kafkaFaults.js';
import { dumpTopic } from '../support/kafkaTopicDump.js';
import { recordsFor, sessionCommands } from '../support/records.js';

const brokers = await kafkaBrokers();

function open(topic: string, over: Partial<KafkaLogOptions> = {}): Promise<KafkaLog> {
  return KafkaLog.open({ brokers, topic, clientId: 'kafka-lanes-test', replicationFactor: 1, ...over });
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const session = recordsFor(sessionCommands(60));
const slice = (from: number, to: number): LogRecord[] => session.slice(from - 1, to);

/** Takes a transactional id over, as another writer's start does (fencing its earlier holder). */
async function takeOver(t: Test, transactionalId: string): Promise<void> {
  const kafka = new Kafka({ clientId: 'lanes-test-other', brokers, logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const tx = await producer.transaction();
  await tx.abort();
  t.teardown(() => producer.disconnect());
}

t.test('the lanes are the log id and <id>.2, ...', async (t) => {
  t.same(laneIds('events.engine-writer'), ['events.engine-writer', 'events.engine-writer.2']);
  t.same(laneIds('x', 3), ['x', 'x.2', 'x.3']);
  t.throws(() => laneIds('x', 0), RangeError);
});

t.test("appends alternate: another holder of lane 2's id stops the writer at its next append there", async (t) => {
  const topic = uniqueTopic('lane2');
  const log = await open(topic);
  t.teardown(() => log.close());
  await log.append(slice(1, 2)); // lane 1
  await log.append(slice(3, 4)); // lane 2
  await log.append(slice(5, 6)); // lane 1
  await takeOver(t, `${topic}.engine-writer.2`);
  await t.rejects(log.append(slice(7, 8)), { name: 'FatalLogError', message: /fenced.*"[^"]+\.engine-writer", "[^"]+\.engine-writer\.2"/ }, 'the append on lane 2 is fenced');
  await t.rejects(log.append(slice(7, 8)), FatalLogError, 'and the writer stays stopped, lane 1 included');
  t.same((await dumpTopic(brokers, topic, 6)).positions, range(1, 6), 'what was acknowledged stays, once');
});

t.test('the first append after opening is on lane 1: a writer that lost lane 1 writes nothing', async (t) => {
  const topic = uniqueTopic('lane1');
  const log = await open(topic);
  t.teardown(() => log.close());
  // Another writer started and took lane 1 after this one opened (its lane 2 is still this writer's).
  await takeOver(t, `${topic}.engine-writer`);
  await t.rejects(log.append(slice(1, 3)), FatalLogError, 'fenced at once, not after one append on lane 2');
  const reader = await open(topic, { role: 'reader' });
  t.teardown(() => reader.close());
  t.equal(reader.lastPos, 0, 'nothing was written');
});

t.test("a transaction a crashed writer left open on lane 2 is aborted when the next writer opens", async (t) => {
  const topic = uniqueTopic('lane2open');
  const first = await open(topic);
  await first.append(slice(1, 5));
  await first.close();
  await leaveOpenTransaction(brokers, topic, `${topic}.engine-writer.2`, encodeRecord(slice(6, 6)[0] as LogRecord));

  const second = await open(topic);
  t.teardown(() => second.close());
  t.equal(second.lastPos, 5, 'the uncommitted record does not count');
  await second.append(slice(6, 7));
  await second.append(slice(8, 9));
  t.same((await dumpTopic(brokers, topic, 9)).positions, range(1, 9), 'the aborted record is invisible; each position once');
});

t.test('back to back appends: the lanes spare the coordinator refusals one id meets', async (t) => {
  const retries = async (lanes: number): Promise<number> => {
    const faults = new FaultySockets();
    const log = await open(uniqueTopic(`refusals${lanes}`), { socketFactory: faults.factory, writerLanes: lanes });
    try {
      for (let pos = 1; pos <= 40; pos += 2) await log.append(slice(pos, pos + 1));
    } finally {
      await log.close();
    }
    // One AddPartitionsToTxn per transaction; each more is a retry of one refused while the previous
    // transaction's markers were being written.
    return (faults.sent.get(API.AddPartitionsToTxn) ?? 0) - 20;
  };
  const one = await retries(1);
  const two = await retries(2);
  t.comment(`AddPartitionsToTxn retries over 20 appends: one lane ${one}, two lanes ${two}`);
  t.ok(two < one, `two lanes: ${two} retries, fewer than one lane's ${one}`);
});
