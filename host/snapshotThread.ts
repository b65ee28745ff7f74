// The thread that writes engine snapshots (snapshotWorker.ts), started at the first use and kept. It holds
// the process open only while a snapshot is being written or a copy is being seeded. A thread that fails
// fails the snapshots it was writing, and the next snapshot starts a new one; one that fails before it runs at
// all (its module cannot be loaded, as where sources run without tsx: threads/moduleWorker.ts) fails them with
// SnapshotThreadUnavailable, and the store makes snapshots on the calling thread from then on.

import type { Worker } from 'node:worker_threads';
import { moduleWorker } from '../threads/moduleWorker.js';
import type { CommandRecord } from '../log/eventLog.js';
import type { LiveStateOptions } from '../projections/live/liveState.js';
import type { NotificationStateOptions } from '../projections/notifications/notificationState.js';
import type { SnapshotJob, SnapshotReply } from './snapshotWorker.js';

/**
 * Most time (ms) durable records wait before they are sent to the follower, and most records held. Each
 * hand-over wakes the snapshot thread, whose wake-up at a steady rate costs more than the records it applies
 * (at 400 orders/s: ~20 µs of its CPU per order at 50 ms, ~10 at 250); the copy's lag costs nothing, as every
 * request to the thread sends the held records first.
 */
const FOLLOW_EVERY_MS = 250;
const FOLLOW_MAX_HELD = 2_000;

export class SnapshotThreadUnavailable extends Error {
  override readonly name = 'SnapshotThreadUnavailable';
}

interface Pending {
  readonly worker: Worker;
  readonly resolve: (stateHash: string) => void;
  readonly reject: (error: Error) => void;
}

export class SnapshotThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Records for the follower not sent yet (follow()), and the timer that sends them. */
  private held: CommandRecord[] = [];
  private heldTimer: NodeJS.Timeout | undefined;

  /** Writes the snapshot file of an export at `pos` to `path` (durably); resolves with the state hash recorded. */
  write(path: string, pos: number, engineJson: string): Promise<string> {
    return this.ask((id) => ({ kind: 'file', id, path, pos, engineJson }));
  }

  /** (Re)starts the thread's follower from an export at `pos`; resolves with its state hash once it holds it. */
  seed(pos: number, engineJson: string): Promise<string> {
    return this.ask((id) => ({ kind: 'seed', id, pos, engineJson }));
  }

  /**
   * Durable records for the follower, in log order, continuing its position. No answer. They leave together,
   * once per FOLLOW_EVERY_MS (each message costs this thread ~20 µs and wakes the snapshot thread, whatever
   * its size: once per durable batch, that was ~12 µs of an order's time under load), and always before any
   * request that follows them, so the copy sees every record before the request that counts on it.
   */
  follow(records: readonly CommandRecord[]): void {
    if (this.worker === undefined) return;
    for (const r of records) this.held.push(r);
    if (this.held.length >= FOLLOW_MAX_HELD) this.sendHeld();
    else this.heldTimer ??= setTimeout(() => this.sendHeld(), FOLLOW_EVERY_MS).unref();
  }

  /** Sends the held records now (they must reach the copy before the next request). */
  private sendHeld(): void {
    if (this.heldTimer !== undefined) clearTimeout(this.heldTimer);
    this.heldTimer = undefined;
    if (this.held.length === 0) return;
    const records = this.held;
    this.held = [];
    this.worker?.postMessage({ kind: 'follow', records } satisfies SnapshotJob);
  }

  /** Writes the follower's snapshot at `pos` to `path`; rejects if the follower is not exactly there. */
  writeFollowed(path: string, pos: number): Promise<string> {
    return this.ask((id) => ({ kind: 'followed', id, path, pos }));
  }

  /**
   * (Re)starts the read model beside the follower from its snapshot's bytes at `pos` (the follower must be
   * there), and writes those bytes to `path`. The bytes are moved to the thread: `bytes` is empty afterwards.
   */
  seedLive(path: string, pos: number, bytes: Uint8Array, options: LiveStateOptions): Promise<void> {
    return this.ask((id) => ({ kind: 'seedLive', id, path, pos, bytes, options }), [bytes.buffer as ArrayBuffer]).then(() => undefined);
  }

  /** Writes the read model's snapshot at `pos` to `path`; rejects if the model is not exactly there. */
  writeFollowedLive(path: string, pos: number): Promise<void> {
    return this.ask((id) => ({ kind: 'followedLive', id, path, pos })).then(() => undefined);
  }

  /** As seedLive, for the notifications (projections/notifications). */
  seedNotes(path: string, pos: number, bytes: Uint8Array, options: NotificationStateOptions): Promise<void> {
    return this.ask((id) => ({ kind: 'seedNotes', id, path, pos, bytes, options }), [bytes.buffer as ArrayBuffer]).then(() => undefined);
  }

  /** Writes the notifications' snapshot at `pos` to `path`; rejects if they are not exactly there. */
  writeFollowedNotes(path: string, pos: number): Promise<void> {
    return this.ask((id) => ({ kind: 'followedNotes', id, path, pos })).then(() => undefined);
  }

  private ask(job: (id: number) => SnapshotJob, transfer: ArrayBuffer[] = []): Promise<string> {
    // The records held so far belong to the thread that was sent the earlier ones: a new thread starts from a seed.
    if (this.worker !== undefined) this.sendHeld();
    else this.held = [];
    const worker = this.running();
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { worker, resolve, reject });
      worker.ref();
      worker.postMessage(job(id), transfer);
    });
  }

  /** Stops the thread (a snapshot being written fails). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (this.heldTimer !== undefined) clearTimeout(this.heldTimer);
    this.heldTimer = undefined;
    this.held = [];
    if (worker !== undefined) await worker.terminate();
  }

  private running(): Worker {
    if (this.worker !== undefined) return this.worker;
    const worker = moduleWorker(import.meta.url, 'snapshotWorker');
    worker.unref();
    let ready = false;
    const failAll = (cause: Error): void => {
      const error = ready ? cause : new SnapshotThreadUnavailable(`the snapshot thread did not start: ${cause.message}`, { cause });
      if (this.worker === worker) this.worker = undefined;
      for (const [id, p] of this.pending) {
        if (p.worker !== worker) continue;
        this.pending.delete(id);
        p.reject(error);
      }
    };
    worker.on('message', (reply: SnapshotReply) => {
      if (reply.kind === 'ready') {
        ready = true;
        return;
      }
      const p = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (![...this.pending.values()].some((q) => q.worker === worker)) worker.unref();
      if (p === undefined) return;
      if (reply.kind === 'done') p.resolve(reply.stateHash);
      else p.reject(new Error(reply.message));
    });
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the snapshot thread exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }
}
