// The uWS → client direction of one connection, observed (never changed): it counts the responses so the
// edge knows which request each one answers. That is what lets it (a) switch to passthrough only when
// uWS answers an upgrade with 101, (b) send its own 400 only after uWS has answered every earlier
// pipelined request, so the client pairs it with the right request, and (c) delay a client's FIN until
// the responses it is owed are out (uWS 20.30 aborts in-flight responses on FIN).
//
// It follows RFC 9112 §6.3 as uWS 20.30 writes it: no body in the response to a HEAD request (the server
// answers HEAD with endWithoutBody, whatever Content-Length it states); otherwise a body by Content-Length
// or chunked coding, and none when neither is present (endWithoutBody); 1xx other than 101 are interim. A stream it cannot follow makes it `lost`, and the edge then never writes into
// the response stream again.

import { ChunkedDecoder } from './chunkedBody.js';
import { HeadAccumulator } from './headAccumulator.js';
import { COLON, CR, LF, nameIs, trimmedValue } from './httpSyntax.js';

export interface TrackerSink {
  /** The answer to the upgrade request awaiting one: true for 101. */
  upgradeDecided(accepted: boolean): void;
  /** A response ended (or the tracker went raw or lost): counts changed. */
  progressed(): void;
}

type State = 'head' | 'length' | 'chunked' | 'raw' | 'lost';

const MAX_RESPONSE_HEAD = 64 * 1024;
const OWED_UPGRADE = 1;
const OWED_HEAD = 2;

export class ResponseTracker {
  private state: State = 'head';
  private readonly head = new HeadAccumulator(MAX_RESPONSE_HEAD);
  private readonly chunked = new ChunkedDecoder({ maxChunk: Number.MAX_SAFE_INTEGER, maxTrailerBytes: MAX_RESPONSE_HEAD });
  private remaining = 0;
  /** What the requests forwarded and not yet answered were (OWED_* flags), oldest first. */
  private owed: number[] = [];
  private owedStart = 0;
  private forwardedCount = 0;
  private completedCount = 0;

  constructor(private readonly sink: TrackerSink) {}

  /** Requests forwarded so far. */
  get forwarded(): number {
    return this.forwardedCount;
  }

  /** Final responses received in full. */
  get completed(): number {
    return this.completedCount;
  }

  get outstanding(): number {
    return this.forwardedCount - this.completedCount;
  }

  /** Between responses: no part of a response is in flight. */
  get atBoundary(): boolean {
    return this.state === 'head' && this.head.pending === 0;
  }

  get lost(): boolean {
    return this.state === 'lost';
  }

  get raw(): boolean {
    return this.state === 'raw';
  }

  expect(upgrade: boolean, head = false): void {
    this.owed.push((upgrade ? OWED_UPGRADE : 0) | (head ? OWED_HEAD : 0));
    this.forwardedCount++;
  }

  push(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      switch (this.state) {
        case 'raw':
        case 'lost':
          return;
        case 'length': {
          const n = Math.min(this.remaining, chunk.length - pos);
          this.remaining -= n;
          pos += n;
          if (this.remaining === 0) this.complete();
          break;
        }
        case 'chunked': {
          const r = this.chunked.feed(chunk, pos);
          if (r.kind === 'more') return;
          if (r.kind === 'error') return this.lose();
          pos = r.next;
          this.complete();
          break;
        }
        case 'head': {
          const r = this.head.feed(chunk, pos);
          if (r.kind === 'more') return;
          if (r.kind !== 'head') return this.lose();
          pos = r.next;
          this.onHead(r.head);
          break;
        }
      }
    }
  }

  private onHead(head: Buffer): void {
    const status = statusOf(head);
    if (!(status >= 100 && status <= 999)) return this.lose();
    if (status >= 100 && status < 200 && status !== 101) return; // interim: the final response follows
    if (this.owedStart >= this.owed.length) return this.lose();
    const owed = this.owed[this.owedStart] as number;
    const upgrade = (owed & OWED_UPGRADE) !== 0;
    this.owedStart++;
    if (status === 101) {
      if (!upgrade) return this.lose();
      this.state = 'raw';
      this.completedCount++;
      this.sink.upgradeDecided(true);
      this.sink.progressed();
      return;
    }
    if (upgrade) this.sink.upgradeDecided(false);
    const framing = (owed & OWED_HEAD) !== 0 ? 0 : bodyFraming(head);
    if (framing === 'chunked') {
      this.chunked.reset();
      this.state = 'chunked';
    } else if (framing > 0) {
      this.remaining = framing;
      this.state = 'length';
    } else this.complete();
  }

  private complete(): void {
    this.state = 'head';
    this.completedCount++;
    if (this.owedStart > 1024 && this.owedStart * 2 > this.owed.length) {
      this.owed = this.owed.slice(this.owedStart);
      this.owedStart = 0;
    }
    this.sink.progressed();
  }

  private lose(): void {
    this.state = 'lost';
    this.sink.progressed();
  }
}

const STATUS_PREFIX = Buffer.from('HTTP/1.1 ', 'latin1');

/** The three-digit status of an `HTTP/1.1 ` status line, else NaN; read from the bytes (no string is made). */
function statusOf(head: Buffer): number {
  if (head.length < 12) return NaN;
  for (let i = 0; i < STATUS_PREFIX.length; i++) if (head[i] !== STATUS_PREFIX[i]) return NaN;
  let status = 0;
  for (let i = 9; i < 12; i++) {
    const digit = (head[i] as number) - 0x30;
    if (digit < 0 || digit > 9) return NaN;
    status = status * 10 + digit;
  }
  return status;
}

/**
 * 'chunked', or the Content-Length (0 when there is none). One pass over the head's bytes (it ends with
 * CRLFCRLF): each line's end and its first colon found as the bytes go by.
 */
function bodyFraming(head: Buffer): 'chunked' | number {
  let length = 0;
  const last = head.length - 2;
  let pos = 0;
  while (pos < last && !(head[pos] === CR && head[pos + 1] === LF)) pos++;
  for (pos += 2; pos < last; ) {
    let end = pos;
    let colon = -1;
    while (end < last && !(head[end] === CR && head[end + 1] === LF)) {
      if (colon < 0 && head[end] === COLON) colon = end;
      end++;
    }
    if (colon > pos) {
      if (nameIs(head, pos, colon, 'transfer-encoding')) return 'chunked';
      if (nameIs(head, pos, colon, 'content-length')) length = Number(trimmedValue(head, colon + 1, end)) || 0;
    }
    pos = end + 2;
  }
  return length;
}
