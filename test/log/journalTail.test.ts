// A read-only view of a journal another thread appends to (log/journal/journalTail.ts): it hands out exactly
// the records up to the durable end published to it, byte for byte as the journal holds them, across segment
// rolls, from any position (its resume point or not), never a record past that end, and it refuses to append.

import t from 'tap';
import fc from 'fast-check';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal } from '../../log/journal/journal.js';
import { JournalTail } from '../../log/journal/journalTail.js';
import { SharedPosition } from '../../log/sharedPosition.js';
import type { EncodedRecord, LogRecord } from '../../log/eventLog.js';
import { recordsFor, sessionCommands } from '../support/records.js';

const records = recordsFor(sessionCommands(400));

async function encoded(source: AsyncIterable<EncodedRecord>): Promise<{ pos: number; hex: string }[]> {
  const out: { pos: number; hex: string }[] = [];
  for await (const r of source) out.push({ pos: r.pos, hex: Buffer.from(r.bytes).toString('hex') });
  return out;
}

async function positions(source: AsyncIterable<LogRecord>): Promise<number[]> {
  const out: number[] = [];
  for await (const r of source) out.push(r.pos);
  return out;
}

t.test('the tail hands out what the journal holds up to the published end, across segment rolls', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tail-'));
  // Small segments: the records roll into many files.
  const journal = await Journal.open({ dir, segmentBytes: 16 << 10 });
  const end = new SharedPosition();
  const tail = new JournalTail(dir, new SharedPosition(end.buffer));
  t.same(await encoded(tail.readEncoded(1)), [], 'nothing before anything is published');
  for (let i = 0; i < records.length; i += 37) {
    await journal.append(records.slice(i, i + 37));
    // Appended but not yet published: the tail does not see it.
    const before = end.get();
    t.same((await encoded(tail.readEncoded(before + 1))).length, 0, `nothing past the published end ${before}`);
    end.advance(journal.lastPos);
    const fresh = await encoded(tail.readEncoded(before + 1));
    t.same(fresh, await encoded(journal.readEncoded(before + 1)), `records ${before + 1}..${journal.lastPos} equal the journal's`);
  }
  t.equal(tail.lastPos, records.length);
  t.same(await encoded(tail.readEncoded(1)), await encoded(journal.readEncoded(1)), 'the whole journal, byte for byte');
  t.same(await positions(tail.read(390)), Array.from({ length: records.length - 389 }, (_, i) => 390 + i), 'read() decodes from any position');
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 1, max: records.length }), fc.integer({ min: 0, max: 60 }), async (from, span) => {
      const until = Math.min(records.length, from + span);
      const got = await encoded(tail.readEncoded(from, until));
      const want = (await encoded(journal.readEncoded(from))).filter((r) => r.pos <= until);
      return JSON.stringify(got) === JSON.stringify(want);
    }),
    { numRuns: 60 },
  );
  await t.rejects(tail.append(), /read-only/, 'a tail never appends');
  await journal.close();
});

t.test('a published end below what the journal holds bounds every read', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tail-'));
  const journal = await Journal.open({ dir, segmentBytes: 64 << 20 });
  await journal.append(records.slice(0, 120));
  const end = new SharedPosition();
  end.advance(50);
  const tail = new JournalTail(dir, end);
  t.same(await positions(tail.read(1)), Array.from({ length: 50 }, (_, i) => i + 1));
  end.advance(40);
  t.equal(tail.lastPos, 50, 'the end never moves back');
  end.advance(120);
  t.same(await positions(tail.read(51)), Array.from({ length: 70 }, (_, i) => i + 51));
  await journal.close();
});

t.test('follow() hands out records as the end is published, until aborted', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tail-'));
  const journal = await Journal.open({ dir, segmentBytes: 64 << 20 });
  await journal.append(records.slice(0, 60));
  const end = new SharedPosition();
  end.advance(20);
  const tail = new JournalTail(dir, end);
  const stop = new AbortController();
  const seen: number[] = [];
  const following = (async () => {
    for await (const record of tail.follow(1, stop.signal)) {
      seen.push(record.pos);
      if (record.pos === 20) setTimeout(() => end.advance(60), 100);
      if (record.pos === 60) stop.abort();
    }
  })();
  await following;
  t.same(seen, Array.from({ length: 60 }, (_, i) => i + 1));
  await journal.close();
});
