// LogTail's deferred application (projections/logTail.ts): offered batches wait and are applied in runs, by
// the timer, by the records cap, or whenever the owner looks (flush()), and nothing read through the owner's
// accessors can tell: the in-memory read model answers as if each batch had been applied when offered.

import t from 'tap';
import { LogTail, type FollowingState } from '../../projections/logTail.js';
import { LiveReadModel } from '../../projections/live/liveReadModel.js';
import type { EventsRecord, LogRecord } from '../../log/eventLog.js';
import { MemoryLog, recordsFor, sessionCommands } from '../support/records.js';

/** A state that keeps the positions it applied, and fails on one position if told to. */
class Positions implements FollowingState {
  readonly applied: number[] = [];
  constructor(private readonly failAt = 0) {}
  get pos(): number {
    return this.applied[this.applied.length - 1] ?? 0;
  }
  apply(record: EventsRecord): void {
    if (record.pos === this.failAt) throw new Error(`record ${record.pos} does not apply`);
    this.applied.push(record.pos);
  }
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

t.test('offered batches wait, and apply in order on flush, on the records cap and on the timer', async (t) => {
  const records = recordsFor(sessionCommands(40));
  const log = new MemoryLog();
  await log.append(records);
  const state = new Positions();
  const applied: number[] = [];
  const tail = new LogTail(log, () => state, 'a test state', { defer: { ms: 30, records: 10 }, onApplied: () => applied.push(state.pos) });
  // A tail started on an empty log: every record reaches it by offer().
  const empty = new MemoryLog();
  const deferred = new Positions();
  const onApplied: number[] = [];
  const fresh = new LogTail(empty, () => deferred, 'a test state', { defer: { ms: 30, records: 10 }, onApplied: () => onApplied.push(deferred.pos) });
  await fresh.start();
  t.equal(fresh.offer(records.slice(0, 3)), false, 'a batch offered is not applied at once');
  t.equal(fresh.offer(records.slice(3, 5)), false);
  t.same(deferred.applied, [], 'nothing applied yet');
  t.equal(fresh.flush(), true, 'flush applies what waits');
  t.same(deferred.applied, range(1, 5), 'in position order');
  t.same(onApplied, [5], 'onApplied once, after the run');
  t.equal(fresh.flush(), true, 'a flush with nothing waiting');

  fresh.offer(records.slice(5, 9));
  t.equal(fresh.offer(records.slice(9, 15)), true, 'the batch that reaches the records cap applies everything waiting');
  t.same(deferred.applied, range(1, 15));

  fresh.offer(records.slice(15, 17));
  t.same(deferred.applied, range(1, 15));
  await new Promise((r) => setTimeout(r, 80));
  t.same(deferred.applied, range(1, 17), 'the timer applied the batch nobody read');
  t.ok(fresh.deferredSeconds > 0, 'the time spent applying later is counted');

  // A waiter makes offers apply at once: it resolves when its position is reached.
  const waited = fresh.waitFor(20, 1_000);
  fresh.offer(records.slice(17, 20));
  t.same(deferred.applied, range(1, 20), 'offered while a read waits: applied at once');
  await waited;

  // A tail started over the whole log skips offered records it already has.
  await tail.start();
  t.same(state.applied, range(1, 40));
  t.equal(tail.offer(records.slice(38, 40)), false);
  t.equal(tail.flush(), true, 'records at or before the position are skipped');
  t.same(state.applied, range(1, 40));
  t.same(applied, [40]);
});

t.test('a gap among the waiting batches is read from the log; the batches after it are held, not lost', async (t) => {
  const records = recordsFor(sessionCommands(30));
  const log = new MemoryLog();
  const state = new Positions();
  const tail = new LogTail(log, () => state, 'a test state', { defer: { ms: 1_000, records: 1_000 } });
  await tail.start();
  await log.append(records);
  tail.offer(records.slice(0, 5));
  tail.offer(records.slice(10, 15)); // 6 to 10 never offered
  tail.offer(records.slice(15, 20));
  t.equal(tail.flush(), false, 'the gap stops the run');
  await tail.waitFor(30, 2_000);
  t.same(state.applied, range(1, 30), 'every record applied once, in order');
});

t.test('a record that fails to apply stops the tail, with what waits after it', async (t) => {
  const records = recordsFor(sessionCommands(12));
  const log = new MemoryLog();
  const state = new Positions(7);
  const failures: unknown[] = [];
  const tail = new LogTail(log, () => state, 'a test state', { defer: { ms: 1_000, records: 1_000 }, onFailure: (e) => failures.push(e) });
  await tail.start();
  tail.offer(records.slice(0, 4));
  tail.offer(records.slice(4, 8));
  tail.offer(records.slice(8, 12));
  t.equal(tail.flush(), false);
  t.same(state.applied, range(1, 6));
  t.equal(tail.ready, false, 'stopped');
  t.match(failures, [/record 7 does not apply/]);
  t.equal(tail.offer(records.slice(8, 12)), false, 'nothing more is taken');
  t.equal(tail.flush(), true);
  t.same(state.applied, range(1, 6));
});

t.test('the read model: every accessor sees each offered batch, as without deferral', async (t) => {
  const records = recordsFor(sessionCommands(60));
  const log = new MemoryLog();
  await log.append(records);
  const deferred = new LiveReadModel(log, { feeAccount: '0xfee', defer: { ms: 10_000, records: 10_000 } });
  const atOnce = new LiveReadModel(log, { feeAccount: '0xfee', defer: false });
  await deferred.startFrom(undefined);
  await atOnce.startFrom(undefined);
  const more = recordsFor(sessionCommands(90), undefined).slice(60);
  await log.append(more);
  for (let i = 0; i < more.length; i += 3) {
    const batch = more.slice(i, i + 3);
    deferred.offer(batch);
    atOnce.offer(batch);
    const last = (batch[batch.length - 1] as EventsRecord).pos;
    t.equal(deferred.position, last, `the position after the batch ending at ${last}`);
    const first = (batch[0] as LogRecord).command;
    if (first.type === 'PlaceOrder') t.equal(deferred.state.order(first.orderId)?.createdAt, atOnce.state.order(first.orderId)?.createdAt, `order ${first.orderId.slice(-4)} as without deferral`);
  }
  t.same(deferred.state.orders.open, atOnce.state.orders.open, 'the same open orders');
  t.ok(deferred.deferredSeconds > 0, 'applied after the offers, counted');
  t.equal(atOnce.deferredSeconds, 0, 'without deferral nothing is applied later');
});
