// The embedded journal: append and read back, idempotent appends, segment rolling, reopen, torn-tail
// recovery, corruption refusal with file and offset, one owner at a time, and follow.

import t from 'tap';
import { constants, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, truncateSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Journal } from '../../log/journal/journal.js';
import { FatalLogError, LogCorruptError, type LogRecord } from '../../log/eventLog.js';
import { recordsFor, sessionCommands } from '../support/records.js';
import { encodeRecord } from '../../log/recordCodec.js';
import { crc32 } from 'node:zlib';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'journal-'));
}

async function readAll(journal: Journal, from = 1): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  for await (const r of journal.read(from)) out.push(r);
  return out;
}

const records = recordsFor(sessionCommands(400));

t.test('append and read back', async (t) => {
  const journal = await Journal.open({ dir: tempDir(), segmentBytes: 64 << 20 });
  t.equal(journal.lastPos, 0);
  await journal.append(records.slice(0, 10));
  await journal.append(records.slice(10, 11));
  t.equal(journal.lastPos, 11);
  const back = await readAll(journal);
  t.same(back, records.slice(0, 11), 'commands and events come back as written');
  t.same((await readAll(journal, 6)).map((r) => r.pos), [6, 7, 8, 9, 10, 11]);
  await journal.close();
});

t.test('frames on disk: length, CRC-32 of position and payload, position, then the codec\'s bytes', async (t) => {
  const dir = tempDir();
  const journal = await Journal.open({ dir, segmentBytes: 64 << 20 });
  // Multi-byte UTF-8 in a command (any text field may hold it): lengths are bytes, not characters.
  const unicode = { pos: 4, command: { ...(records[3] as LogRecord).command, note: 'é — 東京 🎲' }, events: (records[3] as LogRecord).events } as unknown as LogRecord;
  const written = [...records.slice(0, 3), unicode, ...records.slice(4, 6)];
  await journal.append(written);
  await journal.close();
  const [segment] = readdirSync(dir).filter((f) => f.endsWith('.seg'));
  const bytes = readFileSync(join(dir, segment as string));
  const expected = Buffer.concat(written.map((r) => {
    const payload = encodeRecord(r);
    const head = Buffer.alloc(16);
    head.writeUInt32BE(payload.length, 0);
    head.writeDoubleBE(r.pos, 8);
    head.writeUInt32BE(crc32(Buffer.concat([head.subarray(8, 16), payload])), 4);
    return Buffer.concat([head, payload]);
  }));
  t.equal(bytes.toString('hex'), expected.toString('hex'));
  const reopened = await Journal.open({ dir, segmentBytes: 64 << 20 });
  t.same(await readAll(reopened), written, 'read back as written, the multi-byte text included');
  await reopened.close();
});

/** The open flags of this process's descriptors on `file` (Linux: /proc/self/fdinfo). */
function openFlags(file: string): number[] {
  const flags: number[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== file) continue;
    const line = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').find((l) => l.startsWith('flags:'));
    if (line !== undefined) flags.push(parseInt(line.slice(6).trim(), 8));
  }
  return flags;
}

t.test('every segment is appended through O_DSYNC: a write returns once durable', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const dir = tempDir();
  const journal = await Journal.open({ dir, segmentBytes: 4_096 });
  const dsync = (file: string): boolean => openFlags(file).some((f) => (f & constants.O_DSYNC) === constants.O_DSYNC && (f & constants.O_APPEND) === constants.O_APPEND);
  t.ok(dsync(join(dir, readdirSync(dir).filter((f) => f.endsWith('.seg')).sort()[0] as string)), 'the first segment');
  await journal.append(records.slice(0, 60));
  const segments = readdirSync(dir).filter((f) => f.endsWith('.seg')).sort();
  t.ok(segments.length > 1, `${segments.length} segments`);
  t.ok(dsync(join(dir, segments[segments.length - 1] as string)), 'a segment rolled to');
  await journal.close();
  const reopened = await Journal.open({ dir, segmentBytes: 4_096 });
  t.ok(dsync(join(dir, segments[segments.length - 1] as string)), 'the tail of a reopened journal');
  await reopened.close();
});

t.test('appends are idempotent by position and refuse gaps', async (t) => {
  const journal = await Journal.open({ dir: tempDir(), segmentBytes: 64 << 20 });
  await journal.append(records.slice(0, 5));
  await journal.append(records.slice(0, 5));
  await journal.append(records.slice(3, 8));
  t.equal(journal.lastPos, 8);
  t.same((await readAll(journal)).map((r) => r.pos), [1, 2, 3, 4, 5, 6, 7, 8], 'no duplicates');
  await t.rejects(journal.append(records.slice(9, 10)), FatalLogError, 'a gap is refused');
  await journal.close();
});

t.test('segments roll, and a reopened journal knows where it ended', async (t) => {
  const dir = tempDir();
  const journal = await Journal.open({ dir, segmentBytes: 8_000 });
  for (let i = 0; i < records.length; i += 25) await journal.append(records.slice(i, i + 25));
  await journal.close();
  const segments = readdirSync(dir).filter((n) => n.endsWith('.seg'));
  t.ok(segments.length > 3, `${segments.length} segments`);
  const reopened = await Journal.open({ dir, segmentBytes: 8_000 });
  t.equal(reopened.lastPos, records.length);
  t.equal(reopened.recovery.truncatedBytes, 0);
  t.same(await readAll(reopened), records, 'every record, across segments, in order');
  t.same((await readAll(reopened, 333)).map((r) => r.pos)[0], 333);
  await reopened.append(recordsFor(sessionCommands(401)).slice(400));
  t.equal(reopened.lastPos, 401);
  await reopened.close();
});

function lastSegment(dir: string): string {
  const names = readdirSync(dir).filter((n) => n.endsWith('.seg')).sort();
  return join(dir, names[names.length - 1] as string);
}

t.test('a torn tail is truncated on open', async (t) => {
  for (const [label, damage] of [
    ['cut mid-frame', (file: string) => truncateSync(file, statSync(file).size - 7)],
    ['half a header', (file: string) => appendFileSync(file, Buffer.from([0, 0, 1]))],
    ['zero-filled tail', (file: string) => appendFileSync(file, Buffer.alloc(4096))],
    ['garbage last frame', (file: string) => {
      const buf = readFileSync(file);
      buf[buf.length - 3] = (buf[buf.length - 3] ?? 0) ^ 0xff;
      writeFileSync(file, buf);
    }],
  ] as const) {
    const dir = tempDir();
    const journal = await Journal.open({ dir, segmentBytes: 64 << 20 });
    await journal.append(records.slice(0, 20));
    await journal.close();
    damage(lastSegment(dir));
    const reopened = await Journal.open({ dir, segmentBytes: 64 << 20 });
    const expectLast = label === 'cut mid-frame' || label === 'garbage last frame' ? 19 : 20;
    t.equal(reopened.lastPos, expectLast, `${label}: recovered to ${expectLast}`);
    t.ok(reopened.recovery.truncatedBytes > 0, `${label}: ${reopened.recovery.truncatedBytes} bytes cut`);
    t.same((await readAll(reopened)).length, expectLast);
    await reopened.append(records.slice(expectLast, expectLast + 1));
    t.equal(reopened.lastPos, expectLast + 1, `${label}: appends continue`);
    await reopened.close();
  }
});

t.test('a corrupt record before the tail refuses start-up, naming file and offset', async (t) => {
  const dir = tempDir();
  const journal = await Journal.open({ dir, segmentBytes: 64 << 20 });
  await journal.append(records.slice(0, 20));
  await journal.close();
  const file = lastSegment(dir);
  const buf = readFileSync(file);
  buf[40] = (buf[40] ?? 0) ^ 0x01;
  writeFileSync(file, buf);
  const error = await Journal.open({ dir, segmentBytes: 64 << 20 }).catch((e: unknown) => e);
  t.ok(error instanceof LogCorruptError, 'LogCorruptError');
  if (error instanceof LogCorruptError) {
    t.equal(error.file, file);
    t.equal(error.offset, 0, 'the first frame');
    t.match(error.message, /corrupt at byte 0.*refusing to start/);
  }
});

t.test('corruption in an older segment is refused when read', async (t) => {
  const dir = tempDir();
  const journal = await Journal.open({ dir, segmentBytes: 8_000 });
  for (let i = 0; i < 200; i += 20) await journal.append(records.slice(i, i + 20));
  await journal.close();
  const first = join(dir, readdirSync(dir).filter((n) => n.endsWith('.seg')).sort()[0] as string);
  const buf = readFileSync(first);
  buf[500] = (buf[500] ?? 0) ^ 0x10;
  writeFileSync(first, buf);
  const reopened = await Journal.open({ dir, segmentBytes: 8_000 });
  await t.rejects(readAll(reopened), LogCorruptError);
  await reopened.close();
});

t.test('one owner at a time', async (t) => {
  const dir = tempDir();
  const journal = await Journal.open({ dir, segmentBytes: 64 << 20 });
  await t.rejects(Journal.open({ dir, segmentBytes: 64 << 20 }), /in use by process/);
  await journal.close();
  writeFileSync(join(dir, 'LOCK'), '999999999');
  const again = await Journal.open({ dir, segmentBytes: 64 << 20 });
  t.pass('a lock left by a dead process is taken over');
  await again.close();
});

t.test('follow yields records as they are appended', async (t) => {
  const journal = await Journal.open({ dir: tempDir(), segmentBytes: 64 << 20 });
  await journal.append(records.slice(0, 3));
  const controller = new AbortController();
  const seen: number[] = [];
  const following = (async () => {
    for await (const r of journal.follow(2, controller.signal)) {
      seen.push(r.pos);
      if (r.pos === 6) controller.abort();
    }
  })();
  await journal.append(records.slice(3, 5));
  await new Promise((resolve) => setTimeout(resolve, 20));
  await journal.append(records.slice(5, 6));
  await following;
  t.same(seen, [2, 3, 4, 5, 6]);
  await journal.close();
});

t.test('reads in small chunks: frames across chunk boundaries and frames larger than a chunk', async (t) => {
  const dir = tempDir();
  const journal = await Journal.open({ dir, segmentBytes: 64 << 20, readChunkBytes: 700 });
  await journal.append(records.slice(0, 150));
  t.same(await readAll(journal), records.slice(0, 150), 'every record, read 700 bytes at a time');
  t.same((await readAll(journal, 140)).map((r) => r.pos), [140, 141, 142, 143, 144, 145, 146, 147, 148, 149, 150]);
  await journal.close();
  const tiny = await Journal.open({ dir, segmentBytes: 64 << 20, readChunkBytes: 64 });
  t.equal((await readAll(tiny)).length, 150, 'a 64-byte chunk grows to fit each frame');
  await tiny.close();
});

t.test('following the tail reads only what is new', async (t) => {
  const journal = await Journal.open({ dir: tempDir(), segmentBytes: 64 << 20 });
  await journal.append(records.slice(0, 300));
  const seen: number[] = [];
  for await (const r of journal.read(290)) seen.push(r.pos);
  t.same(seen, [290, 291, 292, 293, 294, 295, 296, 297, 298, 299, 300], 'read from an indexed offset near the end');
  await journal.close();
});
