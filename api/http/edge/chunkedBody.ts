// The chunked transfer coding (RFC 9112 §7.1), read strictly and re-emitted in the one form uWS 20.30
// parses: measured on that build, a chunk extension, an upper-case hex digit, a leading zero or any
// trailer field makes it close the connection or lose the next request. So each chunk goes out as
// `<lower-case hex size>\r\n<data>\r\n` (data forwarded as views of the input, never copied),
// extensions are dropped, trailers are validated like header fields and then dropped (RFC 9110 §6.5.1
// lets a recipient discard them), and the body ends with `0\r\n\r\n`.

import type { EdgeErrorCode } from './edgeErrors.js';
import { COLON, CR, CRLF, HEX_VALUE, HT, LF, NAME_BYTE, SP, VALUE_BYTE } from './httpSyntax.js';

export type ChunkedFeed =
  | { readonly kind: 'more' }
  | { readonly kind: 'done'; readonly next: number }
  | { readonly kind: 'error'; readonly code: EdgeErrorCode };

const MORE: ChunkedFeed = { kind: 'more' };
const LAST_CHUNK = Buffer.from('0\r\n\r\n', 'latin1');
/** uWS 20.30 closes the connection on a chunk of 0x10000000 bytes or more (measured). */
export const UWS_MAX_CHUNK = 0x0fffffff;
const MAX_SIZE_LINE = 4096;

type State = 'size' | 'data' | 'data-cr' | 'data-lf' | 'trailer';

export interface ChunkedLimits {
  readonly maxChunk: number;
  readonly maxTrailerBytes: number;
}

export class ChunkedDecoder {
  private state: State = 'size';
  private remaining = 0;
  private line: Buffer[] = [];
  private lineLength = 0;
  private trailerBytes = 0;

  /** `emit` receives the canonical re-encoding; without it the decoder only finds the end. */
  constructor(
    private readonly limits: ChunkedLimits,
    private readonly emit?: (piece: Buffer) => void,
  ) {}

  reset(): void {
    this.state = 'size';
    this.remaining = 0;
    this.line = [];
    this.lineLength = 0;
    this.trailerBytes = 0;
  }

  feed(chunk: Buffer, start: number): ChunkedFeed {
    let pos = start;
    while (pos < chunk.length) {
      switch (this.state) {
        case 'data': {
          const n = Math.min(this.remaining, chunk.length - pos);
          this.emit?.(pos === 0 && n === chunk.length ? chunk : chunk.subarray(pos, pos + n));
          this.remaining -= n;
          pos += n;
          if (this.remaining === 0) this.state = 'data-cr';
          break;
        }
        case 'data-cr':
          if (chunk[pos] !== CR) return this.fail('malformed_request');
          pos++;
          this.state = 'data-lf';
          break;
        case 'data-lf':
          if (chunk[pos] !== LF) return this.fail('malformed_request');
          pos++;
          this.emit?.(CRLF);
          this.state = 'size';
          break;
        case 'size':
        case 'trailer': {
          const lf = chunk.indexOf(LF, pos);
          const cap = this.state === 'size' ? MAX_SIZE_LINE : this.limits.maxTrailerBytes - this.trailerBytes;
          if (lf < 0) {
            this.lineLength += chunk.length - pos;
            if (this.lineLength > cap) return this.fail(this.state === 'size' ? 'malformed_request' : 'header_too_large');
            this.line.push(chunk.subarray(pos));
            return MORE;
          }
          this.lineLength += lf + 1 - pos;
          if (this.lineLength > cap) return this.fail(this.state === 'size' ? 'malformed_request' : 'header_too_large');
          this.line.push(chunk.subarray(pos, lf + 1));
          const line = this.line.length === 1 ? (this.line[0] as Buffer) : Buffer.concat(this.line, this.lineLength);
          this.line = [];
          this.lineLength = 0;
          pos = lf + 1;
          // A line ends in CRLF; a bare LF is refused.
          if (line.length < 2 || line[line.length - 2] !== CR) return this.fail('malformed_request');
          if (this.state === 'size') {
            const error = this.sizeLine(line, line.length - 2);
            if (error !== undefined) return this.fail(error);
            break;
          }
          if (line.length === 2) {
            this.emit?.(LAST_CHUNK);
            this.reset();
            return { kind: 'done', next: pos };
          }
          if (!isFieldLine(line, line.length - 2)) return this.fail('malformed_request');
          this.trailerBytes += line.length;
          break;
        }
      }
    }
    return MORE;
  }

  /** `1*HEXDIG BWS [";" chunk-ext]`; moves to data (or trailers for the last chunk). */
  private sizeLine(line: Buffer, end: number): EdgeErrorCode | undefined {
    let i = 0;
    let size = 0;
    while (i < end && (HEX_VALUE[line[i] as number] as number) >= 0) {
      size = size * 16 + (HEX_VALUE[line[i] as number] as number);
      i++;
    }
    if (i === 0) return 'malformed_request';
    while (i < end && (line[i] === SP || line[i] === HT)) i++;
    if (i < end && line[i] !== 0x3b) return 'malformed_request';
    for (; i < end; i++) if (VALUE_BYTE[line[i] as number] !== 1) return 'malformed_request';
    if (size > this.limits.maxChunk) return 'body_too_large';
    if (size === 0) {
      this.state = 'trailer';
      return undefined;
    }
    this.emit?.(Buffer.from(`${size.toString(16)}\r\n`, 'latin1'));
    this.remaining = size;
    this.state = 'data';
    return undefined;
  }

  private fail(code: EdgeErrorCode): ChunkedFeed {
    this.reset();
    return { kind: 'error', code };
  }
}

/** `name ":" value` with the edge's name and value bytes; obs-fold (a leading SP/HT) is refused. */
function isFieldLine(line: Buffer, end: number): boolean {
  let i = 0;
  while (i < end && NAME_BYTE[line[i] as number] === 1) i++;
  if (i === 0 || line[i] !== COLON) return false;
  for (i++; i < end; i++) if (VALUE_BYTE[line[i] as number] !== 1) return false;
  return true;
}
