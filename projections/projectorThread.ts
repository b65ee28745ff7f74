// The projector on a thread of its own (projectorWorker.ts), for the single process on the embedded journal:
// the engine's thread publishes each durable end in shared memory (durable(): one atomic store per batch, no
// message, nobody woken) and the projector's thread reads the journal's files up to it, builds the rows and
// commits them through this thread's ClickHouse client (storage/clickhouseRelay.ts: a few calls per commit).
// Its committed position comes back the same way, so `position` is a read of shared memory; a reader that
// must wait for a position (read-your-writes) asks the thread to hurry and is answered once it is committed.
//
// The projector's state (open orders, positions, prices) lives on that thread and is not read here: the
// WebSocket publisher's creation times of orders open since before start-up come from the in-memory read
// model, so the service runs the projector here only beside it (server/service.ts).

import type { Worker } from 'node:worker_threads';
import type { ClickHouseClient } from '@clickhouse/client';
import { SharedPosition } from '../log/sharedPosition.js';
import { relaySpoolDir, serveRelayCall, type RelayRequest } from '../storage/clickhouseRelay.js';
import { moduleWorker } from '../threads/moduleWorker.js';
import type { ProjectorJob, ProjectorNews, ProjectorWorkerData, ThreadProjectorOptions } from './projectorWorker.js';

export interface ProjectorThreadSettings {
  /** The client this thread holds; the projector's calls are run on it. */
  readonly client: ClickHouseClient;
  readonly db: string;
  /** The journal's directory and its durable end now. */
  readonly journalDir: string;
  readonly durableEnd: number;
  readonly options: ThreadProjectorOptions;
  /** Told when the projector stops after a failure (it takes no more records until a restart). */
  readonly onFailure: (error: Error) => void;
}

interface Waiter {
  readonly pos: number;
  resolve(): void;
  reject(error: Error): void;
}

export class ProjectorThread {
  private waiters: Waiter[] = [];
  /** The highest position the thread was asked to hurry to and has not reported reaching. */
  private asked = 0;
  private failure: Error | undefined;
  private stopped: { resolve(error?: string): void } | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly settings: ProjectorThreadSettings,
    /** The journal's durable end (published here) and the committed position (published by the thread). */
    private readonly end: SharedPosition,
    private readonly projected: SharedPosition,
  ) {
    this.ready = this.listen();
    // Observed here: a failure to start is the awaiting caller's, not an unhandled rejection.
    this.ready.catch(() => undefined);
  }

  /** Resolves once the thread's projector is restored (and any pending batch redone); rejects if it fails to. */
  readonly ready: Promise<void>;

  /** Starts the thread; `ready` says when its projector can run. */
  static launch(settings: ProjectorThreadSettings): ProjectorThread {
    const end = new SharedPosition();
    const projected = new SharedPosition();
    end.advance(settings.durableEnd);
    const data: ProjectorWorkerData = {
      journalDir: settings.journalDir,
      end: end.buffer,
      projected: projected.buffer,
      db: settings.db,
      spoolDir: relaySpoolDir(settings.client, 'projector'),
      options: settings.options,
    };
    return new ProjectorThread(moduleWorker(import.meta.url, 'projectorWorker', { workerData: data }), settings, end, projected);
  }

  private listen(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let started = false;
      const fail = (error: Error): void => {
        this.failure ??= error;
        for (const w of this.waiters) w.reject(error);
        this.waiters = [];
        if (!started) {
          reject(error);
          void this.worker.terminate();
        } else this.settings.onFailure(error);
        this.stopped?.resolve(error.message);
      };
      this.worker.on('message', (news: ProjectorNews | RelayRequest) => {
        switch (news.kind) {
          case 'clickhouse':
            void serveRelayCall(this.settings.client, news).then((reply) => this.post(reply));
            return;
          case 'started':
            started = true;
            resolve();
            return;
          case 'reached':
            this.asked = 0;
            this.settleWaiters();
            return;
          case 'failed':
            fail(new Error(`the projector stopped: ${news.message}`));
            return;
          case 'stopped':
            this.stopped?.resolve(news.error);
            return;
        }
      });
      this.worker.on('error', (error) => fail(error));
      this.worker.on('exit', (code) => fail(new Error(`the projector's thread exited (code ${code})`)));
    });
  }

  private post(job: ProjectorJob): void {
    this.worker.postMessage(job);
  }

  /** Last log position whose rows are committed. */
  get position(): number {
    return this.projected.get();
  }

  /** The journal's durable end minus the committed position. */
  get lag(): number {
    return Math.max(0, this.end.get() - this.projected.get());
  }

  /** Publishes a new durable end (the durable follower's consumer, once per batch). */
  durable(lastPos: number): void {
    this.end.advance(lastPos);
  }

  /** Starts projecting (after start(): the read model restores itself as of `position` first). */
  run(): void {
    this.post({ kind: 'run' });
  }

  /** Resolves once `pos` is committed (read-your-writes); rejects after `timeoutMs`. */
  waitFor(pos: number, timeoutMs = 10_000): Promise<void> {
    if (this.position >= pos) return Promise.resolve();
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        this.asked = 0;
        reject(new Error(`projection did not reach position ${pos} within ${timeoutMs} ms (at ${this.position})`));
      }, timeoutMs);
      const waiter: Waiter = {
        pos,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.waiters.push(waiter);
      if (pos > this.asked) {
        this.asked = pos;
        this.post({ kind: 'wait', pos, timeoutMs });
      }
    });
  }

  private settleWaiters(): void {
    const at = this.position;
    const ready = this.waiters.filter((w) => w.pos <= at);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.pos > at);
    for (const w of ready) w.resolve();
  }

  /** Projects up to `to` (the durable end at shutdown), records the progress and ends the thread. */
  async stop(to: number): Promise<void> {
    this.durable(to);
    const error = this.failure !== undefined ? this.failure.message : await new Promise<string | undefined>((resolve) => {
      this.stopped = { resolve };
      this.post({ kind: 'stop', to });
    });
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
    if (error !== undefined) throw new Error(`the projector did not reach ${to} before stopping: ${error}`);
  }
}
