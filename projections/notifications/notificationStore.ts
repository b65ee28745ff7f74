// The notifications as a consumer of the durable records (log/durableFollower.ts), like the in-memory read
// model: offer() applies each durable batch at once (on the follower's thread, before the batch's replies
// are released, so a read after an acknowledged write sees it), and the log is read for whatever was not
// offered (before start() finished, after a gap). It learns nothing from the request path, so an API node that
// only follows the log builds the same notifications as the engine's process.
//
// Start-up: the newest snapshot of its own (notificationSnapshots.ts; none: an empty state at position 0),
// then the log from there to its end, then what was offered meanwhile. A snapshot is written every
// `snapshotEvery` records applied and at close(), serialised on this thread (the state is bounded:
// notificationState.ts) and written to disk off it. A record that fails to apply stops the store for good:
// its reads answer 503 rather than a state that no longer follows the log.

import { hasEncodedReads, type EventLog, type EventsRecord } from '../../log/eventLog.js';
import { decodeEvents } from '../../log/recordCodec.js';
import { NotificationState, type NotificationStateOptions } from './notificationState.js';
import { restoreSnapshot, snapshotBytes, type NotificationSnapshots } from './notificationSnapshots.js';

/** Most offered records held while the store catches up from the log; beyond it they are read back from the log. */
const MAX_HELD = 50_000;
/** Default records applied between two snapshots. */
export const DEFAULT_SNAPSHOT_EVERY = 100_000;

export interface NotificationStoreOptions extends NotificationStateOptions {
  /** Where its snapshots go; none: every start reads the whole log. */
  readonly snapshots?: NotificationSnapshots;
  readonly snapshotEvery?: number;
  /** A snapshot that could not be written or read (the store goes on). */
  readonly onSnapshotError?: (error: unknown) => void;
  /** Called once if the store stops (a record failed to apply or the log could not be read). */
  readonly onFailure?: (error: unknown) => void;
}

export class NotificationStore {
  private current: NotificationState;
  private started = false;
  private catching: Promise<void> | undefined;
  private held: EventsRecord[] = [];
  private failure: unknown = undefined;
  private waiters: { pos: number; resolve: () => void }[] = [];
  private snapshotPos = 0;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly log: EventLog,
    private readonly options: NotificationStoreOptions = {},
  ) {
    this.current = new NotificationState(options);
  }

  get state(): NotificationState {
    return this.current;
  }

  /** Last log position applied. */
  get position(): number {
    return this.current.pos;
  }

  /** Started, and no record failed to apply. */
  get ready(): boolean {
    return this.started && this.failure === undefined;
  }

  /** Restores the newest snapshot (if any) and follows the log to its end; resolves with where it started from. */
  async start(): Promise<{ snapshotPos: number; skipped: string[] }> {
    const found = (await this.options.snapshots?.latest(this.log.lastPos)) ?? { snapshot: undefined, skipped: [] };
    if (found.snapshot !== undefined) {
      this.current = restoreSnapshot(found.snapshot, this.options);
      this.snapshotPos = found.snapshot.pos;
    }
    await this.catchUp();
    if (this.failure !== undefined) throw new Error('the notifications could not follow the log', { cause: this.failure });
    this.started = true;
    const from = this.snapshotPos;
    this.snapshotIfDue();
    return { snapshotPos: from, skipped: found.skipped };
  }

  /** Records made durable, in position order (a consumer of the durable follower). Never throws. */
  offer(records: readonly EventsRecord[]): void {
    if (this.failure !== undefined || records.length === 0) return;
    if (this.catching !== undefined || !this.started) {
      this.hold(records);
      return;
    }
    for (let i = 0; i < records.length; i++) {
      const r = records[i] as EventsRecord;
      if (r.pos <= this.current.pos) continue;
      if (r.pos !== this.current.pos + 1) {
        this.hold(records.slice(i));
        void this.catchUp();
        return;
      }
      if (!this.applyOne(r)) return;
    }
    this.settle();
    this.snapshotIfDue();
  }

  /** Resolves once position `pos` is applied; rejects after `timeoutMs`, or at once when the store failed. */
  waitFor(pos: number, timeoutMs = 5_000): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(new Error('the notifications stopped', { cause: this.failure }));
    if (this.current.pos >= pos) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`the notifications did not reach position ${pos} within ${timeoutMs} ms (at ${this.current.pos})`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        if (this.failure === undefined) resolve();
        else reject(new Error('the notifications stopped', { cause: this.failure }));
      };
      this.waiters.push({ pos, resolve: done });
    });
  }

  /** Writes a last snapshot (when serving and anything changed since the last one) and waits for the writes. */
  async close(): Promise<void> {
    await this.writing;
    if (this.ready && this.current.pos > this.snapshotPos) this.snapshot();
    await this.writing;
  }

  private snapshotIfDue(): void {
    if (this.options.snapshots === undefined || this.writing !== undefined) return;
    if (this.current.pos - this.snapshotPos >= (this.options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY)) this.snapshot();
  }

  private snapshot(): void {
    const snapshots = this.options.snapshots;
    if (snapshots === undefined) return;
    const pos = this.current.pos;
    const bytes = snapshotBytes(this.current);
    this.snapshotPos = pos;
    this.writing = snapshots
      .write(pos, bytes)
      .catch((error: unknown) => this.options.onSnapshotError?.(error))
      .finally(() => {
        this.writing = undefined;
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
      this.current.apply(record);
      return true;
    } catch (error) {
      this.fail(error);
      return false;
    }
  }

  private fail(error: unknown): void {
    if (this.failure === undefined) this.options.onFailure?.(error);
    this.failure ??= error;
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }

  private settle(): void {
    if (this.waiters.length === 0) return;
    const pos = this.current.pos;
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
          for await (const record of this.readFrom(this.current.pos + 1)) if (!this.applyOne(record)) return;
          const held = this.held;
          this.held = [];
          let gap = false;
          for (const r of held) {
            if (r.pos <= this.current.pos) continue;
            if (r.pos !== this.current.pos + 1) {
              gap = true;
              break;
            }
            if (!this.applyOne(r)) return;
          }
          this.settle();
          if (!gap && this.current.pos >= this.log.lastPos) return;
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
