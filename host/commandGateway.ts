// What the request path needs of the engine, whichever process runs it: the engine state to read, the log
// position that state is at, and a way to submit commands. Two implementations:
// - EngineHost (engineHost.ts): the engine in this process (roles `all` and `engine`);
// - RemoteEngine (cluster/remoteEngine.ts): an API node's replica that follows the log, with commands sent to
//   the engine role.
//
// Contract, the same for both: submit() resolves only once the command's record is durable in the log AND
// `engine` holds it (position ≥ that record's position), so a reply and every read after it agree.

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
  /** Moves commands along between requests (EngineHost.poll); optional, cheap, callable at any time. */
  poll?(): void;
}
