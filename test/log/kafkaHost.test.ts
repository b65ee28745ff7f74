// The engine host over the Kafka event log, against a real broker: replies leave only after the append, a lost
// commit acknowledgement is retried by the host without a duplicate, a fenced engine stops, and snapshot +
// replay from the topic gives the live state hash.

import t from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ENGINE_CONFIG, Engine } from '../../engine/index.js';
import { FatalLogError } from '../../log/eventLog.js';
import { KafkaLog, type KafkaLogOptions } from '../../log/kafka/kafkaLog.js';
import { EngineHost, EngineStoppedError, type Submission } from '../../host/engineHost.js';
import { SnapshotStore } from '../../host/snapshotStore.js';
import { recover } from '../../host/recovery.js';
import { kafkaBrokers, uniqueTopic } from '../support/kafkaBroker.js';
import { API, FaultySockets } from '../support/kafkaFaults.js';
import { dumpTopic } from '../support/kafkaTopicDump.js';
import { ScriptedLog } from '../support/logWrappers.js';
import { sessionCommands } from '../support/records.js';

const brokers = await kafkaBrokers();

let clock = 1_700_000_000_000;
const tick = (): number => (clock += 1);

function submissions(count: number): Submission[] {
  return sessionCommands(count).map(({ time: _time, ...rest }) => rest as Submission);
}

function open(topic: string, over: Partial<KafkaLogOptions> = {}): Promise<KafkaLog> {
  return KafkaLog.open({ brokers, topic, clientId: 'kafka-host-test', replicationFactor: 1, ...over });
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

t.test('a reply leaves only after its records are committed to Kafka', async (t) => {
  const topic = uniqueTopic('host-reply');
  const kafka = await open(topic);
  t.teardown(() => kafka.close());
  const log = new ScriptedLog(kafka);
  const host = new EngineHost(new Engine(), log, { maxBatch: 100, clock: tick });
  log.hold();
  let replied = false;
  const reply = host.submit(submissions(1)[0] as Submission).then(() => (replied = true));
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.notOk(replied, 'no reply while the append is held');
  t.same((await dumpTopic(brokers, topic, 0)).positions, [], 'and nothing in the topic');
  log.release();
  await reply;
  t.equal(kafka.lastPos, 1);
  t.same((await dumpTopic(brokers, topic, 1)).positions, [1], 'the replied command is in the topic');
});

t.test('the host retries an append whose commit reply was lost; the topic holds each record once', async (t) => {
  const topic = uniqueTopic('host-ambiguous');
  const faults = new FaultySockets();
  const log = await open(topic, { socketFactory: faults.factory });
  t.teardown(() => log.close());
  const host = new EngineHost(new Engine(), log, { maxBatch: 100, clock: tick, retryDelayMs: 1 });
  await Promise.all(submissions(10).map((s) => host.submit(s)));
  faults.arm(API.EndTxn, 'lose-response');
  const replies = await Promise.all(submissions(30).slice(10).map((s) => host.submit(s)));
  t.equal(faults.fired, 1, 'one commit reply was lost');
  t.equal(replies.length, 20, 'every command was answered once the retry settled');
  t.equal(host.position, 30);
  t.same((await dumpTopic(brokers, topic, 30)).positions, range(1, 30), 'no duplicates');
});

t.test('a fenced engine stops: nothing unlogged is acknowledged', async (t) => {
  const topic = uniqueTopic('host-fenced');
  const log = await open(topic);
  t.teardown(() => log.close());
  let stoppedWith: Error | undefined;
  const host = new EngineHost(new Engine(), log, { maxBatch: 100, clock: tick, retryDelayMs: 1, onStop: (e) => (stoppedWith = e) });
  await Promise.all(submissions(5).map((s) => host.submit(s)));
  const newer = await open(topic, { clientId: 'newer-engine' });
  t.teardown(() => newer.close());
  const results = await Promise.allSettled(submissions(8).slice(5).map((s) => host.submit(s)));
  t.ok(results.every((r) => r.status === 'rejected' && r.reason instanceof EngineStoppedError), 'the unlogged commands are refused');
  t.type(stoppedWith, FatalLogError);
  t.match(stoppedWith?.message, /fenced/);
  t.equal(newer.lastPos, 5);
  t.same((await dumpTopic(brokers, topic, 5)).positions, range(1, 5));
});

t.test('snapshot + replay from the Kafka topic gives the live state hash', async (t) => {
  const topic = uniqueTopic('host-replay');
  const store = new SnapshotStore(mkdtempSync(join(tmpdir(), 'kafka-snapshots-')));
  const log = await open(topic);
  const engine = new Engine();
  const host = new EngineHost(engine, log, { maxBatch: 50, clock: tick, snapshotEvery: 300, snapshots: store });
  const all = submissions(1_000);
  for (let i = 0; i < all.length; i += 97) await Promise.all(all.slice(i, i + 97).map((s) => host.submit(s)));
  await host.idle();
  const liveHash = engine.stateHash();
  await log.close();

  const reopened = await open(topic);
  t.teardown(() => reopened.close());
  t.equal(reopened.lastPos, 1_000);
  const restored = await recover(reopened, store, { engineConfig: DEFAULT_ENGINE_CONFIG });
  t.ok(restored.snapshotPos > 0 && restored.snapshotPos < 1_000, `replayed from the snapshot at ${restored.snapshotPos}`);
  t.equal(restored.pos, 1_000);
  t.equal(restored.engine.stateHash(), liveHash, 'snapshot + replay = live state');
  const full = await recover(reopened, undefined, { engineConfig: DEFAULT_ENGINE_CONFIG });
  t.equal(full.replayed, 1_000);
  t.equal(full.engine.stateHash(), liveHash, 'a full replay from position 1 agrees');
});
