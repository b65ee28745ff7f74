// The thread that writes engine snapshots (snapshotWorker.ts), started at the first use and kept. It holds
// the process open only while a snapshot is being written or a copy is being seeded. A thread that fails
// fails the snapshots it was writing, and the next snapshot starts a new one; one that fails before it runs at
// all (its module cannot be loaded, as where sources run without tsx: server/moduleWorker.ts) fails them with
// SnapshotThreadUnavailable, and the store makes snapshots on the calling thread from then on.

import type { Worker } from 'node:worker_threads';
import { moduleWorker } from '../server/moduleWorker.js';
import type { CommandRecord } from '../log/eventLog.js';
import type { LiveStateOptions } from '../projections/live/liveState.js';
import type { SnapshotJob, SnapshotReply } from './snapshotWorker.js';

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

  /** Writes the snapshot file of an export at `pos` to `path` (durably); resolves with the state hash recorded. */
  write(path: string, pos: number, engineJson: string): Promise<string> {
    return this.ask((id) => ({ kind: 'file', id, path, pos, engineJson }));
  }

  /** (Re)starts the thread's follower from an export at `pos`; resolves with its state hash once it holds it. */
  seed(pos: number, engineJson: string): Promise<string> {
    return this.ask((id) => ({ kind: 'seed', id, pos, engineJson }));
  }

  /** Durable records for the follower, in log order, continuing its position. No answer. */
  follow(records: readonly CommandRecord[]): void {
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

  private ask(job: (id: number) => SnapshotJob, transfer: ArrayBuffer[] = []): Promise<string> {
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
