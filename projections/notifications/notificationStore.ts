// The notifications as a consumer of the durable records (log/durableFollower.ts), like the in-memory read
// model: offer() applies each durable batch at once (on the follower's thread, before the batch's replies
// are released, so a read after an acknowledged write sees it), and the log is read for whatever was not
// offered (before start() finished, after a gap; projections/logTail.ts). It learns nothing from the request path, so an API node that
// only follows the log builds the same notifications as the engine's process.
//
// Start-up: the newest snapshot of its own (notificationSnapshots.ts; none: an empty state at position 0),
// then the log from there to its end, then what was offered meanwhile. A snapshot is written every
// `snapshotEvery` records applied and at close(), serialised on this thread (the state is bounded:
// notificationState.ts) and written to disk off it. A record that fails to apply stops the store for good:
// its reads answer 503 rather than a state that no longer follows the log.

import type { EventLog, EventsRecord } from '../../log/eventLog.js';
import { LogTail } from '../logTail.js';
import { NotificationState, type NotificationStateOptions } from './notificationState.js';
import { restoreSnapshot, snapshotBytes, type NotificationSnapshots } from './notificationSnapshots.js';

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
  private readonly tail: LogTail;
  private snapshotPos = 0;
  private writing: Promise<void> | undefined;

  constructor(
    private readonly log: EventLog,
    private readonly options: NotificationStoreOptions = {},
  ) {
    this.current = new NotificationState(options);
    this.tail = new LogTail(log, () => this.current, 'the notifications', options.onFailure);
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
    return this.tail.ready;
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
    this.snapshotIfDue();
    return { snapshotPos: from, skipped: found.skipped };
  }

  /** Records made durable, in position order (a consumer of the durable follower). Never throws. */
  offer(records: readonly EventsRecord[]): void {
    if (this.tail.offer(records)) this.snapshotIfDue();
  }

  /** Resolves once position `pos` is applied; rejects after `timeoutMs`, or when the store failed. */
  async waitFor(pos: number, timeoutMs = 5_000): Promise<void> {
    await this.tail.waitFor(pos, timeoutMs);
    if (this.tail.failure !== undefined) throw new Error('the notifications stopped', { cause: this.tail.failure });
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
      .then(() => undefined)
      .catch((error: unknown) => this.options.onSnapshotError?.(error))
      .finally(() => {
        this.writing = undefined;
      });
  }
}
