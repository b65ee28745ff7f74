// Collects one head (request head, response head) up to and including its CRLFCRLF, across chunk
// boundaries, under a byte cap. A head that arrives whole in one chunk is returned as a view of that
// chunk (no copy); a split head is joined once, when its end is found. A "\n\n" before the end is a bare
// LF terminator and reported at once, so a lenient client gets its 400 instead of waiting for a timeout.

import { CRLFCRLF, LFLF } from './httpSyntax.js';

export type HeadFeed =
  | { readonly kind: 'head'; readonly head: Buffer; readonly next: number }
  | { readonly kind: 'more' }
  | { readonly kind: 'too-large' }
  | { readonly kind: 'bare-lf' };

const MORE: HeadFeed = { kind: 'more' };
const TOO_LARGE: HeadFeed = { kind: 'too-large' };
const BARE_LF: HeadFeed = { kind: 'bare-lf' };

export class HeadAccumulator {
  private parts: Buffer[] = [];
  private length = 0;

  constructor(private readonly cap: number) {}

  /** Bytes held of a head not yet complete. */
  get pending(): number {
    return this.length;
  }

  /** Reads `chunk` from `start`; `next` is the offset just after the head. */
  feed(chunk: Buffer, start: number): HeadFeed {
    let end: number;
    if (this.length === 0) {
      end = chunk.indexOf(CRLFCRLF, start);
      if (end >= 0) end += 4;
    } else {
      end = this.endAcrossBoundary(chunk, start);
    }
    const scanEnd = end >= 0 ? end : chunk.length;
    if (this.hasBareLf(chunk, start, scanEnd)) return this.reset(BARE_LF);
    if (end < 0) {
      this.length += chunk.length - start;
      if (this.length > this.cap) return this.reset(TOO_LARGE);
      this.parts.push(start === 0 ? chunk : chunk.subarray(start));
      return MORE;
    }
    const total = this.length + (end - start);
    if (total > this.cap) return this.reset(TOO_LARGE);
    let head: Buffer;
    if (this.length === 0) head = chunk.subarray(start, end);
    else {
      this.parts.push(chunk.subarray(start, end));
      head = Buffer.concat(this.parts, total);
    }
    this.parts = [];
    this.length = 0;
    return { kind: 'head', head, next: end };
  }

  private reset(result: HeadFeed): HeadFeed {
    this.parts = [];
    this.length = 0;
    return result;
  }

  /** The last (up to) 3 held bytes. */
  private tail(): Buffer {
    const picked: Buffer[] = [];
    let n = 0;
    for (let i = this.parts.length - 1; i >= 0 && n < 3; i--) {
      const part = this.parts[i] as Buffer;
      picked.unshift(part);
      n += part.length;
    }
    const joined = picked.length === 1 ? (picked[0] as Buffer) : Buffer.concat(picked, n);
    return joined.subarray(Math.max(0, joined.length - 3));
  }

  private endAcrossBoundary(chunk: Buffer, start: number): number {
    const tail = this.tail();
    const probe = Buffer.concat([tail, chunk.subarray(start, start + 3)]);
    const i = probe.indexOf(CRLFCRLF);
    if (i >= 0) return start + i + 4 - tail.length;
    const j = chunk.indexOf(CRLFCRLF, start);
    return j >= 0 ? j + 4 : -1;
  }

  private hasBareLf(chunk: Buffer, start: number, end: number): boolean {
    if (this.length > 0 && chunk[start] === 0x0a && this.tail().at(-1) === 0x0a) return true;
    const view = end === chunk.length ? chunk : chunk.subarray(0, end);
    return view.indexOf(LFLF, start) >= 0;
  }
}
