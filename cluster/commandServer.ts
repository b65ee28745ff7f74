// The engine role's command port: API nodes connect (commandWire.ts) and submit commands, which the engine
// host applies in its batches like any other; each answer leaves only once the command's record is durable
// (EngineHost.apply resolves then). Each durable batch's records are sent to every node (publish(), from the
// engine host's onDurable, which runs before the batch's answers are written). A connection that closes does not withdraw its commands: they are
// applied and logged as usual, and the node learns nothing of them (it reports them as not known).
//
// The peer is another process of the service, not a client: a wrong token, a malformed line or an unknown
// command type is answered (refused / failed) and logged, and never reaches the engine.

import { createServer, type Server, type Socket } from 'node:net';
import { createHash, timingSafeEqual } from 'node:crypto';
import { COMMAND_TYPES, type CommandType } from '../engine/index.js';
import { EngineStoppedError, type EngineHost, type Submission } from '../host/engineHost.js';
import { commandRecordOf, type LogRecord } from '../log/eventLog.js';
import { listenTcp } from '../api/http/listenTcp.js';
import { LineSplitter, lineOf, type EngineMessage, type NodeMessage } from './commandWire.js';

export interface CommandServerOptions {
  readonly host: EngineHost;
  readonly listenHost: string;
  readonly port: number;
  /** When set, a node must present it in its hello. */
  readonly token: string | undefined;
  readonly onConnection?: (node: string, remote: string) => void;
  readonly onDisconnection?: (node: string, remote: string) => void;
  /** A node sent something that is not the protocol (logged; the connection is closed). */
  readonly onProtocolError?: (remote: string, message: string) => void;
}

export interface CommandServer {
  readonly port: number;
  /** Sends a durable batch's records to every node welcomed (the engine host's onDurable). */
  publish(records: readonly LogRecord[]): void;
  /** Nodes connected now. */
  readonly connections: number;
  /** Commands received over the port since start. */
  readonly commands: number;
  close(): Promise<void>;
}

/** Bytes queued for one node beyond which it is disconnected (it reconnects and reads the gap from Kafka). */
const MAX_BACKLOG_BYTES = 64 * 1024 * 1024;

const KNOWN_TYPES: ReadonlySet<string> = new Set<CommandType>(COMMAND_TYPES);

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

export async function startCommandServer(options: CommandServerOptions): Promise<CommandServer> {
  const sockets = new Set<Socket>();
  /** Sockets of welcomed nodes, which receive the durable records. */
  const followers = new Set<Socket>();
  let commands = 0;
  const expected = options.token === undefined ? undefined : digest(options.token);

  const serve = (socket: Socket): void => {
    sockets.add(socket);
    socket.setNoDelay(true);
    const remote = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    const splitter = new LineSplitter();
    let node: string | undefined;
    let corked = false;
    const send = (message: EngineMessage): void => {
      if (socket.destroyed) return;
      // The answers of one batch are released together: one write for all of them.
      if (!corked) {
        corked = true;
        socket.cork();
        process.nextTick(() => {
          corked = false;
          socket.uncork();
        });
      }
      socket.write(lineOf(message));
    };
    const protocolError = (message: string): void => {
      options.onProtocolError?.(remote, message);
      socket.destroy();
    };
    const handle = (message: NodeMessage): void => {
      if (node === undefined) {
        if (message.type !== 'hello' || typeof message.node !== 'string' || message.node === '') return protocolError('the first message must be a hello naming the node');
        if (expected !== undefined && (typeof message.token !== 'string' || !timingSafeEqual(digest(message.token), expected))) {
          send({ type: 'refused', reason: 'wrong or missing engine token' });
          socket.end();
          options.onProtocolError?.(remote, `node ${message.node}: wrong or missing engine token`);
          return;
        }
        node = message.node;
        // Every batch made durable after this position is sent to the node from now on (publish()).
        send({ type: 'welcome', pos: options.host.position });
        followers.add(socket);
        options.onConnection?.(node, remote);
        return;
      }
      if (message.type !== 'command' || !Number.isSafeInteger(message.id)) return protocolError(`expected a command, got ${JSON.stringify(message.type)}`);
      const { id, submission } = message;
      commands++;
      if (typeof submission !== 'object' || submission === null || !KNOWN_TYPES.has((submission as { type?: unknown }).type as string)) {
        send({ type: 'failed', id, error: 'bad_command', message: 'not a command the engine knows' });
        return;
      }
      options.host.apply(submission as Submission).then(
        (applied) => send({ type: 'applied', id, pos: applied.pos, events: applied.events }),
        (error: unknown) =>
          send({ type: 'failed', id, error: error instanceof EngineStoppedError ? 'engine_stopped' : 'bad_command', message: error instanceof Error ? error.message : String(error) }),
      );
    };
    socket.on('data', (chunk: Buffer) => {
      let lines: string[];
      try {
        lines = splitter.push(chunk);
      } catch (error) {
        return protocolError((error as Error).message);
      }
      for (const line of lines) {
        if (socket.destroyed) return;
        let message: NodeMessage;
        try {
          message = JSON.parse(line) as NodeMessage;
        } catch {
          return protocolError('a line that is not JSON');
        }
        if (typeof message !== 'object' || message === null) return protocolError('a line that is not a message');
        handle(message);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      followers.delete(socket);
      if (node !== undefined) options.onDisconnection?.(node, remote);
    });
  };

  const server: Server = createServer(serve);
  const port = await listenTcp(server, options.port, options.listenHost);
  return {
    port,
    publish(records) {
      if (followers.size === 0 || records.length === 0) return;
      // Serialised once for every node.
      const line = lineOf({ type: 'records', records: records.map(commandRecordOf) });
      for (const socket of followers) {
        if (socket.writableLength > MAX_BACKLOG_BYTES) {
          options.onProtocolError?.(`${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`, `a node read ${socket.writableLength} bytes too slowly: disconnected (it reads the gap from Kafka)`);
          socket.destroy();
          continue;
        }
        socket.write(line);
      }
    },
    get connections() {
      return sockets.size;
    },
    get commands() {
      return commands;
    },
    // Stops taking connections and commands, lets the engine answer every command already taken (they are
    // durable by then), and only then closes the connections.
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.pause();
      await options.host.idle();
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (const s of sockets) s.end();
      const forced = setTimeout(() => {
        for (const s of sockets) s.destroy();
      }, 1000);
      await closed;
      clearTimeout(forced);
    },
  };
}
