// Who owns the public port. With --header-edge (the default) the header edge (api/http/headerEdge.ts; on its
// own thread with --edge-thread, the default: api/http/edgeThread.ts) listens on httpHost:httpPort and relays to uWS, which listens on a Unix socket only the edge uses: `http.sock` under
// the data directory, or, when that path does not fit sun_path, `pmx-<hash of the data directory>.sock` under
// the system temp directory (the same path on every start with the same data directory). Without it, uWS
// listens on the port itself.
//
// A socket file left by a crash is removed at start. One that still answers belongs to a running service
// and refuses the start: this uWS build would otherwise unlink it and take the path over silently.

import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startHeaderEdge, type HeaderEdge } from '../api/http/headerEdge.js';
import { startHeaderEdgeThread } from '../api/http/edgeThread.js';
import { MAX_UNIX_PATH_BYTES, type HttpServer } from '../api/http/httpServer.js';
import type { Config } from '../config/index.js';
import { WS_CLOSE } from '../api/ws/wsErrors.js';

export interface PublicListener {
  /** The public port (the edge's when it runs). */
  readonly port: number;
  readonly edge: HeaderEdge | undefined;
  /** The Unix socket uWS listens on behind the edge. */
  readonly socketPath: string | undefined;
  /**
   * Stops taking connections at the public port: the edge stops accepting and lets its connections finish
   * the responses they are owed, then uWS stops listening. Requests uWS already has still run (http.drained()).
   */
  stop(): Promise<void>;
  /** Removes the Unix socket file. */
  removeSocket(): void;
}

type ListenConfig = Pick<Config, 'headerEdge' | 'edgeThread' | 'edgeHoldMs' | 'httpHost' | 'httpPort' | 'dataDir' | 'wsMaxBackpressureBytes'>;

/** `onEdgeFailure`: the edge's thread died after start (--edge-thread), so the public port is no longer served. */
export async function listenPublic(http: HttpServer, config: ListenConfig, onEdgeFailure: (error: Error) => void = () => {}): Promise<PublicListener> {
  if (!config.headerEdge) {
    const port = await http.listen(config.httpHost, config.httpPort);
    return { port, edge: undefined, socketPath: undefined, stop: () => Promise.resolve(http.stopListening()), removeSocket: () => {} };
  }
  const socketPath = uwsSocketPath(config.dataDir);
  await removeStaleSocket(socketPath);
  await http.listenUnix(socketPath);
  const removeSocket = (): void => rmSync(socketPath, { force: true });
  let edge: HeaderEdge;
  try {
    // The edge writes the WebSocket channels' output itself (api/http/edge/wsDirect.ts), closing a client
    // that falls behind as the channels do.
    const ws = { maxBackpressureBytes: config.wsMaxBackpressureBytes, slowClose: WS_CLOSE.slowConsumer };
    const options = { host: config.httpHost, port: config.httpPort, upstream: { path: socketPath }, ws, holdMs: config.edgeHoldMs };
    edge = config.edgeThread ? await startHeaderEdgeThread(options, onEdgeFailure) : await startHeaderEdge(options);
  } catch (error) {
    http.stopListening();
    removeSocket();
    throw error;
  }
  return {
    port: edge.port,
    edge,
    socketPath,
    async stop() {
      await edge.close();
      http.stopListening();
    },
    removeSocket,
  };
}

/** `<dataDir>/http.sock`, or a short stand-in under the temp directory when that is too long for sun_path. */
export function uwsSocketPath(dataDir: string): string {
  const dir = resolve(dataDir);
  const preferred = join(dir, 'http.sock');
  if (Buffer.byteLength(preferred) <= MAX_UNIX_PATH_BYTES) return preferred;
  const short = join(tmpdir(), `pmx-${createHash('sha256').update(dir).digest('hex').slice(0, 16)}.sock`);
  if (Buffer.byteLength(short) > MAX_UNIX_PATH_BYTES) {
    throw new Error(`no Unix socket path for uWS fits ${MAX_UNIX_PATH_BYTES} bytes (tried ${preferred} and ${short}); use a shorter data directory or TMPDIR`);
  }
  return short;
}

/** Removes a socket file nobody listens on; refuses one that still accepts connections. */
export async function removeStaleSocket(path: string): Promise<void> {
  const live = await new Promise<boolean>((done) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      done(true);
    });
    probe.once('error', () => done(false));
  });
  if (live) throw new Error(`another process is listening on ${path}: is a service already running on this data directory?`);
  rmSync(path, { force: true });
}
