// Durable whole-file writes (log/durableFile.ts): the bytes on disk are the data's, for strings of any
// characters cut into pieces (a surrogate pair across a piece's end included) and for byte arrays; no temporary
// file is left; a large file is flushed to disk piece by piece (each MiB), not only once at the end.

import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { FLUSH_BYTES, pieces, writeFileDurably } from '../../log/durableFile.js';

/** A string of `units` UTF-16 code units mixing 1-, 2-, 3- and 4-byte characters, a pair across each piece's end. */
function mixedText(units: number): string {
  const parts: string[] = [];
  let length = 0;
  const boundary = FLUSH_BYTES / 4;
  for (let i = 0; length < units; i++) {
    // A surrogate pair whose high half is the last unit of a piece.
    const part = (length + 1) % boundary === 0 ? '😀' : ['a', 'é', '€', '😀', '{"k":1}'][i % 5] as string;
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
}

t.test('pieces encode to the whole, and are at most FLUSH_BYTES each', async (t) => {
  const text = mixedText(FLUSH_BYTES + 12_345);
  const cut = [...pieces(text)];
  t.ok(cut.length > 4, `${cut.length} pieces`);
  t.ok(cut.every((p) => p.length <= FLUSH_BYTES), 'none larger than FLUSH_BYTES');
  t.ok(Buffer.concat(cut).equals(Buffer.from(text, 'utf8')), 'together, the UTF-8 of the whole string');
  const bytes = Buffer.alloc(2 * FLUSH_BYTES + 7, 3);
  const byteCut = [...pieces(bytes)];
  t.same(byteCut.map((p) => p.length), [FLUSH_BYTES, FLUSH_BYTES, 7], 'bytes in FLUSH_BYTES pieces');
  t.same([...pieces('')], [], 'an empty string is no piece');
});

t.test('writeFileDurably writes the data, flushing each MiB, and leaves no temporary file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'durable-file-'));
  const probe = await open(join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
  await probe.close();
  const datasync = proto.datasync;
  let flushes = 0;
  proto.datasync = function (this: unknown) {
    flushes += 1;
    return datasync.call(this);
  };
  try {
    const text = mixedText(3 * FLUSH_BYTES);
    await writeFileDurably(join(dir, 'text.json'), text);
    t.ok(readFileSync(join(dir, 'text.json')).equals(Buffer.from(text, 'utf8')), 'a string, as UTF-8');
    const expected = Math.floor(Buffer.byteLength(text, 'utf8') / FLUSH_BYTES);
    t.ok(flushes >= expected - 1 && flushes <= expected, `${flushes} flushes for ${Buffer.byteLength(text, 'utf8')} bytes`);
    const bytes = Buffer.alloc(FLUSH_BYTES / 2 + 1, 9);
    await writeFileDurably(join(dir, 'bytes.bin'), bytes);
    t.ok(readFileSync(join(dir, 'bytes.bin')).equals(bytes), 'bytes, as they are');
    await writeFileDurably(join(dir, 'empty'), '');
    t.equal(readFileSync(join(dir, 'empty')).length, 0, 'an empty file');
    t.same(readdirSync(dir).filter((name) => name.endsWith('.tmp')), [], 'no temporary file left');
  } finally {
    proto.datasync = datasync;
  }
});
