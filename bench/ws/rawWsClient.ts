// A minimal WebSocket client over node:net for the benchmark, so that thousands of subscribers fit in a few
// threads and the client costs as little as possible: the upgrade by hand, masked text frames out (mask key
// 0, which leaves the payload as it is), unmasked frames in (what servers send), no extensions, no
// fragmentation (neither server under test fragments). Each text frame is handed on with its receipt time.
//
// Reads go into one buffer per thread (net's `onread`), not a fresh Buffer per read: the callback is
// synchronous, so a frame is handed on as a view of that buffer, valid only during the call, and only a
// partial frame left at the end of a read is copied.

import { connect, type Socket } from 'node:net';

const UPGRADE = (path: string): string =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`;

/**
 * Milliseconds of CLOCK_MONOTONIC (process.hrtime), with sub-ms resolution: on Linux one clock for every
 * process and thread of the machine, so a server's moment and a client's receipt compare directly.
 */
export function monoMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The read buffer of this thread's sockets (64 KiB, what libuv reads at most at once by default). */
const READ_BUFFER = Buffer.allocUnsafe(64 * 1024);

export type OnText = (payload: Buffer, receivedMs: number) => void;

export class RawWsClient {
  /** A partial frame (or head) carried over from the previous read: a copy, never a view of READ_BUFFER. */
  private rest: Buffer = Buffer.alloc(0);
  private upgraded = false;
  closed = false;
  private socket!: Socket;

  private constructor(private readonly onText: OnText) {}

  static connect(port: number, path: string, onText: OnText): Promise<RawWsClient> {
    return new Promise((resolve, reject) => {
      const client = new RawWsClient(onText);
      let settled = false;
      const onUpgrade = (error: Error | undefined): void => {
        if (settled) return;
        settled = true;
        if (error === undefined) resolve(client);
        else reject(error);
      };
      const socket = connect({
        host: '127.0.0.1',
        port,
        onread: {
          buffer: READ_BUFFER,
          callback: (n: number, buf: Uint8Array) => {
            client.read(buf as Buffer, n, onUpgrade);
            return true;
          },
        },
      });
      client.socket = socket;
      socket.setNoDelay(true);
      socket.on('error', (error) => onUpgrade(error));
      socket.on('close', () => {
        client.closed = true;
        onUpgrade(new Error('closed before the upgrade'));
      });
      socket.write(UPGRADE(path));
    });
  }

  send(text: string): void {
    const payload = Buffer.from(text);
    const n = payload.length;
    if (n >= 65536) throw new Error('message too long for this client');
    const head = n < 126 ? Buffer.from([0x81, 0x80 | n, 0, 0, 0, 0]) : Buffer.from([0x81, 0x80 | 126, n >> 8, n & 0xff, 0, 0, 0, 0]);
    this.socket.write(Buffer.concat([head, payload]));
  }

  private read(into: Buffer, n: number, onUpgrade: (error: Error | undefined) => void): void {
    const now = monoMs();
    let buf = this.rest.length === 0 ? into.subarray(0, n) : Buffer.concat([this.rest, into.subarray(0, n)]);
    if (!this.upgraded) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        this.rest = Buffer.from(buf);
        return;
      }
      const head = buf.subarray(0, end).toString('latin1');
      if (!head.startsWith('HTTP/1.1 101')) {
        this.socket.destroy();
        onUpgrade(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
        return;
      }
      this.upgraded = true;
      onUpgrade(undefined);
      buf = buf.subarray(end + 4);
    }
    for (;;) {
      if (buf.length < 2) break;
      const opcode = (buf[0] as number) & 0x0f;
      let len = (buf[1] as number) & 0x7f;
      let offset = 2;
      if (len === 126) {
        if (buf.length < 4) break;
        len = buf.readUInt16BE(2);
        offset = 4;
      } else if (len === 127) {
        if (buf.length < 10) break;
        len = Number(buf.readBigUInt64BE(2));
        offset = 10;
      }
      if (buf.length < offset + len) break;
      if (opcode === 1) this.onText(buf.subarray(offset, offset + len), now);
      else if (opcode === 8) this.closed = true;
      buf = buf.subarray(offset + len);
    }
    this.rest = buf.length === 0 ? Buffer.alloc(0) : Buffer.from(buf);
  }

  close(): void {
    this.socket.destroy();
  }
}
