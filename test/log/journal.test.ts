// The embedded journal: append and read back, idempotent appends, segment rolling, reopen, the zero fill
// ahead of the end, torn-tail recovery (growing files and zero-filled ones), corruption refusal with file and
// offset, one owner at a time, and follow.

import t from 'tap';
import { constants, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync, truncateSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PREALLOCATE_BYTES, Journal } from '../../log/journal/journal.js';
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
  t.equal(bytes.subarray(0, expected.length).toString('hex'), expected.toString('hex'));
  t.ok(bytes.length >= DEFAULT_PREALLOCATE_BYTES && bytes.subarray(expected.length).every((b) => b === 0), `then the zero fill, to ${bytes.length} bytes`);
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

t.test('every segment is written through O_DSYNC, each append at its offset: a write returns once durable', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const dir = tempDir();
  const journal = await Journal.open({ dir, segmentBytes: 4_096 });
  const dsync = (file: string): boolean => openFlags(file).some((f) => (f & constants.O_DSYNC) === constants.O_DSYNC && (f & constants.O_APPEND) === 0);
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
  const segments = readdirSync(dir).filter((n) => n.endsWith('.seg')).sort();
  t.ok(segments.length > 3, `${segments.length} segments`);
  const closed = segments.slice(0, -1).map((n) => readFileSync(join(dir, n)));
  t.ok(closed.every((b) => b.length >= 8_000 && b.length < 8_000 + 25 * 1_000 && b[b.length - 1] !== 0), 'a closed segment ends with its last record: its zero fill is cut');
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

t.test('a torn tail is truncated on open (a growing segment: an older build, or no zero fill)', async (t) => {
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
    const journal = await Journal.open({ dir, segmentBytes: 64 << 20, preallocateBytes: 0 });
    await journal.append(records.slice(0, 20));
    await journal.close();
    damage(lastSegment(dir));
    const reopened = await Journal.open({ dir, segmentBytes: 64 << 20, preallocateBytes: 0 });
    const expectLast = label === 'cut mid-frame' || label === 'garbage last frame' ? 19 : 20;
    t.equal(reopened.lastPos, expectLast, `${label}: recovered to ${expectLast}`);
    if (label === 'zero-filled tail') t.equal(reopened.recovery.truncatedBytes, 0, `${label}: kept as the zero fill, nothing reported cut`);
    else t.ok(reopened.recovery.truncatedBytes > 0, `${label}: ${reopened.recovery.truncatedBytes} bytes cut`);
    t.same((await readAll(reopened)).length, expectLast);
    await reopened.append(records.slice(expectLast, expectLast + 1));
    t.equal(reopened.lastPos, expectLast + 1, `${label}: appends continue`);
    await reopened.close();
  }
});

/** The frames of records[from..to) as the journal writes them after records[0..from), and where they start. */
async function framesAfter(from: number, to: number): Promise<{ at: number; bytes: Buffer }> {
  const dir = tempDir();
  const journal = await Journal.open({ dir, segmentBytes: 64 << 20, preallocateBytes: 0 });
  await journal.append(records.slice(0, from));
  const at = statSync(lastSegment(dir)).size;
  await journal.append(records.slice(from, to));
  await journal.close();
  return { at, bytes: readFileSync(lastSegment(dir)).subarray(at) };
}

t.test('a zero-filled segment: the zero fill is kept on open, a write cut short in it is cut away', async (t) => {
  const { at, bytes: torn } = await framesAfter(20, 40);
  t.ok(torn.length > 2_048, `the write of 20 records: ${torn.length} bytes`);
  const firstSector = Math.ceil((at + 1) / 512) * 512;
  for (const [label, damage, expectLast] of [
    ['a clean close', () => undefined, 20],
    ['a sector of the last write never landed', (bytes: Buffer) => {
      torn.copy(bytes, at);
      bytes.fill(0, firstSector, firstSector + 512);
    }, 20],
    ['its first sector never landed (a zero header)', (bytes: Buffer) => {
      torn.copy(bytes, at);
      bytes.fill(0, at, firstSector);
    }, 20],
    ['its last sectors never landed', (bytes: Buffer) => {
      torn.copy(bytes, at, 0, torn.length - 700);
    }, 20 + 0],
    ['the last record damaged, zeros after it', (bytes: Buffer) => {
      torn.copy(bytes, at);
      const end = at + torn.length;
      bytes[end - 5] = (bytes[end - 5] ?? 0) ^ 0x20;
    }, 39],
  ] as const) {
    const dir = tempDir();
    const journal = await Journal.open({ dir, segmentBytes: 64 << 20 });
    await journal.append(records.slice(0, 20));
    await journal.close();
    const file = lastSegment(dir);
    const bytes = readFileSync(file);
    t.ok(bytes.length >= at + torn.length && bytes.subarray(at).every((b) => b === 0), `${label}: the zero fill follows the records`);
    damage(bytes);
    writeFileSync(file, bytes);
    const reopened = await Journal.open({ dir, segmentBytes: 64 << 20 });
    const last = reopened.lastPos;
    t.ok(last === expectLast || (label === 'its last sectors never landed' && last > 20 && last < 40), `${label}: recovered to ${last}`);
    if (label === 'a clean close') {
      t.equal(reopened.recovery.truncatedBytes, 0, `${label}: nothing reported cut`);
      t.equal(statSync(file).size, bytes.length, `${label}: the zero fill is kept`);
    } else t.ok(reopened.recovery.truncatedBytes > 0, `${label}: ${reopened.recovery.truncatedBytes} bytes cut`);
    t.same((await readAll(reopened)).map((r) => r.pos), records.slice(0, last).map((r) => r.pos), `${label}: every record up to it reads back`);
    await reopened.append(records.slice(last, last + 3));
    t.equal(reopened.lastPos, last + 3, `${label}: appends continue`);
    await reopened.close();
    const again = await Journal.open({ dir, segmentBytes: 64 << 20 });
    t.same([again.lastPos, again.recovery.truncatedBytes], [last + 3, 0], `${label}: and a clean reopen after them`);
    t.same(await readAll(again), records.slice(0, last + 3), `${label}: every record, the new ones included`);
    await again.close();
  }
});

t.test('a zero-filled segment: damage with records after it refuses start-up', async (t) => {
  const { at, bytes: more } = await framesAfter(20, 40);
  const dir = tempDir();
  const journal = await Journal.open({ dir, segmentBytes: 64 << 20 });
  await journal.append(records.slice(0, 40));
  await journal.close();
  const file = lastSegment(dir);
  const bytes = readFileSync(file);
  t.equal(bytes.subarray(at, at + more.length).toString('hex'), more.toString('hex'), 'the records are where a growing file has them');
  bytes[at + 30] = (bytes[at + 30] ?? 0) ^ 0x04;
  writeFileSync(file, bytes);
  const error = await Journal.open({ dir, segmentBytes: 64 << 20 }).catch((e: unknown) => e);
  t.ok(error instanceof LogCorruptError, 'LogCorruptError: a flipped bit is no torn write');
  if (error instanceof LogCorruptError) t.equal(error.offset, at, 'at the damaged record');
});

t.test('the zero fill is extended ahead of the appends', async (t) => {
  const dir = tempDir();
  const journal = await Journal.open({ dir, segmentBytes: 64 << 20, preallocateBytes: 16_384 });
  const file = lastSegment(dir);
  t.equal(statSync(file).size, 16_384, 'a new segment starts with its zero fill');
  for (let i = 0; i < 200; i += 10) await journal.append(records.slice(i, i + 10));
  await journal.close();
  const bytes = readFileSync(file);
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  t.ok(end > 16_384, `the records (${end} bytes) ran past the first fill`);
  t.ok(bytes.length > end, `and zeros still lie ahead of them (${bytes.length - end} bytes)`);
  const reopened = await Journal.open({ dir, segmentBytes: 64 << 20, preallocateBytes: 16_384 });
  t.same([reopened.lastPos, reopened.recovery.truncatedBytes], [200, 0]);
  t.same(await readAll(reopened), records.slice(0, 200), 'every record reads back');
  await reopened.close();
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
