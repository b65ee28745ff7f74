// The client → uWS direction of one connection: a strict HTTP/1.1 request framer. It cuts the byte stream
// into requests (head, then a body by Content-Length or chunked coding, then the next request), hands
// each head to parseRequestHead and forwards the result. Body bytes are forwarded as views of the input
// chunks; a chunk that is wholly body is forwarded as the same Buffer.
//
// States and transitions (a refusal from any framing state goes to `dead`):
//   head ──(no body)──▶ head    head ──(CL)──▶ length ──▶ head    head ──(TE)──▶ chunked ──▶ head
//   head ──(Upgrade)──▶ awaiting-upgrade ──(101)──▶ raw
//                                        └─(other status)──▶ head (held bytes are framed)
// While awaiting the upgrade's answer the framer holds every further byte: uWS decides whether the
// connection stays HTTP, and only its status line tells which.

import { ChunkedDecoder, UWS_MAX_CHUNK } from './chunkedBody.js';
import type { EdgeErrorCode } from './edgeErrors.js';
import { HeadAccumulator } from './headAccumulator.js';
import { CR, LF } from './httpSyntax.js';
import { parseRequestHead } from './requestHead.js';

export const DEFAULT_MAX_HEAD_BYTES = 64 * 1024;

export interface FramerSink {
  forward(piece: Buffer): void;
  /**
   * A request head went out; its response is now owed (`head`: a HEAD request, whose response has no body;
   * `write`: a POST, PUT, PATCH or DELETE).
   */
  requestForwarded(upgrade: boolean, underscores: boolean, head: boolean, write: boolean): void;
  /** The stream is refused; `midRequest` when the refused request's head was already forwarded. */
  reject(code: EdgeErrorCode, midRequest: boolean): void;
}

export type FramerState = 'head' | 'length' | 'chunked' | 'awaiting-upgrade' | 'raw' | 'dead';

export class RequestFramer {
  private current: FramerState = 'head';
  private readonly head: HeadAccumulator;
  private readonly chunked: ChunkedDecoder;
  private remaining = 0;
  private held: Buffer[] = [];
  private heldLength = 0;

  constructor(
    private readonly sink: FramerSink,
    private readonly ipTail: Buffer,
    maxHeadBytes = DEFAULT_MAX_HEAD_BYTES,
  ) {
    this.head = new HeadAccumulator(maxHeadBytes);
    this.chunked = new ChunkedDecoder({ maxChunk: UWS_MAX_CHUNK, maxTrailerBytes: maxHeadBytes }, (piece) => sink.forward(piece));
  }

  get state(): FramerState {
    return this.current;
  }

  /** Bytes held back while an upgrade is undecided. */
  get heldBytes(): number {
    return this.heldLength;
  }

  /** Between requests: nothing of a request is half-read. */
  get atBoundary(): boolean {
    return this.current === 'head' && this.head.pending === 0;
  }

  push(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      switch (this.current) {
        case 'raw':
          this.sink.forward(pos === 0 ? chunk : chunk.subarray(pos));
          return;
        case 'awaiting-upgrade': {
          const rest = pos === 0 ? chunk : chunk.subarray(pos);
          this.held.push(rest);
          this.heldLength += rest.length;
          return;
        }
        case 'dead':
          return;
        case 'length': {
          const n = Math.min(this.remaining, chunk.length - pos);
          this.sink.forward(pos === 0 && n === chunk.length ? chunk : chunk.subarray(pos, pos + n));
          this.remaining -= n;
          pos += n;
          if (this.remaining === 0) this.current = 'head';
          break;
        }
        case 'chunked': {
          const r = this.chunked.feed(chunk, pos);
          if (r.kind === 'more') return;
          if (r.kind === 'error') return this.fail(r.code, true);
          pos = r.next;
          this.current = 'head';
          break;
        }
        case 'head': {
          // RFC 9112 §2.2: empty lines before a request line are ignored (and not forwarded).
          if (this.head.pending === 0) {
            while (pos < chunk.length && (chunk[pos] === CR || chunk[pos] === LF)) pos++;
            if (pos === chunk.length) return;
          }
          const r = this.head.feed(chunk, pos);
          if (r.kind === 'more') return;
          if (r.kind === 'too-large') return this.fail('header_too_large', false);
          if (r.kind === 'bare-lf') return this.fail('malformed_request', false);
          const parsed = parseRequestHead(r.head, this.ipTail);
          if (parsed.kind === 'error') return this.fail(parsed.code, false);
          for (const piece of parsed.pieces) this.sink.forward(piece);
          this.sink.requestForwarded(parsed.upgrade, parsed.underscores, parsed.head, parsed.write);
          pos = r.next;
          if (parsed.upgrade) this.current = 'awaiting-upgrade';
          else if (parsed.body.kind === 'length') {
            this.current = 'length';
            this.remaining = parsed.body.length;
          } else if (parsed.body.kind === 'chunked') this.current = 'chunked';
          break;
        }
      }
    }
  }

  /** uWS answered the upgrade with 101: everything from here on, held bytes first, passes through. */
  acceptUpgrade(): void {
    if (this.current !== 'awaiting-upgrade') return;
    this.current = 'raw';
    for (const piece of this.takeHeld()) this.sink.forward(piece);
  }

  /** uWS answered the upgrade with another status: the connection stays HTTP; held bytes are framed. */
  refuseUpgrade(): void {
    if (this.current !== 'awaiting-upgrade') return;
    this.current = 'head';
    for (const piece of this.takeHeld()) this.push(piece);
  }

  private takeHeld(): Buffer[] {
    const held = this.held;
    this.held = [];
    this.heldLength = 0;
    return held;
  }

  private fail(code: EdgeErrorCode, midRequest: boolean): void {
    this.current = 'dead';
    this.held = [];
    this.heldLength = 0;
    this.sink.reject(code, midRequest);
  }
}
