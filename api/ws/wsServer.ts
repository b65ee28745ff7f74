// The market and user channels on the uWS app (docs/websocket.md): /ws/market and /ws/user at the root and
// under /clob. Behind the header edge an upgrade is relayed like any request (api/http/headerEdge.ts), so the
// client's IP is the edge's x-pmx-client-ip, trusted only on a Unix-socket connection as for HTTP
// (clientIpOf); uWS then takes the client's frames, and what is sent to the client goes through the edge,
// which writes it (edgeSockets.ts, with `edge`).
//
// Contract:
// - Market channel: `{"type":"market","assets_ids":[…],"initial_dump"?,"custom_feature_enabled"?}` subscribes
//   (type in any case); `{"operation":"subscribe"|"unsubscribe","assets_ids":[…]}` changes an open
//   subscription. Topic subscriptions and snapshots run at a durable engine position (StreamPublisher.whenDurable),
//   so a snapshot is never ahead of the log, nor behind a change already sent.
// - User channel: the first message must be `{"type":"user","auth":{apiKey,secret,passphrase},"markets"?}`;
//   wrong or missing credentials close the socket (1008) with a reason. Events go to the key's topics only;
//   deleting the key closes its connections (1008).
// - Text `PING` (any case) is answered with `PONG`. A malformed, unknown or over-limit message gets an error
//   frame (wsErrors.ts) and changes nothing; a message over wsMaxMessageBytes closes the socket (1009) with a
//   reason (one more than 1 MiB over it is dropped by uWS itself, without a close frame).
// - A connection that sends nothing (no PING) for wsIdleTimeoutSec is closed (4000) with a reason.
// - A subscriber whose send buffer passes wsMaxBackpressureBytes is closed (4008) with a reason, checked
//   whenever that much could have been queued since the last check and on a timer; uWS's own limit at twice
//   that closes it outright should a burst ever outrun the check. Either way it never slows the others.

import { timingSafeEqual } from 'node:crypto';
import type { HttpRequest, HttpResponse, TemplatedApp, us_listen_socket, us_socket_context_t, WebSocket } from 'uWebSockets.js';
import type { UwsModule } from '../http/uwsLoader.js';
import { ApiError, errorBody } from '../http/apiErrors.js';
import { CLIENT_IP_HEADER, clientIpOf } from '../http/headerEdge.js';
import { EDGE_CONN_HEADER } from '../http/edge/requestHead.js';
import { EdgeSocket, type ChannelSocket, type EdgeLink } from './edgeSockets.js';
import { ClientAddresses, FORWARDED_FOR_HEADER } from '../http/clientAddress.js';
import type { StreamPublisher } from './streamPublisher.js';
import { customTokenTopic, NEW_MARKET_TOPIC, resolvedTopic, tokenTopic, userMarketTopic, userTopic, type Fanout } from './topics.js';
import type { WsCounters } from './wsCounters.js';
import { errorFrame, WS_CLOSE, type WsErrorCode } from './wsErrors.js';

export interface WsLimits {
  readonly maxSubscriptions: number;
  readonly maxMessageBytes: number;
  readonly maxConnectionsPerIp: number;
  readonly idleTimeoutSec: number;
  readonly maxBackpressureBytes: number;
}

export interface WsCredentials {
  readonly secret: string;
  readonly passphrase: string;
}

export interface WsServerOptions {
  readonly app: TemplatedApp;
  readonly publisher: StreamPublisher;
  /** The secret and passphrase of a live API key; undefined for unknown and deleted keys. */
  readonly credentials: (apiKey: string) => WsCredentials | undefined;
  readonly limits: WsLimits;
  readonly counters: WsCounters;
  /** Whose X-Forwarded-For is believed (the first such header of an upgrade); unset: nobody's. */
  readonly clientAddresses?: ClientAddresses;
  /** How often open connections are checked for backpressure (ms). Default 100. */
  readonly sweepMs?: number;
  /** The header edge in front of `app`: it writes the output of the connections it carries (edgeSockets.ts). */
  readonly edge?: EdgeLink;
}

export interface WsServer {
  /** Closes every open connection (1001) and stops the backpressure timer. */
  close(): void;
  readonly open: number;
  /** Tells the backpressure check that a topic message of `bytes` left (uwsFanout's onPublished). */
  published(bytes: number): void;
  /** Closes the user-channel connections of a deleted key (1008). */
  keyDeleted(apiKey: string): void;
}

interface Conn {
  readonly channel: 'market' | 'user';
  readonly ip: string;
  /** When the client last sent anything (ms). */
  lastHeard: number;
  open: boolean;
  started: boolean;
  /** Market channel: subscribed token ids, and custom features. */
  readonly assets: Set<string>;
  custom: boolean;
  /** Market channel with custom features: markets of the subscribed tokens, with how many tokens each. */
  readonly resolvedMarkets: Map<string, number>;
  /** User channel: the key, its market filter (lower-case condition ids) or all markets. */
  apiKey: string;
  readonly markets: Set<string>;
  all: boolean;
  /** The header edge's number for the connection (0: not behind the edge). */
  readonly edgeConn: number;
  /** Behind the edge: the socket whose output the edge writes (edgeSockets.ts). */
  remote: EdgeSocket<Conn> | undefined;
  /** The close handler has run. */
  closed: boolean;
}

type Socket = ChannelSocket<Conn>;

/**
 * uWS as the publisher's fan-out, counting what leaves: one topic message counts once per subscriber. With
 * `edge`, the subscribers behind the header edge get it from the edge: one message to it, whatever their number.
 */
export function uwsFanout(app: TemplatedApp, counters: WsCounters, onPublished: (bytes: number) => void = () => {}, edge?: EdgeLink): Fanout {
  return {
    publish(topic, message) {
      const here = app.numSubscribers(topic);
      const there = edge?.count(topic) ?? 0;
      const n = here + there;
      if (n === 0) return;
      const bytes = Buffer.byteLength(message);
      if (here > 0) app.publish(topic, message, false, false);
      if (there > 0) edge?.post({ k: 'pub', t: topic, m: message });
      counters.messagesSent += n;
      counters.bytesSent += n * bytes;
      onPublished(bytes);
    },
    subscribers: (topic) => app.numSubscribers(topic) + (edge?.count(topic) ?? 0),
  };
}

const OVERSIZE_SLACK = 1024 * 1024;
const TOKEN_ID = /^[0-9A-Za-z_.:-]{1,256}$/;
const CONDITION_ID = /^0x[0-9a-fA-F]{64}$/;

function stringList(value: unknown, pattern: RegExp): string[] | undefined {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return undefined;
  const out: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string' || !pattern.test(item)) return undefined;
    out.push(item);
  }
  return out;
}

function flag(value: unknown, fallback: boolean): boolean | undefined {
  if (value === undefined || value === null) return fallback;
  return typeof value === 'boolean' ? value : undefined;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function attachWebSockets(options: WsServerOptions): WsServer {
  const { app, publisher, limits, counters } = options;
  const addresses = options.clientAddresses ?? new ClientAddresses([]);
  const conns = new Set<Socket>();
  /** User-channel connections by API key. */
  const byKey = new Map<string, Set<Socket>>();
  const perIp = new Map<string, number>();
  /** Bytes any one connection may have been handed since the last backpressure check. */
  let sinceSweep = 0;

  const closeSlow = (ws: Socket): void => {
    const d = ws.getUserData();
    if (!d.open) return;
    counters.slowConsumersDropped++;
    ws.end(WS_CLOSE.slowConsumer.code, WS_CLOSE.slowConsumer.reason);
  };
  const sweep = (): void => {
    sinceSweep = 0;
    for (const ws of conns) if (ws.getBufferedAmount() > limits.maxBackpressureBytes) closeSlow(ws);
  };
  const idleMs = limits.idleTimeoutSec * 1000;
  const sweepIdle = (): void => {
    const now = Date.now();
    for (const ws of conns) {
      const d = ws.getUserData();
      if (d.open && now - d.lastHeard > idleMs) ws.end(WS_CLOSE.idle.code, `${WS_CLOSE.idle.reason} ${limits.idleTimeoutSec} s`);
    }
  };
  const timer = setInterval(() => {
    sweep();
    sweepIdle();
  }, options.sweepMs ?? 100);
  timer.unref();
  /** Called for every message leaving through a topic or directly. */
  const handed = (bytes: number): void => {
    sinceSweep += bytes;
    if (sinceSweep >= limits.maxBackpressureBytes / 2) sweep();
  };

  const send = (ws: Socket, message: string): void => {
    if (!ws.getUserData().open) return;
    const bytes = Buffer.byteLength(message);
    const status = ws.send(message, false, false);
    counters.messagesSent++;
    counters.bytesSent += bytes;
    if (status === 2) closeSlow(ws);
    else handed(bytes);
  };
  const refuse = (ws: Socket, code: WsErrorCode, detail?: string): void => {
    counters.errorFrames++;
    send(ws, errorFrame(code, detail));
  };

  // --- market channel ---------------------------------------------------------------------------------

  const watchResolved = (ws: Socket, d: Conn, tokenId: string, delta: 1 | -1): void => {
    const cid = publisher.marketOf(tokenId);
    if (cid === undefined) return;
    const n = (d.resolvedMarkets.get(cid) ?? 0) + delta;
    if (n > 0) {
      d.resolvedMarkets.set(cid, n);
      if (n === 1 && delta === 1) ws.subscribe(resolvedTopic(cid));
    } else {
      d.resolvedMarkets.delete(cid);
      ws.unsubscribe(resolvedTopic(cid));
    }
  };

  const marketSubscribe = (ws: Socket, d: Conn, ids: readonly string[], dump: boolean): void => {
    const fresh = [...new Set(ids)].filter((id) => !d.assets.has(id));
    if (d.assets.size + fresh.length > limits.maxSubscriptions) return refuse(ws, 'too_many', `at most ${limits.maxSubscriptions} assets per connection`);
    for (const id of fresh) d.assets.add(id);
    counters.subscriptions += fresh.length;
    const custom = d.custom;
    publisher.whenDurable(() => {
      if (!d.open) return;
      ws.cork(() => {
        for (const id of fresh) {
          publisher.watchToken(id);
          ws.subscribe(tokenTopic(id));
          if (custom) {
            ws.subscribe(customTokenTopic(id));
            watchResolved(ws, d, id, 1);
          }
        }
        if (dump) send(ws, publisher.snapshotFrame(new Set(ids)));
      });
    });
  };

  const marketUnsubscribe = (ws: Socket, d: Conn, ids: readonly string[]): void => {
    const gone = [...new Set(ids)].filter((id) => d.assets.has(id));
    for (const id of gone) d.assets.delete(id);
    counters.subscriptions -= gone.length;
    const custom = d.custom;
    publisher.whenDurable(() => {
      if (!d.open) return;
      for (const id of gone) {
        ws.unsubscribe(tokenTopic(id));
        if (custom) {
          ws.unsubscribe(customTokenTopic(id));
          watchResolved(ws, d, id, -1);
        }
      }
    });
  };

  const onMarket = (ws: Socket, d: Conn, msg: Record<string, unknown>): void => {
    const ids = stringList(msg.assets_ids, TOKEN_ID);
    if (ids === undefined) return refuse(ws, 'bad_ids');
    const dump = flag(msg.initial_dump, true);
    if (dump === undefined) return refuse(ws, 'bad_flag');
    if (msg.operation !== undefined) {
      if (!d.started) return refuse(ws, 'not_subscribed');
      if (msg.operation === 'subscribe') return marketSubscribe(ws, d, ids, dump);
      if (msg.operation === 'unsubscribe') return marketUnsubscribe(ws, d, ids);
      return refuse(ws, 'unknown_message');
    }
    const custom = flag(msg.custom_feature_enabled, false);
    if (custom === undefined) return refuse(ws, 'bad_flag');
    if (d.started && custom !== d.custom) return refuse(ws, 'bad_flag', 'custom_feature_enabled is set by the first subscribe');
    if (!d.started) {
      d.started = true;
      d.custom = custom;
      if (custom) ws.subscribe(NEW_MARKET_TOPIC);
    }
    marketSubscribe(ws, d, ids, dump);
  };

  // --- user channel -----------------------------------------------------------------------------------

  const userTopicsOf = (d: Conn): string[] => (d.all ? [userTopic(d.apiKey)] : [...d.markets].map((m) => userMarketTopic(d.apiKey, m)));

  const authenticate = (ws: Socket, d: Conn, msg: Record<string, unknown>): void => {
    const auth = msg.auth;
    const a = typeof auth === 'object' && auth !== null ? (auth as Record<string, unknown>) : {};
    const { apiKey, secret, passphrase } = a;
    const creds = typeof apiKey === 'string' ? options.credentials(apiKey) : undefined;
    if (creds === undefined || typeof apiKey !== 'string' || typeof secret !== 'string' || typeof passphrase !== 'string' || !sameText(secret, creds.secret) || !sameText(passphrase, creds.passphrase)) {
      counters.authFailures++;
      ws.end(WS_CLOSE.unauthorized.code, WS_CLOSE.unauthorized.reason);
      return;
    }
    const markets = stringList(msg.markets, CONDITION_ID);
    if (markets === undefined) return refuse(ws, 'bad_markets');
    const set = new Set(markets.map((m) => m.toLowerCase()));
    if (set.size > limits.maxSubscriptions) return refuse(ws, 'too_many', `at most ${limits.maxSubscriptions} markets per connection`);
    d.started = true;
    d.apiKey = apiKey;
    const sockets = byKey.get(apiKey) ?? new Set<Socket>();
    sockets.add(ws);
    byKey.set(apiKey, sockets);
    d.all = set.size === 0;
    for (const m of set) d.markets.add(m);
    counters.subscriptions += d.all ? 1 : set.size;
    for (const topic of userTopicsOf(d)) ws.subscribe(topic);
    // The key's orders are followed from a durable position on; its close undoes this, queued after it.
    publisher.whenDurable(() => publisher.watchKey(apiKey));
  };

  const onUser = (ws: Socket, d: Conn, msg: Record<string, unknown>): void => {
    if (!d.started) {
      if (typeof msg.type !== 'string' || msg.type.toLowerCase() !== 'user') {
        counters.authFailures++;
        ws.end(WS_CLOSE.authFirst.code, WS_CLOSE.authFirst.reason);
        return;
      }
      return authenticate(ws, d, msg);
    }
    if (msg.operation !== 'subscribe' && msg.operation !== 'unsubscribe') return refuse(ws, msg.type !== undefined ? 'wrong_channel' : 'unknown_message', msg.type !== undefined ? 'already subscribed; change markets with an operation' : undefined);
    const markets = stringList(msg.markets, CONDITION_ID);
    if (markets === undefined) return refuse(ws, 'bad_markets');
    const ids = new Set(markets.map((m) => m.toLowerCase()));
    const before = d.all ? 1 : d.markets.size;
    for (const topic of userTopicsOf(d)) ws.unsubscribe(topic);
    if (msg.operation === 'subscribe') {
      const next = new Set(d.all ? ids : [...d.markets, ...ids]);
      if (next.size > limits.maxSubscriptions) {
        for (const topic of userTopicsOf(d)) ws.subscribe(topic);
        return refuse(ws, 'too_many', `at most ${limits.maxSubscriptions} markets per connection`);
      }
      if (ids.size > 0) {
        d.all = false;
        d.markets.clear();
        for (const m of next) d.markets.add(m);
      }
    } else if (!d.all) {
      for (const m of ids) d.markets.delete(m);
    }
    for (const topic of userTopicsOf(d)) ws.subscribe(topic);
    counters.subscriptions += (d.all ? 1 : d.markets.size) - before;
  };

  // --- connections ------------------------------------------------------------------------------------

  const onMessage = (ws: Socket, message: ArrayBuffer, isBinary: boolean): void => {
    const d = ws.getUserData();
    d.lastHeard = Date.now();
    if (message.byteLength > limits.maxMessageBytes) {
      ws.end(WS_CLOSE.tooBig.code, `${WS_CLOSE.tooBig.reason} (at most ${limits.maxMessageBytes} bytes)`);
      return;
    }
    if (isBinary) return refuse(ws, 'binary');
    const text = Buffer.from(message).toString('utf8');
    if (text.trim().toUpperCase() === 'PING') {
      send(ws, 'PONG');
      return;
    }
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      if (d.channel === 'user' && !d.started) {
        counters.authFailures++;
        ws.end(WS_CLOSE.authFirst.code, WS_CLOSE.authFirst.reason);
        return;
      }
      return refuse(ws, 'not_json');
    }
    if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
      if (d.channel === 'user' && !d.started) {
        counters.authFailures++;
        ws.end(WS_CLOSE.authFirst.code, WS_CLOSE.authFirst.reason);
        return;
      }
      return refuse(ws, 'not_object');
    }
    const m = msg as Record<string, unknown>;
    if (d.channel === 'user') return onUser(ws, d, m);
    if (m.operation === undefined) {
      if (typeof m.type !== 'string') return refuse(ws, 'unknown_message');
      if (m.type.toLowerCase() !== 'market') return refuse(ws, 'wrong_channel');
    }
    onMarket(ws, d, m);
  };

  const behaviour = (channel: 'market' | 'user') => ({
    // uWS drops a connection over its own limit without a close frame; it is set above ours so that a
    // message up to 1 MiB over the limit gets a 1009 with a reason instead.
    maxPayloadLength: limits.maxMessageBytes + OVERSIZE_SLACK,
    // Our own check closes an idle connection with a reason (sweepIdle); uWS's, later, is the backstop.
    idleTimeout: limits.idleTimeoutSec + 8,
    maxBackpressure: limits.maxBackpressureBytes * 2,
    closeOnBackpressureLimit: 1,
    sendPingsAutomatically: false,
    upgrade: (res: HttpResponse, req: HttpRequest, context: us_socket_context_t) => {
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const socketIp = Buffer.from(res.getRemoteAddressAsText()).toString();
      // A TCP connection always has an address; an empty one is a Unix-socket connection, i.e. the edge.
      const peer = clientIpOf({ [CLIENT_IP_HEADER]: req.getHeader(CLIENT_IP_HEADER) }, socketIp, socketIp === '');
      const ip = addresses.clientOf(peer, req.getHeader(FORWARDED_FOR_HEADER) || undefined);
      if ((perIp.get(ip) ?? 0) >= limits.maxConnectionsPerIp) {
        counters.connectionsRefused++;
        res.cork(() => {
          res
            .writeStatus('429 Too Many Requests')
            .writeHeader('content-type', 'application/json')
            .end(JSON.stringify(errorBody('clob', new ApiError('ws_connections_per_ip', { limit: limits.maxConnectionsPerIp }))));
        });
        return;
      }
      perIp.set(ip, (perIp.get(ip) ?? 0) + 1);
      const edgeConn = socketIp === '' ? Number(req.getHeader(EDGE_CONN_HEADER)) || 0 : 0;
      const data: Conn = {
        channel, ip, lastHeard: Date.now(), open: false, started: false, assets: new Set(), custom: false, resolvedMarkets: new Map(), apiKey: '', markets: new Set(), all: false,
        edgeConn, remote: undefined, closed: false,
      };
      res.upgrade(data, key, protocol, extensions, context);
    },
    open: (uwsSocket: WebSocket<Conn>) => {
      const d = uwsSocket.getUserData();
      if (d.edgeConn > 0 && options.edge?.running === true) d.remote = new EdgeSocket(uwsSocket, d.edgeConn, options.edge, closeConn);
      const ws: Socket = d.remote ?? uwsSocket;
      d.open = true;
      conns.add(ws);
      counters.connectionsTotal++;
      if (channel === 'market') counters.marketConnections++;
      else counters.userConnections++;
    },
    message: (uwsSocket: WebSocket<Conn>, message: ArrayBuffer, isBinary: boolean) => {
      const d = uwsSocket.getUserData();
      if (d.open) onMessage(d.remote ?? uwsSocket, message, isBinary);
    },
    close: (uwsSocket: WebSocket<Conn>) => {
      const d = uwsSocket.getUserData();
      d.remote?.release();
      closeConn(d.remote ?? uwsSocket);
    },
  });

  /** The close handler: once per connection (an edge socket's end() runs it before uWS's close does). */
  function closeConn(ws: Socket): void {
    const d = ws.getUserData();
    if (d.closed) return;
    d.closed = true;
    d.open = false;
    conns.delete(ws);
    const left = (perIp.get(d.ip) ?? 1) - 1;
    if (left > 0) perIp.set(d.ip, left);
    else perIp.delete(d.ip);
    if (d.channel === 'market') {
      counters.marketConnections--;
      counters.subscriptions -= d.assets.size;
    } else {
      counters.userConnections--;
      if (d.started) counters.subscriptions -= d.all ? 1 : d.markets.size;
      const sockets = byKey.get(d.apiKey);
      sockets?.delete(ws);
      if (sockets?.size === 0) byKey.delete(d.apiKey);
      if (d.started) {
        const apiKey = d.apiKey;
        publisher.whenDurable(() => publisher.unwatchKey(apiKey));
      }
    }
  }

  for (const prefix of ['', '/clob']) {
    app.ws<Conn>(`${prefix}/ws/market`, behaviour('market'));
    app.ws<Conn>(`${prefix}/ws/user`, behaviour('user'));
  }

  return {
    get open() {
      return conns.size;
    },
    published: handed,
    keyDeleted(apiKey) {
      for (const ws of [...(byKey.get(apiKey) ?? [])]) ws.end(WS_CLOSE.keyDeleted.code, WS_CLOSE.keyDeleted.reason);
    },
    close() {
      clearInterval(timer);
      for (const ws of [...conns]) ws.end(WS_CLOSE.shutdown.code, WS_CLOSE.shutdown.reason);
    },
  };
}

export interface DirectWs {
  readonly app: TemplatedApp;
  readonly server: WsServer;
  readonly port: number;
  /** Closes the connections and stops listening. */
  close(): void;
}

/**
 * The channels on an app of their own, listening on host:port straight from uWS (no header edge): the
 * client IP is the socket's. Every other path answers 404.
 */
export async function listenWsDirect(uws: UwsModule, host: string, port: number, options: Omit<WsServerOptions, 'app'>): Promise<DirectWs> {
  const app = uws.App();
  const server = attachWebSockets({ ...options, app });
  app.any('/*', (res) => {
    res.cork(() => {
      res.writeStatus('404 Not Found').writeHeader('content-type', 'application/json').end(JSON.stringify({ error: 'not found' }));
    });
  });
  const socket = await new Promise<us_listen_socket>((resolve, reject) => {
    app.listen(host, port, (s) => (s === false ? reject(new Error(`cannot listen on ${host}:${port} for WebSocket`)) : resolve(s)));
  });
  return {
    app,
    server,
    port: uws.us_socket_local_port(socket),
    close() {
      server.close();
      uws.us_listen_socket_close(socket);
    },
  };
}
