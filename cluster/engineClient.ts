// An API node's connection to the engine role (commandWire.ts). It connects, and reconnects with backoff
// whenever the connection drops, for as long as the node runs.
//
// Contract:
// - submit() resolves with the command's log position and events only when the engine answered `applied`,
//   which it does once the record is durable.
// - A command still unanswered when the connection drops may or may not have been applied: submit() rejects
//   with EngineUnavailableError saying so, never with a success. Resubmitting is safe (a placed order's id is
//   its hash and a second one is refused as a duplicate; cancels are idempotent; a signed split, merge or
//   redeem is applied at most once).
// - While no connection is up, submit() waits for one up to `waitMs`, then rejects with EngineUnavailableError.

import { connect, type Socket } from 'node:net';
import type { EngineEvent } from '../engine/index.js';
import { EngineStoppedError, type Applied, type Submission } from '../host/engineHost.js';
import { LineSplitter, lineOf, type EngineMessage } from './commandWire.js';
import type { CommandRecord } from '../log/eventLog.js';

/** The engine cannot be reached, or the outcome of a command is not known; the request may be retried. */
export class EngineUnavailableError extends Error {
  override readonly name = 'EngineUnavailableError';
  readonly retriable = true;
}

export interface EngineClientOptions {
  /** host:port of the engine role's command port. */
  readonly address: string;
  readonly token: string | undefined;
  /** This node's name, as the engine logs it. */
  readonly node: string;
  /** Longest a command waits for a connection (default 5 s). */
  readonly waitMs?: number;
  readonly onConnected?: (enginePos: number) => void;
  readonly onDisconnected?: (reason: string) => void;
  /** A durable batch's records, as the engine sends them after its welcome (in log order). */
  readonly onRecords?: (records: readonly CommandRecord[]) => void;
}

interface InFlight {
  readonly resolve: (applied: Applied) => void;
  readonly reject: (error: Error) => void;
}

export class EngineClient {
  private socket: Socket | undefined;
  private live = false;
  private closed = false;
  private nextId = 1;
  private readonly inFlight = new Map<number, InFlight>();
  private waiting: (() => void)[] = [];
  private backoffMs = 50;
  private lastProblem = 'not connected yet';
  private readonly host: string;
  private readonly port: number;
  private corked = false;

  constructor(private readonly options: EngineClientOptions) {
    const colon = options.address.lastIndexOf(':');
    this.host = options.address.slice(0, colon).replace(/^\[|\]$/g, '');
    this.port = Number(options.address.slice(colon + 1));
  }

  /** Connected and welcomed by the engine. */
  get connected(): boolean {
    return this.live;
  }

  get pending(): number {
    return this.inFlight.size;
  }

  /** Why the client is not connected (for /ready and logs). */
  get problem(): string {
    return this.lastProblem;
  }

  /** Starts connecting; resolves at the first welcome, or rejects after `timeoutMs` with the last problem. */
  async start(timeoutMs: number): Promise<void> {
    this.dial();
    if (!(await this.connectedWithin(timeoutMs))) throw new EngineUnavailableError(`could not reach the engine at ${this.options.address} within ${timeoutMs} ms: ${this.lastProblem}`);
  }

  async submit(submission: Submission): Promise<Applied> {
    if (!this.live && !(await this.connectedWithin(this.options.waitMs ?? 5_000))) {
      throw new EngineUnavailableError(`the engine at ${this.options.address} is not reachable (${this.lastProblem}); retry later`);
    }
    const socket = this.socket as Socket;
    const id = this.nextId++;
    return new Promise<Applied>((resolve, reject) => {
      this.inFlight.set(id, { resolve, reject });
      if (!this.corked) {
        this.corked = true;
        socket.cork();
        process.nextTick(() => {
          this.corked = false;
          socket.uncork();
        });
      }
      socket.write(lineOf({ type: 'command', id, submission }));
    });
  }

  close(): void {
    this.closed = true;
    this.socket?.destroy();
    this.dropped('the node is shutting down');
  }

  private connectedWithin(ms: number): Promise<boolean> {
    if (this.live) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        resolve(this.live);
      };
      const timer = setTimeout(() => {
        this.waiting = this.waiting.filter((w) => w !== done);
        resolve(false);
      }, ms);
      this.waiting.push(done);
    });
  }

  private dial(): void {
    if (this.closed) return;
    const socket = connect({ host: this.host, port: this.port });
    this.socket = socket;
    socket.setNoDelay(true);
    const splitter = new LineSplitter();
    socket.on('connect', () => socket.write(lineOf({ type: 'hello', node: this.options.node, ...(this.options.token === undefined ? {} : { token: this.options.token }) })));
    socket.on('data', (chunk: Buffer) => {
      let lines: string[];
      try {
        lines = splitter.push(chunk);
      } catch (error) {
        this.lastProblem = (error as Error).message;
        socket.destroy();
        return;
      }
      for (const line of lines) {
        let message: EngineMessage;
        try {
          message = JSON.parse(line) as EngineMessage;
        } catch {
          this.lastProblem = 'the engine sent a line that is not JSON';
          socket.destroy();
          return;
        }
        this.receive(socket, message);
      }
    });
    socket.on('error', (error) => {
      this.lastProblem = error.message;
    });
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      const was = this.live;
      this.live = false;
      this.dropped(this.lastProblem);
      if (was) this.options.onDisconnected?.(this.lastProblem);
      if (this.closed) return;
      setTimeout(() => this.dial(), this.backoffMs).unref();
      this.backoffMs = Math.min(this.backoffMs * 2, 1_000);
    });
  }

  private receive(socket: Socket, message: EngineMessage): void {
    switch (message.type) {
      case 'welcome': {
        this.live = true;
        this.backoffMs = 50;
        this.lastProblem = '';
        this.options.onConnected?.(message.pos);
        const waiting = this.waiting;
        this.waiting = [];
        for (const w of waiting) w();
        return;
      }
      case 'records':
        this.options.onRecords?.(message.records);
        return;
      case 'refused':
        this.lastProblem = `the engine refused this node: ${message.reason}`;
        socket.destroy();
        return;
      case 'applied': {
        const f = this.inFlight.get(message.id);
        this.inFlight.delete(message.id);
        f?.resolve({ pos: message.pos, events: message.events as EngineEvent[] });
        return;
      }
      case 'failed': {
        const f = this.inFlight.get(message.id);
        this.inFlight.delete(message.id);
        f?.reject(message.error === 'engine_stopped' ? new EngineStoppedError(message.message) : new Error(`the engine refused the command: ${message.message}`));
        return;
      }
    }
  }

  /** Every command in flight on a connection that is gone: its outcome is not known. */
  private dropped(reason: string): void {
    if (this.inFlight.size === 0) return;
    const lost = [...this.inFlight.values()];
    this.inFlight.clear();
    const error = new EngineUnavailableError(
      `the connection to the engine was lost (${reason}) before the command's outcome was known: it may or may not have been applied; resubmitting it is safe`,
    );
    for (const f of lost) f.reject(error);
  }
}
