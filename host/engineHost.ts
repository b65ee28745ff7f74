// The engine host: the one writer. It takes commands from a queue, applies a batch of them per turn of the
// event loop, or sooner when poll() is called between requests (stamping each with the host clock), appends
// that batch's records in one append, and only then releases the replies. While an append is in flight, new
// commands wait for the next batch (group commit). While that append is in flight the engine holds a batch
// that is not durable yet, so what is shown from it waits (whenDurable) until the batch is durable and
// published.
//
// An append that fails is retried (appends are idempotent by position, so a retry after an ambiguous failure
// cannot duplicate); one that fails for good (a FatalLogError, or the retries run out) stops the engine:
// every waiting command is answered with EngineStoppedError and no reply is ever sent for a command whose
// events are not durable. The in-memory state may then be ahead of the log; only a restart (snapshot + log)
// brings the engine back.

import type { Command, Engine, EngineEvent } from '../engine/index.js';
import type { EventLog, LogRecord } from '../log/eventLog.js';
import { FatalLogError } from '../log/eventLog.js';
import type { SnapshotStore } from './snapshotStore.js';
import type { CommandGateway } from './commandGateway.js';

/** A command as clients submit it: the host stamps the time. */
export type Submission = Command extends infer C ? (C extends Command ? Omit<C, 'time'> : never) : never;

export class EngineStoppedError extends Error {
  override readonly name = 'EngineStoppedError';
  readonly retriable = false;
  constructor(readonly reason: string) {
    super(`the engine has stopped: ${reason}`);
  }
}

export interface EngineHostOptions {
  /** Most commands in one batch (one append, one fsync). */
  readonly maxBatch: number;
  /** Host clock (ms); the only clock the engine's commands see. */
  readonly clock: () => number;
  /**
   * Write a snapshot after this many events since the last one (0 = never). With the snapshot thread's copy of
   * the engine (followOnSnapshotThread()), at the first batch after that; otherwise, since the export then holds
   * this thread, at the first batch after which no command waits, and after the first batch at all once twice
   * as many have passed.
   */
  readonly snapshotEvery?: number;
  readonly snapshots?: SnapshotStore;
  /** Append attempts before giving up (default 5), with doubling backoff from retryDelayMs (default 20). */
  readonly appendAttempts?: number;
  readonly retryDelayMs?: number;
  /** Called once when the engine stops for good. */
  readonly onStop?: (error: Error) => void;
  /**
   * Called after each durable batch (the projector's hand-over, WebSocket fan-out, metrics), with the very
   * records appended: receivers must not modify them (the projector projects them as they are, and the
   * replies hold the same events).
   */
  readonly onDurable?: (records: readonly LogRecord[]) => void;
  /** Called after each durable append with its number of commands and its time (ms): for metrics. */
  readonly onAppended?: (commands: number, ms: number) => void;
  /** Called when a snapshot could not be written (the engine carries on: the log is the source of truth). */
  readonly onSnapshotError?: (error: Error) => void;
}

interface Pending {
  readonly submission: Submission;
  readonly resolve: (outcome: Applied) => void;
  readonly reject: (error: Error) => void;
  applied?: Applied;
}

/** A command's record once durable: its log position and the events the engine produced. */
export interface Applied {
  readonly pos: number;
  readonly events: EngineEvent[];
}

export class EngineHost implements CommandGateway {
  private queue: Pending[] = [];
  private scheduled = false;
  private appending = false;
  private stopError: Error | null = null;
  private pos: number;
  private lastSnapshotSeq: number;
  private idleWaiters: (() => void)[] = [];
  /** Reads waiting for the engine to be at a durable state (whenDurable): run when the batch in flight is durable. */
  private durableWaiters: { readonly task: () => void; readonly failed: (error: Error) => void }[] = [];
  /** The snapshot being written, if any: one at a time, and idle() waits for it. */
  private snapshotting: Promise<string | undefined> | null = null;
  /** Heartbeat deadlines are watched (watchDeadlines()) until disposed. */
  private watching = false;
  private deadlineTimer: ReturnType<typeof setTimeout> | null = null;
  /** The deadline the timer is armed for. */
  private armedFor: number | undefined;

  constructor(
    readonly engine: Engine,
    readonly log: EventLog,
    private readonly options: EngineHostOptions,
  ) {
    this.pos = log.lastPos;
    this.lastSnapshotSeq = engine.seq;
  }

  /**
   * Starts a copy of the engine on the snapshot thread (SnapshotStore.follow), to which every durable batch is
   * sent from now on: snapshots are then taken from it, and this thread no longer exports the state (tens to
   * hundreds of ms with many resting orders, which every waiting command would wait out). Costs a second copy
   * of the engine's memory. Call before the first command; resolves whether the copy runs (it does not where
   * the thread cannot start, and snapshots then work as before).
   */
  async followOnSnapshotThread(): Promise<boolean> {
    return (await this.options.snapshots?.follow(this.pos, this.engine)) ?? false;
  }

  /** Last durable log position. */
  get position(): number {
    return this.pos;
  }

  /**
   * The engine holds nothing that is not durable: no batch is applied to it and still being appended. A batch
   * is applied and handed to the log in one synchronous step, so this is false exactly while an append is in
   * flight, and for good after a stop (the batch whose append failed stays applied).
   */
  get atDurableState(): boolean {
    return !this.appending && this.stopError === null;
  }

  /**
   * Runs `task` now at a durable state; otherwise once the batch in flight is durable and every consumer of
   * durable batches has had it (onDurable), before the next batch is applied. Calls `failed` with an
   * EngineStoppedError if the engine stops instead, or has stopped.
   */
  whenDurable(task: () => void, failed: (error: Error) => void): void {
    if (this.stopError !== null) failed(new EngineStoppedError(this.stopError.message));
    else if (!this.appending) task();
    else this.durableWaiters.push({ task, failed });
  }

  get stopped(): Error | null {
    return this.stopError;
  }

  get pending(): number {
    return this.queue.length;
  }

  /** Applies a command; resolves with its events once they are durable. */
  async submit(submission: Submission): Promise<EngineEvent[]> {
    return (await this.apply(submission)).events;
  }

  /** Applies a command; resolves with its record's position and events once they are durable. */
  apply(submission: Submission): Promise<Applied> {
    if (this.stopError !== null) return Promise.reject(new EngineStoppedError(this.stopError.message));
    return new Promise<Applied>((resolve, reject) => {
      this.queue.push({ submission, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Called between requests (the HTTP server calls it before each): settles the appends that have become
   * durable since (EventLog.poll), and, with no append in flight, applies and appends the commands queued
   * now instead of at the end of this event-loop turn. Under load a turn runs every ready request first,
   * milliseconds; with this, each step of a command waits for about one request. Settled appends release
   * their replies in the microtasks that follow the caller.
   */
  poll(): void {
    this.log.poll?.();
    if (!this.appending && this.queue.length > 0 && this.stopError === null) void this.turn();
  }

  private schedule(): void {
    if (this.scheduled || this.appending || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => void this.turn());
  }

  private async turn(): Promise<void> {
    this.scheduled = false;
    // A turn started by poll() may be appending when the one scheduled earlier comes: that one's commands
    // go in the next batch, scheduled when this append completes.
    if (this.appending) return;
    if (this.stopError !== null || this.queue.length === 0) return this.settleIdle();
    const batch = this.queue.splice(0, this.options.maxBatch);
    const records: LogRecord[] = [];
    for (const pending of batch) {
      const command = { ...pending.submission, time: this.options.clock() } as Command;
      const events = this.engine.apply(command);
      const pos = this.pos + records.length + 1;
      pending.applied = { pos, events };
      records.push({ pos, command, events });
    }
    this.appending = true;
    const appendStarted = performance.now();
    try {
      await this.appendDurably(records);
    } catch (error) {
      this.appending = false;
      this.stop(error instanceof Error ? error : new Error(String(error)), batch);
      return;
    }
    this.appending = false;
    this.pos = (records[records.length - 1] as LogRecord).pos;
    this.options.onAppended?.(records.length, performance.now() - appendStarted);
    for (const pending of batch) pending.resolve(pending.applied as Applied);
    // The snapshot thread's copy first: a consumer that asks it for a snapshot in this pass (the notifications)
    // finds it sent every record up to this batch's end.
    this.options.snapshots?.followed(records);
    this.options.onDurable?.(records);
    this.releaseDurableWaiters(undefined);
    // Taken now, before the next batch is applied, so it matches this position; written in the background.
    this.maybeSnapshot();
    this.armDeadline();
    if (this.queue.length > 0) this.schedule();
    else this.settleIdle();
  }

  /**
   * Starts watching heartbeat deadlines (engine/heartbeats.ts) and the rewards sampler's minutes
   * (engine/rewards/rewardSampler.ts): whenever a session is live, AdvanceTime is submitted just after the
   * earliest deadline, so that a session with no other traffic still expires on time, and at once for sessions
   * whose deadline passed while the service was down; whenever a market is rewarded, at each minute, so that a
   * quiet market is still sampled and each day paid at midnight. Call once every
   * consumer of the durable batches is in place (the first AdvanceTime may follow at once); the timer is
   * re-armed after every batch.
   */
  watchDeadlines(): void {
    this.watching = true;
    this.armDeadline();
  }

  /** Stops watching heartbeat deadlines (before a shutdown: no command is submitted from then on). */
  unwatchDeadlines(): void {
    this.watching = false;
    this.disarm();
  }

  private disarm(): void {
    if (this.deadlineTimer !== null) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = null;
    this.armedFor = undefined;
  }

  /**
   * The engine time at which the next AdvanceTime is due: just after the earliest heartbeat deadline (a session
   * expires once engine time is past it), or the rewards sampler's next minute (a sample is taken once engine
   * time reaches it), whichever is first.
   */
  private nextDue(): number | undefined {
    const heartbeat = this.engine.nextHeartbeatDeadline();
    const sample = this.engine.nextRewardSample();
    if (heartbeat === undefined) return sample;
    return sample === undefined ? heartbeat + 1 : Math.min(heartbeat + 1, sample);
  }

  private armDeadline(): void {
    if (!this.watching || this.stopError !== null) return;
    const next = this.nextDue();
    if (next === this.armedFor && (next === undefined || this.deadlineTimer !== null)) return;
    this.disarm();
    if (next === undefined) return;
    this.armedFor = next;
    const delay = Math.max(0, next - this.options.clock());
    this.deadlineTimer = setTimeout(() => {
      this.deadlineTimer = null;
      this.armedFor = undefined;
      if (!this.watching || this.stopError !== null) return;
      // Refused only when the engine has stopped, which onStop reports.
      this.apply({ type: 'AdvanceTime' }).catch(() => undefined);
    }, delay);
    this.deadlineTimer.unref?.();
  }

  /**
   * Settles the reads waiting for a durable state: they run when the batch in flight has just been published
   * (`stopped` undefined), and fail when the engine stopped with it applied, which it never returns from.
   */
  private releaseDurableWaiters(stopped: EngineStoppedError | undefined): void {
    if (this.durableWaiters.length === 0) return;
    const waiting = this.durableWaiters;
    this.durableWaiters = [];
    for (const { task, failed } of waiting) {
      if (stopped === undefined) task();
      else failed(stopped);
    }
  }

  private async appendDurably(records: readonly LogRecord[]): Promise<void> {
    const attempts = this.options.appendAttempts ?? 5;
    let delay = this.options.retryDelayMs ?? 20;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.log.append(records);
        return;
      } catch (error) {
        if (error instanceof FatalLogError || attempt >= attempts) throw error;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay *= 2;
      }
    }
  }

  private stop(error: Error, batch: readonly Pending[]): void {
    if (this.stopError !== null) return;
    this.stopError = error;
    const stopped = new EngineStoppedError(error.message);
    for (const pending of [...batch, ...this.queue]) pending.reject(stopped);
    this.queue = [];
    this.releaseDurableWaiters(stopped);
    this.disarm();
    this.options.onStop?.(error);
    this.settleIdle();
  }

  private maybeSnapshot(): void {
    const every = this.options.snapshotEvery ?? 0;
    const since = this.engine.seq - this.lastSnapshotSeq;
    if (every <= 0 || this.options.snapshots === undefined || since < every) return;
    // The export holds this thread (tens of ms with tens of thousands of resting orders), so a due snapshot waits
    // for a quiet moment, no command waiting, and is taken regardless once twice as many events have passed.
    // Taken from the snapshot thread's copy, it holds nothing here.
    if (!this.options.snapshots.following && this.queue.length > 0 && since < 2 * every) return;
    // One snapshot at a time: while one is being written, later batches simply wait for the next chance.
    if (this.snapshotting !== null) return;
    void this.snapshotNow();
  }

  /**
   * Writes a snapshot of the current (durable) state: it is taken synchronously (SnapshotStore.take: asked of
   * the snapshot thread's copy, or exported here), so it is exactly the state at `position`; its hash and the
   * file are made in the background. Resolves with the file's path.
   */
  snapshotNow(): Promise<string | undefined> {
    const store = this.options.snapshots;
    if (store === undefined || this.stopError !== null) return Promise.resolve(undefined);
    const previous = this.snapshotting ?? Promise.resolve(undefined);
    this.lastSnapshotSeq = this.engine.seq;
    const written = store.take(this.pos, this.engine);
    const writing = previous
      .then(written)
      .catch((error: unknown) => {
        this.options.onSnapshotError?.(error instanceof Error ? error : new Error(String(error)));
        return undefined;
      })
      .finally(() => {
        if (this.snapshotting === writing) this.snapshotting = null;
        this.settleIdle();
      });
    this.snapshotting = writing;
    return writing;
  }

  /** Resolves when no command is queued or being made durable and no snapshot is being written. */
  idle(): Promise<void> {
    if (!this.appending && !this.scheduled && this.queue.length === 0 && this.snapshotting === null) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private settleIdle(): void {
    if (this.appending || this.scheduled || this.queue.length > 0 || this.snapshotting !== null) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
