// How a state kept in memory follows the durable records (the in-memory read model, projections/live/, and the
// notifications, projections/notifications/): offer() takes each durable batch, handed over by the durable
// follower (log/durableFollower.ts) before the batch's replies are released, and the log is read for whatever
// was not offered (before start-up finished, after a gap). Records arrive in position order; a record at or
// before the state's position is skipped, one past the next position holds the batch and reads the gap from
// the log.
//
// Deferred application (options.defer, by default DEFAULT_DEFERRAL): offered batches wait and are applied together, up to `ms` after the
// first of them or once `records` wait, and at once whenever the owner looks at its state (flush(): the owner
// calls it in every accessor of its state, position and readiness, and waitFor() calls it). Nothing can observe
// the state between two offers without applying what waits, so every read answers as if each batch had been
// applied when offered (read-your-writes included); what changes is that a steady trickle of small batches
// is applied in runs, as at saturation, and not interleaved with the request thread's other work.
//
// A record that fails to apply, or a log that cannot be read, stops the tail for good: waiters are released,
// `failure` is set, and the owner's reads go elsewhere (or answer 503) rather than serve a state that no longer
// follows the log.

import { hasEncodedReads, type EventLog, type EventsRecord } from '../log/eventLog.js';
import { decodeEvents } from '../log/recordCodec.js';

/** Most offered records held while the tail catches up from the log; beyond it they are read back from the log. */
const MAX_HELD = 50_000;

/** What a tail applies records to: its last position and the application of the next record. */
export interface FollowingState {
  readonly pos: number;
  apply(record: EventsRecord): void;
}

/** Deferred application: offered batches wait up to `ms`, or until `records` wait, unless the state is read first. */
export interface Deferral {
  readonly ms: number;
  readonly records: number;
}

/** The deferral of a tail whose options name none. */
export const DEFAULT_DEFERRAL: Deferral = { ms: 100, records: 1_000 };

export interface LogTailOptions {
  /** Called once if the tail stops. */
  readonly onFailure?: (error: unknown) => void;
  /**
   * Called after offered records were applied (at once or deferred): once per run, after its last batch, so the
   * state's position is then the last offered one. An owner that takes a snapshot here from a copy fed the same
   * batches (projections/notifications) finds the copy at that position; after each batch of a run it would find
   * the copy ahead of it (the copy is fed as each batch becomes durable, not when the run is applied).
   */
  readonly onApplied?: () => void;
  /** Apply offered batches in runs (see above; default DEFAULT_DEFERRAL); `false`: each batch when offered. */
  readonly defer?: Deferral | false;
}

export class LogTail {
  private started = false;
  private catching: Promise<void> | undefined;
  /** Offered records not applied yet (consecutive positions). */
  private held: EventsRecord[] = [];
  private failed: unknown = undefined;
  private waiters: { pos: number; resolve: () => void }[] = [];
  /** Offered batches waiting to be applied (deferred application), in position order. */
  private pending: (readonly EventsRecord[])[] = [];
  private pendingRecords = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Time spent applying deferred batches, after offer() returned (ms). */
  private laterMs = 0;
  private readonly defer: Deferral | undefined;

  constructor(
    private readonly log: EventLog,
    /** The state records go to (a getter: its owner may replace it before start, from a snapshot). */
    private readonly state: () => FollowingState,
    /** What the tail feeds, for messages ("the in-memory read model"). */
    private readonly what: string,
    private readonly options: LogTailOptions = {},
  ) {
    this.defer = options.defer === false ? undefined : (options.defer ?? DEFAULT_DEFERRAL);
  }

  /** Started, and no record failed to apply. */
  get ready(): boolean {
    return this.started && this.failed === undefined;
  }

  /** Why the tail stopped; undefined while it follows. */
  get failure(): unknown {
    return this.failed;
  }

  /** Follows the log to its end from the state's position; then offered records apply at once. Throws if that failed. */
  async start(): Promise<void> {
    await this.catchUp();
    if (this.failed !== undefined) throw new Error(`${this.what} could not follow the log`, { cause: this.failed });
    this.started = true;
  }

  /** Time spent applying deferred batches after they were offered (seconds): the rest of the tail's cost. */
  get deferredSeconds(): number {
    return this.laterMs / 1000;
  }

  /** Records made durable, in position order. Never throws; true when every record offered is applied. */
  offer(records: readonly EventsRecord[]): boolean {
    if (this.failed !== undefined || records.length === 0) return false;
    if (this.catching !== undefined || !this.started) {
      this.hold(records);
      return false;
    }
    const defer = this.defer;
    if (defer === undefined || this.waiters.length > 0) {
      if (!this.drain(false)) {
        if (this.failed === undefined) this.hold(records);
        return false;
      }
      const applied = this.apply(records);
      if (applied) this.options.onApplied?.();
      return applied;
    }
    this.pending.push(records);
    this.pendingRecords += records.length;
    if (this.pendingRecords >= defer.records) return this.drain();
    this.timer ??= setTimeout(() => this.flush(), defer.ms).unref();
    return false;
  }

  /**
   * Applies the offered batches that wait (deferred application), counting the time as applied later
   * (deferredSeconds). Never throws; true when none is left waiting.
   */
  flush(): boolean {
    if (this.pending.length === 0) return true;
    const started = performance.now();
    const drained = this.drain();
    this.laterMs += performance.now() - started;
    return drained;
  }

  /**
   * flush() without counting the time: within offer(), whose time its caller counts. Calls onApplied once at the
   * end when `notify` and every batch was applied (offer() passes false when it applies its own batch next).
   */
  private drain(notify = true): boolean {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.pending.length === 0) return true;
    const batches = this.pending;
    this.pending = [];
    this.pendingRecords = 0;
    let applied = true;
    for (let i = 0; i < batches.length; i++) {
      const batch = batches[i] as readonly EventsRecord[];
      if (!applied) {
        // After a gap the rest are held for the catch-up; after a failure they are dropped with the tail.
        if (this.failed === undefined) this.hold(batch);
        continue;
      }
      applied = this.apply(batch);
    }
    if (notify && applied) this.options.onApplied?.();
    return applied;
  }

  /** One offered batch, applied now (or held, past a gap); its caller calls onApplied once its run is applied. */
  private apply(records: readonly EventsRecord[]): boolean {
    const state = this.state();
    for (let i = 0; i < records.length; i++) {
      const r = records[i] as EventsRecord;
      if (r.pos <= state.pos) continue;
      if (r.pos !== state.pos + 1) {
        this.hold(records.slice(i));
        void this.catchUp();
        return false;
      }
      if (!this.applyOne(r)) return false;
    }
    this.settle();
    return true;
  }

  /**
   * Resolves once position `pos` is applied, or at once when the tail stopped (the owner checks `failure`);
   * rejects after `timeoutMs`.
   */
  waitFor(pos: number, timeoutMs = 5_000): Promise<void> {
    this.flush();
    if (this.failed !== undefined || this.state().pos >= pos) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`${this.what} did not reach position ${pos} within ${timeoutMs} ms (at ${this.state().pos})`));
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
      this.state().apply(record);
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  private fail(error: unknown): void {
    if (this.failed === undefined) this.options.onFailure?.(error);
    this.failed ??= error;
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  private settle(): void {
    if (this.waiters.length === 0) return;
    const pos = this.state().pos;
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
          for await (const record of this.readFrom(this.state().pos + 1)) if (!this.applyOne(record)) return;
          const held = this.held;
          this.held = [];
          let gap = false;
          for (const r of held) {
            if (r.pos <= this.state().pos) continue;
            if (r.pos !== this.state().pos + 1) {
              gap = true;
              break;
            }
            if (!this.applyOne(r)) return;
          }
          this.settle();
          if (!gap && this.state().pos >= this.log.lastPos) return;
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
