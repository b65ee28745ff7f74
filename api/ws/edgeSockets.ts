// Channel connections behind the header edge whose output the edge writes itself (api/http/edge/wsDirect.ts):
// uWS still takes the client's frames, but everything sent to the client (messages, topic subscriptions, the
// closing frame) goes to the edge, which frames each topic message once and writes it to its subscribers.
//
// Contract: EdgeSocket behaves for wsServer.ts as a uWS WebSocket does: send() and end() keep their order,
// subscribe()/unsubscribe() take effect for the topic messages published after them, and end() runs the
// close handler at once (as uWS's end does); the uWS socket itself closes when the edge has written the close
// frame and dropped its side. getBufferedAmount() is 0: the edge watches the client's backlog itself and closes a
// slow client with the same code and reason.

import type { WebSocket } from 'uWebSockets.js';
import type { DirectMessage } from '../http/edge/wsDirect.js';

/** The way to the edge, once it runs (set by the service), and how many edge sockets each topic has. */
export class EdgeLink {
  /** The edge: where messages go, and its counters (the slow clients it closed). */
  edge: { readonly stats: { readonly wsSlowConsumers: number }; direct(message: DirectMessage): void } | undefined;
  readonly topicCounts = new Map<string, number>();

  /** The edge runs: its connections' output can go to it. */
  get running(): boolean {
    return this.edge !== undefined;
  }

  post(message: DirectMessage): void {
    this.edge?.direct(message);
  }

  count(topic: string): number {
    return this.topicCounts.get(topic) ?? 0;
  }

  add(topic: string, delta: 1 | -1): void {
    const n = this.count(topic) + delta;
    if (n > 0) this.topicCounts.set(topic, n);
    else this.topicCounts.delete(topic);
  }
}

/** What wsServer.ts uses of a connection: a uWS WebSocket, or an EdgeSocket. */
export interface ChannelSocket<T> {
  getUserData(): T;
  send(message: string, isBinary?: boolean, compress?: boolean): number;
  subscribe(topic: string): boolean;
  unsubscribe(topic: string): boolean;
  end(code?: number, reason?: string): void;
  getBufferedAmount(): number;
  cork(cb: () => void): unknown;
}

export class EdgeSocket<T> implements ChannelSocket<T> {
  private readonly topics = new Set<string>();
  private ended = false;

  constructor(
    private readonly ws: WebSocket<T>,
    private readonly id: number,
    /** Its edge is set (the edge runs) before any edge connection opens. */
    private readonly link: EdgeLink,
    /** wsServer's close handler, run by end(). */
    private readonly closed: (socket: EdgeSocket<T>) => void,
  ) {}

  getUserData(): T {
    return this.ws.getUserData();
  }

  send(message: string): number {
    if (this.ended) return 2;
    this.link.post({ k: 'send', c: this.id, m: message });
    return 1;
  }

  subscribe(topic: string): boolean {
    if (this.ended || this.topics.has(topic)) return false;
    this.topics.add(topic);
    this.link.add(topic, 1);
    this.link.post({ k: 'sub', c: this.id, t: topic });
    return true;
  }

  unsubscribe(topic: string): boolean {
    if (!this.topics.delete(topic)) return false;
    this.link.add(topic, -1);
    if (!this.ended) this.link.post({ k: 'unsub', c: this.id, t: topic });
    return true;
  }

  end(code = 1000, reason = ''): void {
    if (this.ended) return;
    this.link.post({ k: 'end', c: this.id, code, r: reason });
    this.release();
    this.closed(this);
  }

  /** The connection is gone (closed here, or its uWS socket closed): its topics no longer count. */
  release(): void {
    this.ended = true;
    for (const topic of this.topics) this.link.add(topic, -1);
    this.topics.clear();
  }

  getBufferedAmount(): number {
    return 0;
  }

  cork(cb: () => void): this {
    cb();
    return this;
  }
}
