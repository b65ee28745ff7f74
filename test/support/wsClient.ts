// A WebSocket client for end-to-end tests (the `ws` package, as a third-party client connects): collects
// every frame in arrival order, parsed when it is JSON, and waits for the next frame matching a predicate.

import WebSocket from 'ws';

export interface Closed {
  code: number;
  reason: string;
}

export class WsClient {
  readonly frames: unknown[] = [];
  /** Index of the first frame no `next` has consumed. */
  private cursor = 0;
  private waiters: (() => void)[] = [];
  closed: Closed | undefined;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      const text = isBinary ? data.toString('hex') : data.toString('utf8');
      let value: unknown = text;
      try {
        value = JSON.parse(text);
      } catch {
        // a text frame such as PONG
      }
      this.frames.push(value);
      this.wake();
    });
    socket.on('close', (code: number, reason: Buffer) => {
      this.closed = { code, reason: reason.toString('utf8') };
      this.wake();
    });
    socket.on('error', () => {});
  }

  static connect(url: string, options: WebSocket.ClientOptions = {}): Promise<WsClient> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, options);
      const client = new WsClient(socket);
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
      socket.once('error', reject);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The next unconsumed frame matching `match` (frames before it are consumed too). */
  async next(match: (frame: unknown) => boolean = () => true, timeoutMs = 5000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.cursor < this.frames.length) {
        const frame = this.frames[this.cursor++];
        if (match(frame)) return frame;
      }
      if (this.closed !== undefined) throw new Error(`socket closed (${this.closed.code} ${this.closed.reason}) while waiting`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching frame within ${timeoutMs} ms; frames: ${JSON.stringify(this.frames.slice(-5))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Resolves with the close code and reason (waits for the server to close). */
  async whenClosed(timeoutMs = 5000): Promise<Closed> {
    const deadline = Date.now() + timeoutMs;
    while (this.closed === undefined) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`not closed within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.closed;
  }

  /** Frames received and not yet consumed by `next`. */
  get unread(): unknown[] {
    return this.frames.slice(this.cursor);
  }

  close(): void {
    this.socket.close();
  }
}

/** A frame's events: a frame is one event object or an array of them. */
export function eventsOf(frame: unknown): Record<string, unknown>[] {
  if (Array.isArray(frame)) return frame as Record<string, unknown>[];
  return typeof frame === 'object' && frame !== null ? [frame as Record<string, unknown>] : [];
}

export function isEvent(type: string, assetId?: string): (frame: unknown) => boolean {
  return (frame) => eventsOf(frame).some((e) => e.event_type === type && (assetId === undefined || e.asset_id === assetId || (Array.isArray(e.price_changes) && (e.price_changes as { asset_id: string }[]).some((c) => c.asset_id === assetId))));
}
