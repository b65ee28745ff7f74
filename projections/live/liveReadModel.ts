// The in-memory read model as a consumer of the event log: it follows the durable records as the projector
// does, handed over in memory by the engine host (offer(), from onDurable) and read from the log for
// whatever was not handed over (before start-up finished, after a gap). It never learns anything from the
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
import { hasEncodedReads, type EventLog, type EventsRecord } from '../../log/eventLog.js';
import { decodeEvents } from '../../log/recordCodec.js';
import { LiveState, type LiveStateOptions } from './liveState.js';
import { restoreLive } from './liveRestore.js';
import { restoreSnapshot, type LiveSnapshot } from './liveSnapshot.js';

/** Most offered records held while the model catches up from the log; beyond it they are read back from the log. */
const MAX_HELD = 50_000;

export class LiveReadModel {
  readonly state: LiveState;
  private started = false;
  private catching: Promise<void> | undefined;
  /** Offered records not applied yet (consecutive positions). */
  private held: EventsRecord[] = [];
  private failure: unknown = undefined;
  private waiters: { pos: number; resolve: () => void }[] = [];

  constructor(
    private readonly log: EventLog,
    options: LiveStateOptions & {
      /** Called once if the model stops (a record failed to apply or the log could not be read); reads then go to ClickHouse. */
      readonly onFailure?: (error: unknown) => void;
    },
  ) {
    this.state = new LiveState(options);
    this.onFailure = options.onFailure;
  }

  private readonly onFailure: ((error: unknown) => void) | undefined;

  /** Last log position applied. */
  get position(): number {
    return this.state.pos;
  }

  /** Serving: started, and no record failed to apply (then reads go to ClickHouse instead). */
  get ready(): boolean {
    return this.started && this.failure === undefined;
  }

  /** Restores the state as of `at` (the projector's committed position, before its run() starts) and follows the log to its end. */
  async start(ch: ClickHouseClient, db: string, at: number): Promise<void> {
    await restoreLive(ch, db, at, this.state);
    await this.follow();
  }

  /**
   * Restores the state from a snapshot of the model (liveSnapshot.ts), or starts empty without one, and
   * follows the log to its end: how a process without its own projector starts.
   */
  async startFrom(snapshot: LiveSnapshot | undefined): Promise<void> {
    if (snapshot !== undefined) restoreSnapshot(snapshot, this.state);
    await this.follow();
  }

  private async follow(): Promise<void> {
    await this.catchUp();
    if (this.failure !== undefined) throw new Error('the in-memory read model could not follow the log', { cause: this.failure });
    this.started = true;
  }

  /** Records made durable, in position order (the engine host's onDurable). Never throws. */
  offer(records: readonly EventsRecord[]): void {
    if (this.failure !== undefined || records.length === 0) return;
    if (this.catching !== undefined || !this.started) {
      this.hold(records);
      return;
    }
    for (let i = 0; i < records.length; i++) {
      const r = records[i] as EventsRecord;
      if (r.pos <= this.state.pos) continue;
      if (r.pos !== this.state.pos + 1) {
        this.hold(records.slice(i));
        void this.catchUp();
        return;
      }
      if (!this.applyOne(r)) return;
    }
    this.settle();
  }

  /** Resolves once position `pos` is applied; rejects after `timeoutMs`, or at once when the model failed. */
  waitFor(pos: number, timeoutMs = 5_000): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(new Error('the in-memory read model stopped', { cause: this.failure }));
    if (this.state.pos >= pos) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`the in-memory read model did not reach position ${pos} within ${timeoutMs} ms (at ${this.state.pos})`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push({ pos, resolve: done });
    });
  }

  private hold(records: readonly EventsRecord[]): void {
    const last = this.held[this.held.length - 1];
    const first = records[0] as EventsRecord;
    if (last !== undefined && first.pos !== last.pos + 1) this.held = [];
    for (const r of records) this.held.push(r);
    if (this.held.length > MAX_HELD) this.held = [];
  }

  private applyOne(record: EventsRecord): boolean {
    try {
      this.state.apply(record);
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  /** Stops the model for good (its state no longer follows the log); waiters are released and reads go elsewhere. */
  private fail(error: unknown): void {
    if (this.failure === undefined) this.onFailure?.(error);
    this.failure ??= error;
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  private settle(): void {
    if (this.waiters.length === 0) return;
    const pos = this.state.pos;
    const due = this.waiters.filter((w) => w.pos <= pos);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.pos > pos);
    for (const w of due) w.resolve();
  }

  /** Reads the log from the next position to its end, then applies what was offered meanwhile; again while a gap remains. */
  private catchUp(): Promise<void> {
    this.catching ??= (async () => {
      try {
        for (;;) {
          for await (const record of this.readFrom(this.state.pos + 1)) if (!this.applyOne(record)) return;
          const held = this.held;
          this.held = [];
          let gap = false;
          for (const r of held) {
            if (r.pos <= this.state.pos) continue;
            if (r.pos !== this.state.pos + 1) {
              gap = true;
              break;
            }
            if (!this.applyOne(r)) return;
          }
          this.settle();
          if (!gap && this.state.pos >= this.log.lastPos) return;
        }
      } catch (error) {
        this.fail(error);
      } finally {
        this.catching = undefined;
        this.settle();
      }
    })();
    return this.catching;
  }

  private async *readFrom(from: number): AsyncGenerator<EventsRecord> {
    if (hasEncodedReads(this.log)) {
      for await (const { bytes } of this.log.readEncoded(from)) yield decodeEvents(bytes);
      return;
    }
    for await (const record of this.log.read(from)) yield record;
  }
}
