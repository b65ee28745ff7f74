// The CommandGateway of an API node: reads come from the replica that follows the log (logFollower.ts);
// commands go to the engine role (engineClient.ts). A command's answer is released only once the replica
// holds its record, so the reply and every read after it on this node agree (read-your-writes).

import type { Engine, EngineEvent } from '../engine/index.js';
import type { CommandGateway } from '../host/commandGateway.js';
import type { Submission } from '../host/engineHost.js';
import { EngineUnavailableError, type EngineClient } from './engineClient.js';
import type { LogFollower } from './logFollower.js';

/** Longest an answered command waits for this node's replica to hold it. */
const REPLICA_WAIT_MS = 10_000;

export class RemoteEngine implements CommandGateway {
  /** Highest log position the engine is known to have made durable (from its welcome and its answers). */
  private knownEnd = 0;

  constructor(
    private readonly client: EngineClient,
    private readonly follower: LogFollower,
  ) {}

  get engine(): Engine {
    return this.follower.engine;
  }

  get position(): number {
    return this.follower.position;
  }

  get pending(): number {
    return this.client.pending;
  }

  /** The replica applies only records the log holds: its state is always a durable one. */
  get atDurableState(): boolean {
    return true;
  }

  whenDurable(task: () => void): void {
    task();
  }

  /** Records the engine has made durable that the replica does not hold yet (a lower bound). */
  get lag(): number {
    return Math.max(0, this.knownEnd - this.follower.position);
  }

  /** The engine said its log ends at `pos` (its welcome). */
  engineAt(pos: number): void {
    this.knownEnd = Math.max(this.knownEnd, pos);
  }

  async submit(submission: Submission): Promise<EngineEvent[]> {
    const applied = await this.client.submit(submission);
    this.engineAt(applied.pos);
    try {
      await this.follower.waitFor(applied.pos, REPLICA_WAIT_MS);
    } catch (error) {
      // Durable, but this node cannot show it: saying "done" now would contradict the node's own reads.
      throw new EngineUnavailableError(`the command was applied at log position ${applied.pos}, but this node cannot show it yet: ${(error as Error).message}`);
    }
    return applied.events;
  }
}
