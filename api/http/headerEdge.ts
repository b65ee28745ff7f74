// An in-process TCP edge in front of uWebSockets.js 20.30, whose native binary drops, without any
// response, every request with an underscore in a header name (uNetworking/uWebSockets.js#1018, fixed in
// v20.61). Our clients send exactly such names: the L2 auth headers SVC_ADDRESS, SVC_API_KEY, … and the
// Polymarket SDK's POLY_ADDRESS, POLY_SIGNATURE, …. The edge listens on the public host/port, opens one
// connection to uWS (a Unix socket, or a loopback port) per client connection and relays bytes both ways.
//
// Contract:
// - Client → uWS: each request is framed strictly (edge/requestFramer.ts) and its head rewritten
//   (edge/requestHead.ts): `_` → `-` in header names, so uWS sees `poly-api-key`; values and bodies are
//   never changed. `x-pmx-client-ip: <client IP>` is added to every request head and any such header
//   the client sent is removed. A request that cannot be framed unambiguously is answered by the edge
//   (edge/edgeErrors.ts: 400 `{"error":"malformed request"}`, 413, 431, 505) and never forwarded; the
//   connection is then closed.
// - A write request (POST, PUT, PATCH, DELETE) that reaches an idle service, or one with at most
//   HOLD_UP_TO_IN_FLIGHT (8) requests in flight, is held up to options.holdMs with the writes that arrive
//   meanwhile, then all go on together (edge/writeHold.ts): a connection's bytes are delayed, never reordered.
//   Reads, and everything while more requests are in flight, pass at once.
// - uWS → client: bytes pass unchanged; edge/responseTracker.ts only counts responses, so the edge's own
//   answer comes after uWS's answers to earlier pipelined requests, an upgrade switches the connection to
//   raw passthrough only when uWS answers 101, and a client's FIN is passed on only once the responses
//   it is owed are out.
// - WebSockets (options.ws): after the 101, what the channels send a client is written by the edge itself
//   (edge/wsDirect.ts: the request thread sends each message once, the edge frames it once and writes it to
//   its subscribers), not relayed from uWS; uWS's own frames (pongs, its closes) are still relayed, whole,
//   between the edge's. Every request head carries `x-pmx-edge-conn: <n>`, the edge's number for the
//   connection, by which the request thread names it.
// - Back-pressure both ways (a full socket pauses the other side); either side closing closes the pair;
//   socket errors close the pair and never escape.
//
// The HTTP server must trust x-pmx-client-ip only on connections from the edge (clientIpOf): when uWS
// listens on a Unix socket, every connection is from the edge (uWS reports an empty remote address
// there). This uWS build also parses PROXY protocol v2 (getProxiedRemoteAddress works, measured); the
// header is used instead because it is per request and needs nothing of the build.

import { connect, createServer, type Server, type Socket } from 'node:net';
import { listenTcp } from './listenTcp.js';
import { EDGE_COUNTER_BYTES, edgeCounters, type EdgeCounters } from './edge/edgeCounters.js';
import { edgeErrorResponse, type EdgeErrorCode } from './edge/edgeErrors.js';
import { DEFAULT_MAX_HEAD_BYTES, RequestFramer, type FramerSink } from './edge/requestFramer.js';
import { CLIENT_IP_HEADER, clientIpTail } from './edge/requestHead.js';
import { ResponseTracker, type TrackerSink } from './edge/responseTracker.js';
import { WriteHold, type HeldConnection } from './edge/writeHold.js';
import { WsDirect, type DirectMessage, type DirectTarget } from './edge/wsDirect.js';
import { FrameSplitter } from './edge/wsFrames.js';

export { CLIENT_IP_HEADER };

export type EdgeUpstream = { readonly path: string } | { readonly host: string; readonly port: number };

export interface HeaderEdgeOptions {
  readonly host: string;
  readonly port: number;
  readonly upstream: EdgeUpstream;
  /** Largest request head (and trailer section); 431 beyond. Default 64 KiB. */
  readonly maxHeadBytes?: number;
  /** How long a connection the edge is closing may take to flush its last answer. Default 2000 ms. */
  readonly lingerMs?: number;
  /** How long close() lets connections finish the responses they are owed. Default 2000 ms. */
  readonly closeGraceMs?: number;
  /** Where the counters live (EDGE_COUNTER_BYTES of zeros; shared when another thread reads them). Default: a buffer of its own. */
  readonly counterBuffer?: ArrayBufferLike;
  /**
   * How long a write request that reaches an idle service is held, so that those arriving meanwhile go to the
   * service with it (edge/writeHold.ts). Default 0: never held.
   */
  readonly holdMs?: number;
  /** The WebSocket output the edge writes itself (edge/wsDirect.ts); unset: none, every byte relayed. */
  readonly ws?: { readonly maxBackpressureBytes: number; readonly slowClose: { readonly code: number; readonly reason: string } };
}

export interface HeaderEdgeStats {
  readonly connectionsOpen: number;
  readonly connectionsTotal: number;
  /** Request heads forwarded to uWS. */
  readonly requests: number;
  /** Of those, heads that had an underscore in a header name. */
  readonly underscoreHeads: number;
  /** Connections switched to passthrough after a 101. */
  readonly upgrades: number;
  /** Requests the edge answered itself, by error. */
  readonly refused: Readonly<Record<EdgeErrorCode, number>>;
  /** Connections closed because the edge itself threw (a bug); 0 in a healthy run. */
  readonly internalErrors: number;
  /** WebSocket clients the edge closed for falling behind (edge/wsDirect.ts). */
  readonly wsSlowConsumers: number;
  /** Holds of write requests opened (edge/writeHold.ts), and the requests they held. */
  readonly holds: number;
  readonly heldRequests: number;
  /**
   * Reads of uWS's output, over all connections: one per response when uWS writes each response whole, more
   * when it writes one in pieces (a send() each, api/http/httpServer.ts sendLater) and they arrive apart.
   */
  readonly upstreamReads: number;
}

/** A snapshot of `counters`. */
export function statsOf(counters: EdgeCounters): HeaderEdgeStats {
  return {
    connectionsOpen: counters.connectionsOpen,
    connectionsTotal: counters.connectionsTotal,
    requests: counters.requests,
    underscoreHeads: counters.underscoreHeads,
    upgrades: counters.upgrades,
    wsSlowConsumers: counters.wsSlowConsumers,
    upstreamReads: counters.upstreamReads,
    holds: counters.holds,
    heldRequests: counters.heldRequests,
    refused: { ...counters.refused },
    internalErrors: counters.internalErrors,
  };
}

export interface HeaderEdge {
  readonly port: number;
  /** A snapshot of the counters. */
  readonly stats: HeaderEdgeStats;
  /** Stops accepting; closes each connection once it owes no response (WebSockets at once); destroys the rest after closeGraceMs. */
  close(): Promise<void>;
  /** Takes a WebSocket frame to write, or a subscription change (edge/wsDirect.ts); ignored without options.ws. */
  direct(message: DirectMessage): void;
}

/**
 * The client's IP as the HTTP server should record it. `behindEdge` must say whether this connection
 * came from the edge — true for every connection when uWS listens on a Unix socket only the edge uses;
 * a header on any other connection is ignored, since a client can write it.
 */
export function clientIpOf(headers: Readonly<Record<string, string | undefined>>, socketIp: string, behindEdge: boolean): string {
  if (!behindEdge) return socketIp;
  const ip = headers[CLIENT_IP_HEADER];
  return ip !== undefined && ip !== '' ? ip : socketIp;
}

/** IPv4 peers of a dual-stack socket are reported as ::ffff:a.b.c.d; the edge passes a.b.c.d. */
export function normalizeClientIp(address: string | undefined): string {
  if (address === undefined) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}


interface EdgeContext {
  readonly upstream: EdgeUpstream;
  readonly maxHeadBytes: number;
  readonly lingerMs: number;
  readonly counters: EdgeCounters;
  /** Where every upstream read lands (EdgeConnection.upstreamRead). */
  readonly upstreamReadBuffer: Buffer;
  readonly direct: WsDirect | undefined;
  readonly hold: WriteHold;
  /** A number for each new connection (1, 2, …). */
  nextId(): number;
  readonly closed: (conn: EdgeConnection) => void;
}

// Why a socket is paused; it resumes when no reason is left.
const UPSTREAM_FULL = 1;
const HOLDING_FOR_UPGRADE = 2;
const CLIENT_FULL = 1;

class EdgeConnection implements FramerSink, TrackerSink, DirectTarget, HeldConnection {
  readonly id: number;
  readonly topics = new Set<string>();
  /** Once uWS has answered 101: uWS's frames, cut whole, so that the edge's own go between them. */
  private splitter: FrameSplitter | undefined;
  /** The edge's frames that wait: for the 101 (before the splitter) or for the end of a frame of uWS's. */
  private waiting: Buffer[] = [];
  private waitingBytes = 0;
  /** A close frame asked for before the 101 was relayed. */
  private endAfterUpgrade: Buffer | undefined;
  /** Frames held by cork(), written as one buffer by uncork() (cheaper than the socket's own cork/writev). */
  private batch: Buffer[] | undefined;
  private batchBytes = 0;
  private readonly upstream: Socket;
  private readonly framer: RequestFramer;
  private readonly tracker: ResponseTracker;
  private clientPaused = 0;
  private upstreamPaused = 0;
  private upstreamConnected = false;
  /** The edge refused a request; it answers once `after` responses are complete. */
  private pendingReject: { readonly code: EdgeErrorCode; readonly after: number } | undefined;
  /** The client sent FIN; it is passed on once no response is owed. */
  private clientEnded = false;
  private shuttingDown = false;
  /** The edge is ending the client side: nothing more is relayed. */
  private finishing = false;
  private destroyed = false;
  private lingerTimer: NodeJS.Timeout | undefined;
  /** Its upstream writes wait for the write hold's end (an extra cork, taken off by release()). */
  private held = false;
  /** Its requests counted in the write hold's in-flight figure. */
  private counted = 0;

  constructor(
    private readonly client: Socket,
    private readonly ctx: EdgeContext,
  ) {
    this.id = ctx.nextId();
    this.framer = new RequestFramer(this, clientIpTail(normalizeClientIp(client.remoteAddress), this.id), ctx.maxHeadBytes);
    ctx.direct?.add(this);
    this.tracker = new ResponseTracker(this);
    client.setNoDelay(true);
    // uWS's bytes are read into the edge's one read buffer and handed over here without Node's stream
    // machinery (no 'data' event; the bytes are copied out, from Node's small-buffer pool): every response
    // crosses this path, and the machinery cost 4-7% of the requests/s through the edge (bench:edge).
    // Returning false stops reading (back-pressure); resume() starts it again.
    this.upstream = connect({
      ...ctx.upstream,
      allowHalfOpen: true,
      onread: { buffer: ctx.upstreamReadBuffer, callback: (bytes: number, buffer: Uint8Array) => this.upstreamRead(bytes, buffer) },
    });
    if ('port' in ctx.upstream) this.upstream.setNoDelay(true);

    client.on('data', (chunk: Buffer) => this.guard(() => this.fromClient(chunk)));
    client.on('drain', () => this.resumeUpstream(CLIENT_FULL));
    client.on('end', () => this.clientEnd());
    client.on('error', () => this.destroy());
    client.on('close', () => this.destroy());
    this.upstream.on('connect', () => {
      this.upstreamConnected = true;
    });
    this.upstream.on('drain', () => this.resumeClient(UPSTREAM_FULL));
    this.upstream.on('end', () => this.upstreamGone());
    this.upstream.on('error', () => this.upstreamGone());
    this.upstream.on('close', () => this.upstreamGone());
  }

  // --- FramerSink -------------------------------------------------------------------------------------

  forward(piece: Buffer): void {
    if (!this.upstream.write(piece)) this.pauseClient(UPSTREAM_FULL);
  }

  requestForwarded(upgrade: boolean, underscores: boolean, head: boolean, write: boolean): void {
    // The request's pieces are in the upstream's cork (fromClient); a second cork keeps them there.
    if (write && !upgrade && this.ctx.hold.holds()) {
      const already = this.held;
      if (!already) {
        this.held = true;
        this.upstream.cork();
      }
      this.ctx.hold.add(this, already);
    }
    this.tracker.expect(upgrade, head);
    this.countInFlight();
    this.ctx.counters.requests++;
    if (underscores) this.ctx.counters.underscoreHeads++;
  }

  reject(code: EdgeErrorCode, midRequest: boolean): void {
    this.ctx.counters.refused[code]++;
    this.pendingReject = { code, after: this.tracker.forwarded - (midRequest ? 1 : 0) };
    this.settle();
  }

  // --- TrackerSink ------------------------------------------------------------------------------------

  upgradeDecided(accepted: boolean): void {
    if (accepted) {
      this.ctx.counters.upgrades++;
      // Written after the 101 (this runs once its bytes are out): the edge's frames that waited for it.
      this.splitter = new FrameSplitter();
      this.flushWaiting();
      if (this.endAfterUpgrade !== undefined) this.endWith(this.endAfterUpgrade);
    }
    this.upstream.cork();
    if (accepted) this.framer.acceptUpgrade();
    else this.framer.refuseUpgrade();
    this.upstream.uncork();
    this.resumeClient(HOLDING_FOR_UPGRADE);
  }

  progressed(): void {
    this.countInFlight();
    this.settle();
  }

  // --- HeldConnection ---------------------------------------------------------------------------------

  release(): void {
    if (!this.held) return;
    this.held = false;
    if (!this.destroyed) this.upstream.uncork();
  }

  private countInFlight(): void {
    const now = this.destroyed ? 0 : this.tracker.outstanding;
    if (now === this.counted) return;
    this.ctx.hold.inFlightChanged(now - this.counted);
    this.counted = now;
  }

  /** A bug in the framing code closes this connection, never the process. */
  private guard(step: () => void): void {
    try {
      step();
    } catch {
      this.ctx.counters.internalErrors++;
      this.destroy();
    }
  }

  // --- relaying ---------------------------------------------------------------------------------------

  private fromClient(chunk: Buffer): void {
    if (this.finishing) return; // a refused or closing connection: read and discard (lingering close)
    this.upstream.cork();
    this.framer.push(chunk);
    this.upstream.uncork();
    if (this.framer.heldBytes > this.ctx.maxHeadBytes) this.pauseClient(HOLDING_FOR_UPGRADE);
  }

  /** The read buffer is reused by the next read, of any connection: what is kept or queued is a copy. */
  private upstreamRead(bytes: number, buffer: Uint8Array): boolean {
    this.ctx.counters.upstreamReads++;
    const chunk = Buffer.allocUnsafe(bytes);
    chunk.set(buffer.subarray(0, bytes));
    this.guard(() => this.fromUpstream(chunk));
    return this.upstreamPaused === 0 && !this.destroyed;
  }

  // --- WebSocket frames of the edge's own (edge/wsDirect.ts) -----------------------------------------

  writeFrame(frame: Buffer): number {
    if (this.finishing || this.destroyed) return 0;
    if (this.splitter === undefined || !this.splitter.atBoundary || this.waiting.length > 0) {
      this.waiting.push(frame);
      this.waitingBytes += frame.length;
      return this.waitingBytes + this.client.writableLength;
    }
    if (this.batch !== undefined) {
      this.batch.push(frame);
      this.batchBytes += frame.length;
      return this.batchBytes + this.client.writableLength;
    }
    this.client.write(frame);
    return this.client.writableLength;
  }

  cork(): void {
    this.batch ??= [];
  }

  uncork(): void {
    const batch = this.batch;
    this.batch = undefined;
    this.batchBytes = 0;
    if (batch === undefined || batch.length === 0 || this.finishing || this.destroyed) return;
    this.client.write(batch.length === 1 ? (batch[0] as Buffer) : Buffer.concat(batch));
  }

  endWith(frame: Buffer): void {
    if (this.finishing || this.destroyed) return;
    if (this.splitter === undefined) {
      this.endAfterUpgrade = frame;
      return;
    }
    // Cutting into a frame of uWS's would corrupt the stream: then the connection just ends.
    if (!this.splitter.atBoundary) return this.finish(undefined);
    this.flushWaiting();
    this.finish(frame);
  }

  private flushWaiting(): void {
    this.uncork(); // frames held for this turn were asked for before the waiting ones
    if (this.waiting.length === 0) return;
    this.client.cork();
    for (const frame of this.waiting) this.client.write(frame);
    this.client.uncork();
    this.waiting = [];
    this.waitingBytes = 0;
  }

  private fromUpstream(chunk: Buffer): void {
    if (this.finishing) return;
    if (this.splitter !== undefined) {
      // A WebSocket: uWS's frames go out whole, the edge's own between them.
      const whole = this.splitter.push(chunk);
      if (whole !== undefined) {
        this.uncork(); // the edge's frames held for this turn came first
        if (!this.client.write(whole)) this.pauseUpstream(CLIENT_FULL);
      }
      if (this.splitter.atBoundary) this.flushWaiting();
      return;
    }
    if (!this.client.write(chunk)) this.pauseUpstream(CLIENT_FULL);
    // Observed after the write, so anything it triggers (the edge's own answer) follows these bytes.
    this.tracker.push(chunk);
  }

  private clientEnd(): void {
    if (this.finishing) return;
    this.clientEnded = true;
    this.settle();
  }

  private upstreamGone(): void {
    if (this.finishing || this.destroyed) return;
    if (!this.upstreamConnected) return this.finish(edgeErrorResponse('upstream_unavailable'));
    const reject = this.pendingReject;
    const answerable = reject !== undefined && !this.tracker.lost && this.tracker.completed === reject.after && this.tracker.atBoundary;
    this.finish(answerable ? edgeErrorResponse(reject.code) : undefined);
  }

  /** Re-checks what waits on the response count: a refusal, a client FIN, a shutdown, a lost stream. */
  private settle(): void {
    if (this.finishing || this.destroyed) return;
    const t = this.tracker;
    const reject = this.pendingReject;
    if (reject !== undefined) {
      if (t.lost) return this.finish(undefined);
      if (t.completed < reject.after || !t.atBoundary) return;
      // Every earlier request is answered. If uWS also answered the refused one, no answer of ours is owed.
      return this.finish(t.completed === reject.after ? edgeErrorResponse(reject.code) : undefined);
    }
    if (t.lost && this.framer.state === 'awaiting-upgrade') return this.finish(undefined);
    const idle = t.outstanding === 0 && this.framer.atBoundary;
    if (this.clientEnded && !this.upstream.writableEnded && (idle || !this.framer.atBoundary || t.lost || t.raw)) {
      // Passed on now: nothing is owed, or the request is incomplete and never will be.
      this.upstream.end();
    }
    if (this.shuttingDown && (idle || t.raw)) this.finish(undefined);
  }

  /** Ends the client side (with the edge's answer, if any) and drops uWS; the client has lingerMs to read it. */
  private finish(answer: Buffer | undefined): void {
    if (this.finishing || this.destroyed) return;
    this.finishing = true;
    this.ctx.direct?.remove(this);
    this.upstream.destroy();
    this.clientPaused = 0;
    this.client.resume();
    if (answer !== undefined) this.client.end(answer);
    else this.client.end();
    this.lingerTimer = setTimeout(() => this.destroy(), this.ctx.lingerMs);
    this.lingerTimer.unref();
  }

  shutdown(): void {
    this.shuttingDown = true;
    this.settle();
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.countInFlight();
    this.ctx.direct?.remove(this);
    clearTimeout(this.lingerTimer);
    this.client.destroy();
    this.upstream.destroy();
    this.ctx.closed(this);
  }

  private pauseClient(reason: number): void {
    if (this.clientPaused === 0) this.client.pause();
    this.clientPaused |= reason;
  }

  private resumeClient(reason: number): void {
    if ((this.clientPaused & reason) === 0) return;
    this.clientPaused &= ~reason;
    if (this.clientPaused === 0 && !this.destroyed) this.client.resume();
  }

  private pauseUpstream(reason: number): void {
    if (this.upstreamPaused === 0) this.upstream.pause();
    this.upstreamPaused |= reason;
  }

  private resumeUpstream(reason: number): void {
    if ((this.upstreamPaused & reason) === 0) return;
    this.upstreamPaused &= ~reason;
    if (this.upstreamPaused === 0 && !this.destroyed) this.upstream.resume();
  }
}

export async function startHeaderEdge(options: HeaderEdgeOptions): Promise<HeaderEdge> {
  const counters = edgeCounters(options.counterBuffer ?? new ArrayBuffer(EDGE_COUNTER_BYTES));
  const open = new Set<EdgeConnection>();
  let lastId = 0;
  let onEmpty: (() => void) | undefined;
  const ctx: EdgeContext = {
    upstream: options.upstream,
    maxHeadBytes: options.maxHeadBytes ?? DEFAULT_MAX_HEAD_BYTES,
    lingerMs: options.lingerMs ?? 2000,
    counters,
    upstreamReadBuffer: Buffer.allocUnsafe(64 * 1024),
    direct: options.ws === undefined ? undefined : new WsDirect({ ...options.ws, onSlow: () => counters.wsSlowConsumers++ }),
    hold: new WriteHold(options.holdMs ?? 0, counters),
    nextId: () => ++lastId,
    closed: (conn) => {
      if (!open.delete(conn)) return;
      counters.connectionsOpen--;
      if (open.size === 0) onEmpty?.();
    },
  };
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    counters.connectionsOpen++;
    counters.connectionsTotal++;
    open.add(new EdgeConnection(client, ctx));
  });
  server.on('error', () => {}); // accept errors (EMFILE) must not crash the process; listen errors reject below

  const port = await listenTcp(server, options.port, options.host);

  let closing: Promise<void> | undefined;
  return {
    port,
    get stats(): HeaderEdgeStats {
      return statsOf(counters);
    },
    direct(message) {
      ctx.direct?.receive(message);
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        const serverClosed = new Promise<void>((r) => server.close(() => r()));
        const drained = new Promise<void>((r) => {
          onEmpty = r;
          if (open.size === 0) r();
        });
        const deadline = setTimeout(() => {
          for (const conn of [...open]) conn.destroy();
        }, options.closeGraceMs ?? 2000);
        ctx.hold.releaseAll();
        for (const conn of [...open]) conn.shutdown();
        void Promise.all([serverClosed, drained]).then(() => {
          clearTimeout(deadline);
          resolve();
        });
      });
      return closing;
    },
  };
}
