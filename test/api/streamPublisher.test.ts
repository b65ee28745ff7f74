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
  publisher.watchKey('k');

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
      replayPublisher.watchKey('k');
      replayPublisher.watchToken('101');
    } else replayPublisher?.publish([record]);
  }
  t.same(replayFanout.sent, fanout.sent.slice(before), 'replaying the log publishes the same messages, in the same order');
});

/** Subscribers on the user channel's topics only: no market is watched. */
class UserOnlyFanout extends RecordingFanout {
  override subscribers(topic?: string): number {
    return topic?.startsWith('u:') === true ? 1 : 0;
  }
}

t.test('a key watched after its order was placed: created_at and trades from knownOrder; nobody watching, nothing followed', async (t) => {
  const journal = await Journal.open({ dir: mkdtempSync(join(tmpdir(), 'pub-')), segmentBytes: 1 << 20 });
  t.teardown(() => journal.close());
  const engine = new Engine();
  const fanout = new UserOnlyFanout();
  const asked: string[] = [];
  const late: { createdAt?: number } = {};
  const tradeIds = ['0xt1'];
  const publisher = new StreamPublisher({
    engine,
    fanout,
    catalog: () => undefined,
    clock: tick,
    knownOrder: (id) => (asked.push(id), late.createdAt === undefined ? undefined : { createdAt: late.createdAt, trades: tradeIds }),
  });
  const host = new EngineHost(engine, journal, { maxBatch: 100, clock: tick, onDurable: (records) => publisher.publish(records) });
  const conditionId = `0x${'c1'.repeat(32)}`;
  const account = `0x${'a1'.repeat(20)}`;
  const apiKey = '00000000-0000-4000-8000-0000000000a1';
  const orderId = `0x${'0d'.repeat(32)}`;
  await host.submit({ type: 'ListMarket', conditionId, tokenIds: ['201', '202'], tickSize: 10_000, minSize: 1_000_000, makerFeeBps: 0, takerFeeBps: 0, negRisk: false });
  await host.submit({ type: 'Deposit', account, amount: 100_000_000 });
  await host.submit({ type: 'CreateApiKey', address: account, nonce: '0', apiKey });
  const [accepted] = await host.submit({ type: 'PlaceOrder', orderId, account, owner: apiKey, tokenId: '201', side: 'BUY', makerAmount: 4_000_000, takerAmount: 10_000_000, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: clock + 86_400_000 });
  t.equal(accepted?.type, 'OrderAccepted');
  late.createdAt = (accepted as { time: number }).time;
  t.equal(fanout.sent.length, 0, 'nothing published while nobody watches');
  t.equal(publisher.followedOrders, 0, 'and no order followed');

  publisher.watchKey(apiKey);
  publisher.watchKey(apiKey);
  t.equal(publisher.followedOrders, 1, 'the key\'s open order is followed from the engine');
  t.same(asked, [orderId], 'its creation time and trades asked for once, when its key is first watched');
  await host.submit({ type: 'CancelOrder', orderId, account });
  const events = fanout.sent.filter(([topic]) => topic === userTopic(apiKey)).map(([, m]) => JSON.parse(m) as Record<string, unknown>);
  t.match(events, [{ event_type: 'order', type: 'CANCELLATION', id: orderId, created_at: String(Math.floor(late.createdAt / 1000)), associate_trades: tradeIds }]);

  const [again] = await host.submit({ type: 'PlaceOrder', orderId: `0x${'0e'.repeat(32)}`, account, owner: apiKey, tokenId: '201', side: 'BUY', makerAmount: 4_000_000, takerAmount: 10_000_000, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: clock + 86_400_000 });
  t.equal(again?.type, 'OrderAccepted');
  t.equal(publisher.followedOrders, 1, 'an order the watched key places is followed');
  publisher.unwatchKey(apiKey);
  t.equal(publisher.followedOrders, 1, 'still followed while one of the key\'s connections is open');
  publisher.unwatchKey(apiKey);
  t.equal(publisher.followedOrders, 0, 'forgotten once the last closed');
  const sent = fanout.sent.length;
  await host.submit({ type: 'CancelOrder', orderId: `0x${'0e'.repeat(32)}`, account });
  t.equal(fanout.sent.length, sent, 'nothing built for a key nobody watches');
});

/** Subscribers on the market channel's topics while `on`; none on the user channel. */
class MarketFanout extends RecordingFanout {
  on = true;
  override subscribers(topic?: string): number {
    return this.on && topic?.startsWith('m:') === true ? 1 : 0;
  }
}

t.test('a watched market follows its resting orders for the levels, and forgets them once nobody watches', async (t) => {
  const journal = await Journal.open({ dir: mkdtempSync(join(tmpdir(), 'pub-')), segmentBytes: 1 << 20 });
  t.teardown(() => journal.close());
  const engine = new Engine();
  const fanout = new MarketFanout();
  fanout.on = false;
  const publisher = new StreamPublisher({ engine, fanout, catalog: () => undefined, clock: tick });
  const host = new EngineHost(engine, journal, { maxBatch: 100, clock: tick, onDurable: (records) => publisher.publish(records) });
  const commands = sessionCommands(40).map(strip);
  for (const c of commands.slice(0, 20)) await host.submit(c);
  t.equal(publisher.followedOrders, 0, 'nobody watching: no order followed');
  const resting = engine.openOrderCount;
  t.ok(resting > 0, 'orders rest in the market');

  fanout.on = true;
  publisher.watchToken('101');
  t.equal(publisher.followedOrders, resting, 'watching the market follows every order resting in it');
  for (const c of commands.slice(20)) await host.submit(c);
  await host.idle();
  t.equal(publisher.followedOrders, engine.openOrderCount, 'and each order that comes to rest there, while those filled or cancelled go');
  const levels = fanout.sent.filter(([topic]) => topic === tokenTopic('101')).map(([, m]) => JSON.parse(m) as { event_type: string; hash?: string });
  t.ok(levels.some((m) => m.event_type === 'price_change'), 'the levels moved are published');

  fanout.on = false;
  await host.submit({ type: 'PlaceOrder', orderId: `0x${'fe'.repeat(32)}`, account: '0xa', owner: 'k', tokenId: '101', side: 'BUY', makerAmount: 100_000, takerAmount: 1_000_000, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: clock + 60_000 });
  t.equal(publisher.followedOrders, 0, 'the first record of the market after the last subscriber left forgets its orders');
});
