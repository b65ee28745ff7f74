// The in-memory read model as a consumer of the event log: it follows the durable records as the projector
// does, handed over in memory by the engine host (offer(), from onDurable) and read from the log for
// whatever was not handed over (before start-up finished, after a gap; projections/logTail.ts). It never learns anything from the
// request path, so an API process that only follows the log builds the same state.
//
// Read-your-writes: the engine host hands each durable batch over before any reply's continuation runs
// (host/engineHost.ts), and offer() takes it; every accessor of the state applies what was offered first
// (batches are applied in runs, projections/logTail.ts), so a read that follows an acknowledged write finds
// it; waitFor(pos) covers the moments when the model is still catching up from the log.
//
// Start-up: restored from the stored projections as of the projector's committed position (liveRestore.ts),
// then the log from there on: normally a few batches, at most what the projector had not yet written. A
// process without its own projector restores from its own snapshot of the model instead (liveSnapshot.ts).

import type { ClickHouseClient } from '@clickhouse/client';
import type { EventLog, EventsRecord } from '../../log/eventLog.js';
import { LogTail, type Deferral } from '../logTail.js';
import { LiveState, type LiveStateOptions } from './liveState.js';
import { restoreLive } from './liveRestore.js';
import { restoreSnapshot, type LiveSnapshot } from './liveSnapshot.js';

export class LiveReadModel {
  private readonly current: LiveState;
  private readonly tail: LogTail;

  constructor(
    log: EventLog,
    options: LiveStateOptions & {
      /** Called once if the model stops (a record failed to apply or the log could not be read); reads then go to ClickHouse. */
      readonly onFailure?: (error: unknown) => void;
      /** Apply offered batches in runs (logTail.ts, default DEFAULT_DEFERRAL); `false`: each one when offered. */
      readonly defer?: Deferral | false;
    },
  ) {
    this.current = new LiveState(options);
    this.tail = new LogTail(log, () => this.current, 'the in-memory read model', { onFailure: options.onFailure, defer: options.defer });
  }

  /** The state, with every batch offered so far applied. */
  get state(): LiveState {
    this.tail.flush();
    return this.current;
  }

  /** Last log position applied (every batch offered so far applied first). */
  get position(): number {
    this.tail.flush();
    return this.current.pos;
  }

  /** Serving: started, and no record failed to apply (then reads go to ClickHouse instead). */
  get ready(): boolean {
    this.tail.flush();
    return this.tail.ready;
  }

  /**
   * An order as the WebSocket publisher takes it when its owner connects (api/ws/streamPublisher.ts knownOrder):
   * its creation time, and its trades only while the model still follows the log (a creation time never
   * changes; trades after a failure would be stale). Undefined when the model does not hold the order.
   */
  knownOrder(orderId: string): { readonly createdAt: number; readonly trades?: readonly string[] } | undefined {
    const o = this.state.order(orderId);
    return o === undefined || this.ready ? o : { createdAt: o.createdAt };
  }

  /** Time spent applying offered batches after offer() returned (seconds). */
  get deferredSeconds(): number {
    return this.tail.deferredSeconds;
  }

  /** Restores the state as of `at` (the projector's committed position, before its run() starts) and follows the log to its end. */
  async start(ch: ClickHouseClient, db: string, at: number): Promise<void> {
    await restoreLive(ch, db, at, this.current);
    await this.tail.start();
  }

  /**
   * Restores the state from a snapshot of the model (liveSnapshot.ts), or starts empty without one, and
   * follows the log to its end: how a process without its own projector starts.
   */
  async startFrom(snapshot: LiveSnapshot | undefined): Promise<void> {
    if (snapshot !== undefined) restoreSnapshot(snapshot, this.current);
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
