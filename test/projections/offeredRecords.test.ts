// projections/offeredRecords.ts: the projector's queue of records handed over in memory holds contiguous
// positions only, drops what it holds on a gap and its oldest beyond its bound, and gives records only when
// the oldest held is exactly the position asked for.

import t from 'tap';
import type { LogRecord } from '../../log/eventLog.js';
import { OfferedRecords } from '../../projections/offeredRecords.js';

const records = (from: number, to: number): LogRecord[] =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ pos: from + i, command: { type: 'Deposit', account: '0xa1', amount: 1, time: 0 }, events: [] }) as unknown as LogRecord);
const positions = (rs: readonly LogRecord[] | undefined): number[] | undefined => rs?.map((r) => r.pos);

t.test('contiguous records come out in order, as many as asked', async (t) => {
  const q = new OfferedRecords(100);
  q.add(records(1, 5), 0);
  q.add(records(6, 8), 0);
  t.same(positions(q.take(1, 3)), [1, 2, 3]);
  t.same(positions(q.take(4, 100)), [4, 5, 6, 7, 8]);
  t.equal(q.take(9, 100), undefined, 'nothing held');
});

t.test('positions already projected are skipped, a later start is not served', async (t) => {
  const q = new OfferedRecords(100);
  q.add(records(1, 10), 3);
  t.equal(q.first(), 4, 'positions at or below the built position are not kept');
  t.same(positions(q.take(6, 7)), [6, 7], 'records below the asked position are dropped');
  t.equal(q.take(5, 12), undefined, 'the oldest held (8) is not the position asked for');
  t.equal(q.first(), 8, 'still held, for once 5..7 are read from the log');
  t.same(positions(q.take(10, 10)), [10], 'asking for 10 means 8 and 9 are projected: dropped');
});

t.test('a gap drops what is held', async (t) => {
  const q = new OfferedRecords(100);
  q.add(records(1, 5), 0);
  q.add(records(7, 9), 0);
  t.equal(q.first(), 7, 'only the records after the gap');
  t.equal(q.take(1, 9), undefined);
  const broken = [...records(10, 11), ...records(13, 13)];
  q.add(broken, 0);
  t.equal(q.size, 0, 'a hand-over with a gap inside it: nothing kept');
});

t.test('beyond the bound the oldest are dropped; 0 holds nothing', async (t) => {
  const q = new OfferedRecords(4);
  q.add(records(1, 3), 0);
  q.add(records(4, 6), 0);
  t.equal(q.size, 4);
  t.equal(q.first(), 3);
  t.same(positions(q.take(3, 10)), [3, 4, 5, 6]);
  const off = new OfferedRecords(0);
  off.add(records(1, 3), 0);
  t.equal(off.size, 0);
});

t.test('a long stream stays bounded and in order', async (t) => {
  const q = new OfferedRecords(3_000);
  let next = 1;
  let fromLog = 0;
  for (let i = 0; i < 50; i++) {
    // 500 handed over, at most 300 projected per round: the projector falls behind past the bound.
    q.add(records(i * 500 + 1, i * 500 + 500), next - 1);
    const got = q.take(next, next + 299);
    if (got === undefined) {
      // The projector reads next .. first() - 1 from the log.
      fromLog += (q.first() ?? next) - next;
      next = q.first() ?? next;
      continue;
    }
    t.equal(got[0]?.pos, next);
    next += got.length;
    t.ok(q.size <= 3_000);
  }
  t.ok(fromLog > 0, `${fromLog} positions dropped beyond the bound, to be read from the log`);
  t.equal(q.first(), next, 'what is held follows what was taken');
});
