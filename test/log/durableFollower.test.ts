// The one follower of the durable records (log/durableFollower.ts): every registered consumer gets each batch
// once, in log order, in registration order; one that throws is reported and the others still get the batch;
// each consumer's time is counted. The service's wiring of it is checked by test/api/service.test.ts (/metrics
// shows each consumer's time) and by every test that reads after a write.

import t from 'tap';
import { Engine } from '../../engine/index.js';
import { DurableFollower } from '../../log/durableFollower.js';
import type { LogRecord } from '../../log/eventLog.js';
import { recordsFor, sessionCommands } from '../support/records.js';

function batches(): LogRecord[][] {
  const records = recordsFor(sessionCommands(12), new Engine());
  return [records.slice(0, 5), records.slice(5, 6), records.slice(6)];
}

t.test('each consumer gets every batch once, in log order, in registration order', async (t) => {
  const follower = new DurableFollower(() => t.fail('no consumer fails'));
  const seen: string[] = [];
  const positions: number[][] = [[], []];
  follower.register({ name: 'first', accept: (records) => { seen.push('first'); positions[0]?.push(...records.map((r) => r.pos)); } });
  follower.register({ name: 'second', accept: (records) => { seen.push('second'); positions[1]?.push(...records.map((r) => r.pos)); } });
  const all = batches();
  for (const b of all) follower.offer(b);
  follower.offer([]);
  const expected = all.flat().map((r) => r.pos);
  t.same(positions, [expected, expected]);
  t.same(seen, ['first', 'second', 'first', 'second', 'first', 'second'], 'in registration order, and no call for an empty batch');
  t.same(follower.offered, { batches: 3, records: expected.length });
  t.same(follower.seconds().map((s) => s.consumer), ['first', 'second']);
  t.ok(follower.seconds().every((s) => s.seconds >= 0));
});

t.test('a consumer that throws is reported and the others still get the batch, and it the next one', async (t) => {
  const failures: [string, unknown][] = [];
  const follower = new DurableFollower((consumer, error) => failures.push([consumer, error]));
  let calls = 0;
  let after = 0;
  follower.register({ name: 'flaky', accept: () => { calls += 1; if (calls === 1) throw new Error('boom'); } });
  follower.register({ name: 'after', accept: (records) => { after += records.length; } });
  const [one, two] = batches();
  follower.offer(one as LogRecord[]);
  follower.offer(two as LogRecord[]);
  t.equal(failures.length, 1);
  t.equal(failures[0]?.[0], 'flaky');
  t.match(String(failures[0]?.[1]), /boom/);
  t.equal(calls, 2, 'the failed consumer gets the next batch');
  t.equal(after, (one?.length ?? 0) + (two?.length ?? 0), 'the next consumer got both batches');
});

t.test('a name is registered once', async (t) => {
  const follower = new DurableFollower(() => undefined);
  follower.register({ name: 'x', accept: () => undefined });
  t.throws(() => follower.register({ name: 'x', accept: () => undefined }), /registered already/);
});
