// The journal's on-disk frame around one encoded record:
//   u32 payload length | u32 CRC-32 of (position bytes + payload) | f64 position | payload
// (big-endian). The checksum covers the position, so a frame copied to the wrong place is caught too.

import { crc32 } from 'node:zlib';

export const FRAME_HEADER = 16;

export function frameSize(payloadLength: number): number {
  return FRAME_HEADER + payloadLength;
}

/**
 * Completes the frame at `offset` of `out` whose payload the caller has already written in place, from
 * `offset + FRAME_HEADER` to `end` (so it is not built elsewhere and copied): writes the header and returns
 * `end`. The position bytes and the payload are contiguous, so one checksum call covers both.
 */
export function sealFrame(out: Buffer, offset: number, pos: number, end: number): number {
  out.writeDoubleBE(pos, offset + 8);
  out.writeUInt32BE(end - offset - FRAME_HEADER, offset);
  out.writeUInt32BE(crc32(out.subarray(offset + 8, end)), offset + 4);
  return end;
}

/**
 * What is at an offset: `frame`, a complete frame whose checksum matches (its position, its payload as a view,
 * and `next`, the offset after it); `incomplete`, fewer bytes remain than the frame needs (the end of what was
 * written, or a torn write); `bad-checksum`, a complete frame whose checksum does not match (`next` is after it).
 * Every answer has all four fields, so that a reader's loop sees one object shape whatever the bytes hold (a
 * shape that appears only at a buffer's end would otherwise drop the loop's optimised code each time): `pos` is
 * NaN and `payload` empty except on a `frame`, and `next` is 0 on `incomplete`.
 */
export interface FrameRead {
  readonly kind: 'frame' | 'incomplete' | 'bad-checksum';
  readonly pos: number;
  readonly payload: Buffer;
  readonly next: number;
}

const NO_PAYLOAD = Buffer.alloc(0);
const INCOMPLETE: FrameRead = { kind: 'incomplete', pos: Number.NaN, payload: NO_PAYLOAD, next: 0 };

/** Reads the frame at `offset` of `buf` (which holds bytes up to `end`). */
export function readFrame(buf: Buffer, offset: number, end: number): FrameRead {
  if (end - offset < FRAME_HEADER) return INCOMPLETE;
  const length = buf.readUInt32BE(offset);
  const next = offset + FRAME_HEADER + length;
  if (next > end) return INCOMPLETE;
  const expected = buf.readUInt32BE(offset + 4);
  const actual = crc32(buf.subarray(offset + FRAME_HEADER, next), crc32(buf.subarray(offset + 8, offset + 16)));
  if (actual !== expected) return { kind: 'bad-checksum', pos: Number.NaN, payload: NO_PAYLOAD, next };
  return { kind: 'frame', pos: buf.readDoubleBE(offset + 8), payload: buf.subarray(offset + FRAME_HEADER, next), next };
}

/** True when every byte from `offset` to `end` is zero (a preallocated or zero-filled tail). */
export function allZero(buf: Buffer, offset: number, end: number): boolean {
  for (let i = offset; i < end; i++) if (buf[i] !== 0) return false;
  return true;
}
