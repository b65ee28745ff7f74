// The in-memory read model as a consumer of the event log: it follows the durable records as the projector
// does, handed over in memory by the engine host (offer(), from onDurable) and read from the log for
// whatever was not handed over (before start-up finished, after a gap; projections/logTail.ts). It never learns anything from the
// request path, so an API process that only follows the log builds the same state.
//
// Read-your-writes: the engine host hands each durable batch over before any reply's continuation runs
// (host/engineHost.ts), and offer() applies it at once, so a read that follows an acknowledged write finds
// it; waitFor(pos) covers the moments when the model is still catching up from the log.
//
// Start-up: restored from the stored projections as of the projector's committed position (liveRestore.ts),
// then the log from there on: normally a few batches, at most what the projector had not yet written. A
// process without its own projector restores from its own snapshot of the model instead (liveSnapshot.ts).

import type { ClickHouseClient } from '@clickhouse/client';
import type { EventLog, EventsRecord } from '../../log/eventLog.js';
import { LogTail } from '../logTail.js';
import { LiveState, type LiveStateOptions } from './liveState.js';
import { restoreLive } from './liveRestore.js';
import { restoreSnapshot, type LiveSnapshot } from './liveSnapshot.js';

export class LiveReadModel {
  readonly state: LiveState;
  private readonly tail: LogTail;

  constructor(
    log: EventLog,
    options: LiveStateOptions & {
      /** Called once if the model stops (a record failed to apply or the log could not be read); reads then go to ClickHouse. */
      readonly onFailure?: (error: unknown) => void;
    },
  ) {
    this.state = new LiveState(options);
    this.tail = new LogTail(log, () => this.state, 'the in-memory read model', options.onFailure);
  }

  /** Last log position applied. */
  get position(): number {
    return this.state.pos;
  }

  /** Serving: started, and no record failed to apply (then reads go to ClickHouse instead). */
  get ready(): boolean {
    return this.tail.ready;
  }

  /** Restores the state as of `at` (the projector's committed position, before its run() starts) and follows the log to its end. */
  async start(ch: ClickHouseClient, db: string, at: number): Promise<void> {
    await restoreLive(ch, db, at, this.state);
    await this.tail.start();
  }

  /**
   * Restores the state from a snapshot of the model (liveSnapshot.ts), or starts empty without one, and
   * follows the log to its end: how a process without its own projector starts.
   */
  async startFrom(snapshot: LiveSnapshot | undefined): Promise<void> {
    if (snapshot !== undefined) restoreSnapshot(snapshot, this.state);
    await this.tail.start();
  }

  /** Records made durable, in position order (the engine host's onDurable). Never throws. */
  offer(records: readonly EventsRecord[]): void {
    this.tail.offer(records);
  }

  /** Resolves once position `pos` is applied (at once when the model stopped); rejects after `timeoutMs`. */
  waitFor(pos: number, timeoutMs = 5_000): Promise<void> {
    return this.tail.waitFor(pos, timeoutMs);
  }
}
