// The notifications as a consumer of the durable records (log/durableFollower.ts), like the in-memory read
// model: offer() takes each durable batch (on the follower's thread, before the batch's replies are released)
// and every accessor applies what was offered first (batches are applied in runs, projections/logTail.ts), so a
// read after an acknowledged write sees it; the log is read for whatever was not
// offered (before start() finished, after a gap; projections/logTail.ts). It learns nothing from the request path, so an API node that
// only follows the log builds the same notifications as the engine's process.
//
// Start-up: the newest snapshot of its own (notificationSnapshots.ts; none: an empty state at position 0),
// then the log from there to its end, then what was offered meanwhile. A snapshot is written every
// `snapshotEvery` records applied and at close(). With a copy (options.copy: the snapshot thread keeps one beside
// its copy of the engine, host/snapshotStore.ts), snapshots are taken from the copy and this thread serialises
// nothing: serialising the state here held the order path for hundreds of ms once it held 100,000 open orders'
// notes and as many notifications. The copy is seeded from this state's bytes, serialised here once: at
// start(), and again after a copy failed. Without a copy, each snapshot is serialised on this thread and written
// to disk off it. A record that fails to apply stops the store for good: its reads answer 503 rather than a
// state that no longer follows the log.

import type { EventLog, EventsRecord } from '../../log/eventLog.js';
import { LogTail, type Deferral } from '../logTail.js';
import { NotificationState, type NotificationStateOptions } from './notificationState.js';
import { restoreSnapshot, snapshotBytes, type NotificationSnapshots } from './notificationSnapshots.js';

/** Default records applied between two snapshots. */
export const DEFAULT_SNAPSHOT_EVERY = 100_000;

/**
 * A copy of the notifications on another thread, fed the same durable records, from which snapshots are taken
 * there (host/snapshotStore.ts implements it beside the snapshot thread's copy of the engine). Every record up to
 * the store's position, and none after, has reached the copy whenever the store asks it.
 */
export interface NotificationCopy {
  /** The engine's copy follows: the notifications can be seeded beside it. */
  readonly following: boolean;
  /** The notifications' copy follows: takeNotes() needs nothing of this thread. */
  readonly followingNotes: boolean;
  /** Starts the copy from snapshot bytes at `pos` (moved to its thread) and writes them to `path`. */
  seedNotes(pos: number, bytes: Uint8Array, path: string, options: NotificationStateOptions): () => Promise<void>;
  /** Takes the copy's snapshot at `pos`, now, written to `path`; a copy that cannot give it is not used again until seeded. */
  takeNotes(pos: number, path: string): () => Promise<void>;
}

export interface NotificationStoreOptions extends NotificationStateOptions {
  /** Where its snapshots go; none: every start reads the whole log. */
  readonly snapshots?: NotificationSnapshots;
  readonly snapshotEvery?: number;
  /** Where snapshots are taken instead of on this thread; none: here. */
  readonly copy?: NotificationCopy;
  /** A snapshot that could not be written or read (the store goes on). */
  readonly onSnapshotError?: (error: unknown) => void;
  /** Called once if the store stops (a record failed to apply or the log could not be read). */
  readonly onFailure?: (error: unknown) => void;
  /** Apply offered batches in runs (logTail.ts, default DEFAULT_DEFERRAL); `false`: each one when offered. */
  readonly defer?: Deferral | false;
}

export class NotificationStore {
  private current: NotificationState;
  private readonly tail: LogTail;
  private snapshotPos = 0;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly log: EventLog,
    private readonly options: NotificationStoreOptions = {},
  ) {
    this.current = new NotificationState(options);
    this.tail = new LogTail(log, () => this.current, 'the notifications', { onFailure: options.onFailure, onApplied: () => this.snapshotIfDue(), defer: options.defer });
  }

  /** The state, with every batch offered so far applied. */
  get state(): NotificationState {
    this.tail.flush();
    return this.current;
  }

  /** Last log position applied (every batch offered so far applied first). */
  get position(): number {
    this.tail.flush();
    return this.current.pos;
  }

  /** Started, and no record failed to apply. */
  get ready(): boolean {
    this.tail.flush();
    return this.tail.ready;
  }

  /** Time spent applying offered batches after offer() returned (seconds). */
  get deferredSeconds(): number {
    return this.tail.deferredSeconds;
  }

  /** Restores the newest snapshot (if any) and follows the log to its end; resolves with where it started from. */
  async start(): Promise<{ snapshotPos: number; skipped: string[] }> {
    const found = (await this.options.snapshots?.latest(this.log.lastPos)) ?? { snapshot: undefined, skipped: [] };
    if (found.snapshot !== undefined) {
      this.current = restoreSnapshot(found.snapshot, this.options);
      this.snapshotPos = found.snapshot.pos;
    }
    await this.tail.start();
    const from = this.snapshotPos;
    // A copy is seeded now, at start-up, rather than when the first snapshot falls due under load.
    if (this.options.snapshots !== undefined && this.options.copy?.following === true && this.tail.ready) this.snapshot();
    else this.snapshotIfDue();
    return { snapshotPos: from, skipped: found.skipped };
  }

  /** Records made durable, in position order (a consumer of the durable follower). Never throws. */
  offer(records: readonly EventsRecord[]): void {
    this.tail.offer(records);
  }

  /** Resolves once position `pos` is applied; rejects after `timeoutMs`, or when the store failed. */
  async waitFor(pos: number, timeoutMs = 5_000): Promise<void> {
    await this.tail.waitFor(pos, timeoutMs);
    if (this.tail.failure !== undefined) throw new Error('the notifications stopped', { cause: this.tail.failure });
  }

  /** Writes a last snapshot (when serving and anything changed since the last one) and waits for the writes. */
  async close(): Promise<void> {
    this.tail.flush();
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
    const copy = this.options.copy;
    let written: () => Promise<unknown>;
    if (copy?.followingNotes === true) {
      const path = snapshots.pathOf(pos);
      const taken = copy.takeNotes(pos, path);
      // A copy that failed is seeded again by the next snapshot; this one is made here if nothing moved since (at close()).
      written = () => taken().then(() => snapshots.prune(), (error: unknown) => (this.current.pos === pos ? snapshots.write(pos, snapshotBytes(this.current)) : Promise.reject(error)));
    } else {
      const bytes = snapshotBytes(this.current);
      if (copy?.following === true) {
        // The seed's bytes move to the copy's thread: kept here too, to write them if the copy cannot start.
        const kept = Buffer.from(bytes);
        const path = snapshots.pathOf(pos);
        const { retentionMs, maxPerAccount, maxTotal } = this.options;
        const seeded = copy.seedNotes(pos, bytes, path, { retentionMs, maxPerAccount, maxTotal });
        written = () => seeded().then(() => snapshots.prune(), () => snapshots.write(pos, kept));
      } else {
        written = () => snapshots.write(pos, bytes);
      }
    }
    this.snapshotPos = pos;
    this.writing = written()
      .then(() => undefined)
      .catch((error: unknown) => this.options.onSnapshotError?.(error))
      .finally(() => {
        this.writing = undefined;
      });
  }
}
