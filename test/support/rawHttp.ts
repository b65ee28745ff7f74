// Raw HTTP/1.x over a TCP socket, for what fetch and node:http cannot send or hide: HTTP/1.0 request lines,
// unknown methods, pipelined requests in one write, and responses exactly as framed on the wire.

import { connect } from 'node:net';

export interface RawExchange {
  /** Everything read, as latin1. */
  readonly text: string;
  /** The server closed the connection (FIN) before we did. */
  readonly closedByServer: boolean;
}

/**
 * Writes `bytes` to 127.0.0.1:`port` and reads until `responses` status lines have arrived and then 200 ms
 * more (to see whether anything else follows, or the server closes), or until the server closes, or 5 s.
 */
export function rawExchange(port: number, bytes: string, responses: number): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let closedByServer = false;
    let settled = false;
    const done = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closedByServer });
    };
    const timer = setTimeout(done, 5000);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (text.split(/HTTP\/1\.[01] \d{3}/).length - 1 >= responses) setTimeout(done, 200);
    });
    socket.on('end', () => {
      closedByServer = true;
      done();
    });
    socket.on('error', done);
  });
}

/** The status codes of the responses in `text`, in order. */
export function statuses(text: string): number[] {
  return [...text.matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
}
