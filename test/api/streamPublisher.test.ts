// The stream publisher behind the real engine host and journal: nothing is published while the batch that
// caused it is not durable, a subscriber's snapshot waits for the durable position, and replaying the
// journal into a fresh engine publishes exactly the same messages (what a crash and restart, or a process
// following the log, would show). The fan-out records what is published to which topic, in order.

import t from 'tap';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../engine/index.js';
import { Journal } from '../../log/journal/journal.js';
import type { LogRecord } from '../../log/eventLog.js';
import { EngineHost, type Submission } from '../../host/engineHost.js';
import { StreamPublisher } from '../../api/ws/streamPublisher.js';
import { tokenTopic, userTopic, type Fanout } from '../../api/ws/topics.js';
import { ScriptedLog } from '../support/logWrappers.js';
import { sessionCommands } from '../support/records.js';

class RecordingFanout implements Fanout {
  readonly sent: [string, string][] = [];
  publish(topic: string, message: string): void {
    this.sent.push([topic, message]);
  }
  subscribers(): number {
    return 1;
  }
}

let clock = 1_700_000_000_000;
const tick = (): number => (clock += 1);
const strip = ({ time: _t, ...rest }: { time: number }): Submission => rest as unknown as Submission;

t.test('published only once durable; snapshots wait for the durable position; replay publishes the same', async (t) => {
  const journal = await Journal.open({ dir: mkdtempSync(join(tmpdir(), 'pub-')), segmentBytes: 1 << 20 });
  t.teardown(() => journal.close());
  const log = new ScriptedLog(journal);
  const engine = new Engine();
  const fanout = new RecordingFanout();
  const late: { publisher?: StreamPublisher } = {};
  const host = new EngineHost(engine, log, { maxBatch: 100, clock: tick, onDurable: (records) => late.publisher?.publish(records) });
  const publisher = new StreamPublisher({ engine, fanout, catalog: () => undefined, clock: tick });
  late.publisher = publisher;

  const commands = sessionCommands(40).map(strip);
  for (const c of commands.slice(0, 3)) await host.submit(c);
  publisher.watchToken('101');

  log.hold();
  const before = fanout.sent.length;
  const reply = host.submit(commands[3] as Submission);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(fanout.sent.length, before, 'nothing is published while the append is held');
  t.notOk(publisher.atDurableState, 'the engine is ahead of the log');
  let snapshot: string | undefined;
  let publishedWhenSnapshot = -1;
  publisher.whenDurable(() => {
    snapshot = publisher.snapshotFrame(['101']);
    publishedWhenSnapshot = fanout.sent.length;
  });
  t.equal(snapshot, undefined, 'a snapshot asked for meanwhile waits');
  log.release();
  await reply;
  t.ok(journal.lastPos >= 4, 'the record is durable');
  t.ok(fanout.sent.length > before, 'published after the append');
  t.equal(publishedWhenSnapshot, fanout.sent.length, 'the snapshot was taken right after the batch was published, not before');
  t.ok(fanout.sent.slice(before).some(([topic]) => topic === tokenTopic('101') || topic === tokenTopic('102')), 'a book change of the market');
  t.ok(fanout.sent.slice(before).some(([topic]) => topic === userTopic('k')), 'an order event to its owner\'s key');
  const book = (JSON.parse(snapshot ?? '[]') as { bids: unknown[] }[])[0];
  t.ok(book !== undefined && book.bids.length + (book as unknown as { asks: unknown[] }).asks.length > 0, 'the snapshot holds the durable order');

  for (const c of commands.slice(4)) await host.submit(c);
  await host.idle();

  // Replay: a fresh engine and publisher fed the journal record by record, as a log follower would be.
  const records: LogRecord[] = [];
  for await (const r of journal.read(1)) records.push(r);
  const replayEngine = new Engine();
  const replayFanout = new RecordingFanout();
  let replayPublisher: StreamPublisher | undefined;
  for (const record of records) {
    const events = replayEngine.apply(record.command);
    t.same(events, record.events);
    if (record.pos === 3) {
      replayPublisher = new StreamPublisher({ engine: replayEngine, fanout: replayFanout, catalog: () => undefined, clock: tick });
      replayPublisher.watchToken('101');
    } else replayPublisher?.publish([record]);
  }
  t.same(replayFanout.sent, fanout.sent.slice(before), 'replaying the log publishes the same messages, in the same order');
});

t.test('an order open before the publisher started: created_at from creationTime, asked once', async (t) => {
  const journal = await Journal.open({ dir: mkdtempSync(join(tmpdir(), 'pub-')), segmentBytes: 1 << 20 });
  t.teardown(() => journal.close());
  const engine = new Engine();
  const late: { publisher?: StreamPublisher } = {};
  const host = new EngineHost(engine, journal, { maxBatch: 100, clock: tick, onDurable: (records) => late.publisher?.publish(records) });
  const conditionId = `0x${'c1'.repeat(32)}`;
  const account = `0x${'a1'.repeat(20)}`;
  const orderId = `0x${'0d'.repeat(32)}`;
  await host.submit({ type: 'ListMarket', conditionId, tokenIds: ['201', '202'], tickSize: 10_000, minSize: 1_000_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  await host.submit({ type: 'Deposit', account, amount: 100_000_000 });
  const [accepted] = await host.submit({ type: 'PlaceOrder', orderId, account, owner: 'k', tokenId: '201', side: 'BUY', makerAmount: 4_000_000, takerAmount: 10_000_000, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: clock + 86_400_000 });
  t.equal(accepted?.type, 'OrderAccepted');
  const createdAt = (accepted as { time: number }).time;

  const fanout = new RecordingFanout();
  const asked: string[] = [];
  late.publisher = new StreamPublisher({ engine, fanout, catalog: () => undefined, clock: tick, creationTime: (id) => (asked.push(id), id === orderId ? createdAt : undefined) });
  await host.submit({ type: 'CancelOrder', orderId, account });
  const events = fanout.sent.filter(([topic]) => topic === userTopic('k')).map(([, m]) => JSON.parse(m) as Record<string, unknown>);
  t.match(events, [{ event_type: 'order', type: 'CANCELLATION', id: orderId, created_at: String(Math.floor(createdAt / 1000)) }]);
  t.same(asked, [orderId], 'asked for the order the publisher did not see accepted, and only for it');
});
