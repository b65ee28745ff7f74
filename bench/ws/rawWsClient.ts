// A minimal WebSocket client over node:net for the benchmark, so that thousands of subscribers fit in one
// process and the client costs as little as possible: the upgrade by hand, masked text frames out (mask
// key 0, which leaves the payload as it is), unmasked frames in (what servers send), no extensions, no
// fragmentation (neither server under test fragments). Each text frame is handed on with its receipt time.

import { connect, type Socket } from 'node:net';

const UPGRADE = (path: string): string =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`;

/** Wall-clock ms with sub-ms resolution, comparable across processes of one machine. */
export function wallMs(): number {
  return performance.timeOrigin + performance.now();
}

export class RawWsClient {
  private buffer: Buffer = Buffer.alloc(0);
  private upgraded = false;
  closed = false;

  private constructor(
    private readonly socket: Socket,
    private readonly onText: (payload: Buffer, receivedMs: number) => void,
  ) {}

  static connect(port: number, path: string, onText: (payload: Buffer, receivedMs: number) => void): Promise<RawWsClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.setNoDelay(true);
      const client = new RawWsClient(socket, onText);
      socket.once('error', reject);
      socket.on('close', () => (client.closed = true));
      socket.on('data', (chunk: Buffer) => {
        if (client.upgraded) return client.frames(chunk);
        client.buffer = Buffer.concat([client.buffer, chunk]);
        const end = client.buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = client.buffer.subarray(0, end).toString('latin1');
        if (!head.startsWith('HTTP/1.1 101')) {
          socket.destroy();
          reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`));
          return;
        }
        client.upgraded = true;
        const rest = client.buffer.subarray(end + 4);
        client.buffer = Buffer.alloc(0);
        socket.off('error', reject);
        socket.on('error', () => {});
        resolve(client);
        if (rest.length > 0) client.frames(rest);
      });
      socket.write(UPGRADE(path));
    });
  }

  send(text: string): void {
    const payload = Buffer.from(text);
    const n = payload.length;
    const head = n < 126 ? Buffer.from([0x81, 0x80 | n, 0, 0, 0, 0]) : Buffer.from([0x81, 0x80 | 126, n >> 8, n & 0xff, 0, 0, 0, 0]);
    if (n >= 65536) throw new Error('message too long for this client');
    this.socket.write(Buffer.concat([head, payload]));
  }

  private frames(chunk: Buffer): void {
    const now = wallMs();
    let buf = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
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
      const payload = buf.subarray(offset, offset + len);
      if (opcode === 1) this.onText(payload, now);
      else if (opcode === 8) this.closed = true;
      buf = buf.subarray(offset + len);
    }
    this.buffer = buf.length === 0 ? Buffer.alloc(0) : Buffer.from(buf);
  }

  close(): void {
    this.socket.destroy();
  }
}
