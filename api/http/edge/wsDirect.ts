// WebSocket output written by the header edge itself. Behind the edge, a channel's messages would otherwise
// cross two sockets per subscriber (uWS → the edge's Unix socket → the client), and at 100,000 messages per
// second the edge's relaying of them was most of the machine. Instead the request thread sends the edge each
// message once (DirectMessage), and the edge frames it once and writes it to the clients subscribed to it.
//
// Contract (with api/ws/wsServer.ts, which is the only sender):
// - A connection is named by the number the edge put on its upgrade request (x-pmx-edge-conn). For such a
//   connection the request thread writes nothing through uWS after the 101: every frame it sends ('send',
//   a topic's 'pub', the closing 'end') comes here, in the order sent, so their order is the order decided.
//   uWS still receives the client's frames, and may write control frames (pong, its own close), which the
//   edge relays whole, never cutting into a frame of its own (edge/wsFrames.ts FrameSplitter).
// - Frames for a connection whose 101 has not been relayed yet wait for it.
// - A client whose unsent bytes pass maxBackpressureBytes is closed with slowClose (code and reason) and
//   counted; the others are not slowed. Messages for connections that are gone are dropped.

import { closeFrame, textFrame } from './wsFrames.js';

export type DirectMessage =
  | { readonly k: 'send'; readonly c: number; readonly m: string }
  | { readonly k: 'sub'; readonly c: number; readonly t: string }
  | { readonly k: 'unsub'; readonly c: number; readonly t: string }
  | { readonly k: 'pub'; readonly t: string; readonly m: string }
  | { readonly k: 'end'; readonly c: number; readonly code: number; readonly r: string };

/** What the edge's connection does for this module (headerEdge.ts EdgeConnection). */
export interface DirectTarget {
  readonly id: number;
  /** Topics this connection is subscribed to here. */
  readonly topics: Set<string>;
  /** Writes a whole frame after everything before it; returns the client's unsent bytes. */
  writeFrame(frame: Buffer): number;
  /** Writes a close frame after everything before it and closes the connection. */
  endWith(frame: Buffer): void;
  /** Holds writes until uncork(), which sends them in one system call (net.Socket cork/uncork). */
  cork(): void;
  uncork(): void;
}

export interface WsDirectOptions {
  readonly maxBackpressureBytes: number;
  readonly slowClose: { readonly code: number; readonly reason: string };
  /** Called for each client closed as slow. */
  readonly onSlow: () => void;
}

export class WsDirect {
  private readonly conns = new Map<number, DirectTarget>();
  private readonly topics = new Map<string, Set<DirectTarget>>();
  /**
   * Connections written to in this turn of the edge's event loop, corked: their frames go out together at the
   * end of the turn, one system call per connection however many messages the turn brought (under load, many;
   * alone, one, with no wait).
   */
  private readonly corked = new Set<DirectTarget>();
  private flushing = false;

  constructor(private readonly options: WsDirectOptions) {}

  add(target: DirectTarget): void {
    this.conns.set(target.id, target);
  }

  remove(target: DirectTarget): void {
    this.conns.delete(target.id);
    for (const topic of target.topics) {
      const set = this.topics.get(topic);
      set?.delete(target);
      if (set?.size === 0) this.topics.delete(topic);
    }
    target.topics.clear();
  }

  receive(message: DirectMessage): void {
    switch (message.k) {
      case 'pub': {
        const set = this.topics.get(message.t);
        if (set === undefined) return;
        const frame = textFrame(message.m);
        for (const target of [...set]) this.write(target, frame);
        return;
      }
      case 'send': {
        const target = this.conns.get(message.c);
        if (target !== undefined) this.write(target, textFrame(message.m));
        return;
      }
      case 'sub': {
        const target = this.conns.get(message.c);
        if (target === undefined || target.topics.has(message.t)) return;
        target.topics.add(message.t);
        let set = this.topics.get(message.t);
        if (set === undefined) this.topics.set(message.t, (set = new Set()));
        set.add(target);
        return;
      }
      case 'unsub': {
        const target = this.conns.get(message.c);
        if (target === undefined || !target.topics.delete(message.t)) return;
        const set = this.topics.get(message.t);
        set?.delete(target);
        if (set?.size === 0) this.topics.delete(message.t);
        return;
      }
      case 'end': {
        const target = this.conns.get(message.c);
        if (target === undefined) return;
        this.remove(target);
        target.endWith(closeFrame(message.code, message.r));
      }
    }
  }

  private write(target: DirectTarget, frame: Buffer): void {
    if (!this.corked.has(target)) {
      target.cork();
      this.corked.add(target);
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => this.flush());
      }
    }
    if (target.writeFrame(frame) <= this.options.maxBackpressureBytes) return;
    this.remove(target);
    this.options.onSlow();
    target.endWith(closeFrame(this.options.slowClose.code, this.options.slowClose.reason));
  }

  private flush(): void {
    this.flushing = false;
    for (const target of this.corked) target.uncork();
    this.corked.clear();
  }
}
