// Reads framed records out of journal segment files: in chunks, from an optional seek point, checking every
// frame's checksum and that positions follow one another. Used by the Journal itself and, without the
// journal's lock, by a replay reader in a worker thread.

import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { LogCorruptError, type EncodedRecord } from '../eventLog.js';
import { FRAME_HEADER, readFrame } from './frame.js';
import type { Segment } from './segments.js';

/** Bytes read from a segment at a time. */
export const READ_CHUNK = 4 << 20;


export interface SegmentReadPlan {
  readonly segments: readonly Segment[];
  readonly from: number;
  readonly until: number;
  /** Durable bytes of the last segment (later bytes may be a write in progress). */
  readonly tailBytes: number;
  readonly chunkBytes: number;
  /** The nearest known position at or before `pos` in a segment, with its byte offset. */
  readonly seek?: (segment: Segment, pos: number) => { pos: number; offset: number };
  /** Told where each position starts, so a caller can index it. */
  readonly note?: (segmentFirstPos: number, pos: number, offset: number) => void;
}

export async function* readSegmentRecords(plan: SegmentReadPlan): AsyncGenerator<EncodedRecord> {
  const start = Math.max(plan.from, 1);
  const { segments, until } = plan;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as Segment;
    const nextFirst = segments[i + 1]?.firstPos ?? Number.POSITIVE_INFINITY;
    if (nextFirst <= start || segment.firstPos > until) continue;
    const isTail = i === segments.length - 1;
    const handle = await open(segment.path, 'r');
    try {
      const end = isTail ? plan.tailBytes : (await handle.stat()).size;
      const seek = plan.seek?.(segment, start) ?? { pos: segment.firstPos, offset: 0 };
      let expected = seek.pos;
      let fileOffset = seek.offset;
      let size = plan.chunkBytes;
      while (fileOffset < end && expected <= until) {
        // A fresh buffer per chunk: the payloads handed out are views into it and must stay valid.
        const buf = Buffer.allocUnsafe(Math.min(size, end - fileOffset));
        const want = buf.length;
        const { bytesRead } = await handle.read(buf, 0, want, fileOffset);
        let offset = 0;
        for (;;) {
          if (expected > until) break;
          const frame = readFrame(buf, offset, bytesRead);
          if (frame.kind === 'incomplete') {
            if (fileOffset + offset >= end) break;
            if (offset === 0) {
              // One frame larger than the buffer: grow it and read again.
              const need = FRAME_HEADER + buf.readUInt32BE(0);
              if (need > end - fileOffset || need <= buf.length) {
                throw new LogCorruptError(`journal segment ${basename(segment.path)} is corrupt at byte ${fileOffset}: a frame runs past the end`, segment.path, fileOffset);
              }
              size = need;
            }
            break;
          }
          const at = fileOffset + offset;
          if (frame.kind === 'bad-checksum') {
            throw new LogCorruptError(`journal segment ${basename(segment.path)} is corrupt at byte ${at}: checksum mismatch; refusing to read past it`, segment.path, at);
          }
          if (frame.pos !== expected) {
            throw new LogCorruptError(`journal segment ${basename(segment.path)} is corrupt at byte ${at}: position ${frame.pos} where ${expected} was expected`, segment.path, at);
          }
          plan.note?.(segment.firstPos, frame.pos, at);
          if (frame.pos >= start) yield { pos: frame.pos, bytes: frame.payload };
          expected += 1;
          offset = frame.next;
        }
        if (offset === 0 && size > buf.length && expected <= until) continue;
        fileOffset += offset;
        if (offset === 0) break;
      }
    } finally {
      await handle.close();
    }
  }
}
