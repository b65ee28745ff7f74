// What the request path needs of the engine, whichever process runs it: the engine state to read, the log
// position that state is at, and a way to submit commands. Two implementations:
// - EngineHost (engineHost.ts): the engine in this process (roles `all` and `engine`);
// - RemoteEngine (cluster/remoteEngine.ts): an API node's replica that follows the log, with commands sent to
//   the engine role.
//
// Contract, the same for both: submit() resolves only once the command's record is durable in the log AND
// `engine` holds it (position ≥ that record's position), so a reply and every read after it agree. What is
// shown from `engine` (a book, a price, a balance) is read at a durable state (whenDurable): never while it
// holds a batch that is still being appended, which a crash could take back (reliability.md, promise 6).

import type { Engine, EngineEvent } from '../engine/index.js';
import type { Submission } from './engineHost.js';

export interface CommandGateway {
  /** The engine state reads are served from (read only; in an API node, a replica following the log). */
  readonly engine: Engine;
  /** Last log position `engine` holds: every command this process acknowledged is at or below it. */
  readonly position: number;
  /** Commands submitted and not answered yet. */
  readonly pending: number;
  /** Applies a command; resolves with its events once they are durable and `engine` holds them. */
  submit(submission: Submission): Promise<EngineEvent[]>;
  /**
   * Whether `engine` holds nothing that is not durable yet. EngineHost: false while a batch applied to it is
   * being appended, and for good once the engine has stopped with such a batch; RemoteEngine: always true (its
   * replica applies only what the log holds).
   */
  readonly atDurableState: boolean;
  /**
   * Runs `task` now when `engine` is at a durable state, else right after the batch being appended is durable
   * and its consumers have had it, before the next batch is applied; calls `failed` instead when the engine
   * stops first (its error is an EngineStoppedError).
   */
  whenDurable(task: () => void, failed: (error: Error) => void): void;
  /** Moves commands along between requests (EngineHost.poll); optional, cheap, callable at any time. */
  poll?(): void;
}

/**
 * Resolves once `gateway.engine` is at a durable state (at once when it already is); rejects with the
 * EngineStoppedError if the engine stops first. Code that reads what it shows right after it, with no await
 * in between, reads a durable state: a next batch is applied only in a later task.
 */
export function durableState(gateway: Pick<CommandGateway, 'whenDurable'>): Promise<void> {
  return new Promise<void>((resolve, reject) => gateway.whenDurable(resolve, reject));
}
