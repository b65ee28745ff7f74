// WebSocket frames as a server writes them (RFC 6455 §5.2: unmasked, FIN set, no extensions), and a splitter
// that finds whole frames in what a server wrote, so that the header edge can put its own frames between
// uWS's without cutting one.

const TEXT = 0x1;
const CLOSE = 0x8;

function header(opcode: number, length: number): Buffer {
  if (length < 126) return Buffer.from([0x80 | opcode, length]);
  if (length < 65536) {
    const h = Buffer.allocUnsafe(4);
    h[0] = 0x80 | opcode;
    h[1] = 126;
    h.writeUInt16BE(length, 2);
    return h;
  }
  const h = Buffer.allocUnsafe(10);
  h[0] = 0x80 | opcode;
  h[1] = 127;
  h.writeBigUInt64BE(BigInt(length), 2);
  return h;
}

/** One text frame carrying `text` (UTF-8), header and payload in one buffer. */
export function textFrame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  return Buffer.concat([header(TEXT, payload.length), payload]);
}

/** A close frame with a status code and a reason (cut to the 123 bytes a control frame leaves it). */
export function closeFrame(code: number, reason: string): Buffer {
  let why = Buffer.from(reason, 'utf8');
  if (why.length > 123) why = why.subarray(0, 123);
  const payload = Buffer.allocUnsafe(2 + why.length);
  payload.writeUInt16BE(code, 0);
  why.copy(payload, 2);
  return Buffer.concat([header(CLOSE, payload.length), payload]);
}

/**
 * Cuts a server's byte stream into whole frames: push() returns the bytes that complete frames (possibly
 * none), keeping a partial frame until the rest comes. Server frames are unmasked; a masked one, or a length
 * past 2^53, makes the stream unreadable (`broken`), after which push() returns its input unchanged.
 */
export class FrameSplitter {
  private held: Buffer | undefined;
  broken = false;

  push(chunk: Buffer): Buffer | undefined {
    if (this.broken) return chunk;
    const data = this.held === undefined ? chunk : Buffer.concat([this.held, chunk]);
    let end = 0;
    for (;;) {
      const size = frameSize(data, end);
      if (size === -2) {
        this.broken = true;
        this.held = undefined;
        return data;
      }
      if (size === -1 || end + size > data.length) break;
      end += size;
    }
    this.held = end < data.length ? Buffer.from(data.subarray(end)) : undefined;
    return end === 0 ? undefined : data.subarray(0, end);
  }

  /** Between frames: nothing of a frame is held. */
  get atBoundary(): boolean {
    return this.held === undefined;
  }
}

/** The whole size of the frame at `at`; -1 when its header is not all there; -2 when it cannot be a server's. */
function frameSize(data: Buffer, at: number): number {
  if (data.length - at < 2) return -1;
  const second = data[at + 1] as number;
  if ((second & 0x80) !== 0) return -2;
  const short = second & 0x7f;
  if (short < 126) return 2 + short;
  if (short === 126) return data.length - at < 4 ? -1 : 4 + data.readUInt16BE(at + 2);
  if (data.length - at < 10) return -1;
  const long = data.readBigUInt64BE(at + 2);
  if (long > BigInt(Number.MAX_SAFE_INTEGER)) return -2;
  return 10 + Number(long);
}
