// The projector's thread (projectorThread.ts starts it): a Projector reading the service's journal through
// a JournalTail up to the durable end the engine's thread publishes, its ClickHouse calls relayed to the
// thread that holds the client (storage/clickhouseRelay.ts). Nothing here runs per order on the engine's
// thread: it looks at the shared end on its own timer, and reads, decodes and builds on this one.

import { parentPort, workerData } from 'node:worker_threads';
import { JournalTail } from '../log/journal/journalTail.js';
import { SharedPosition } from '../log/sharedPosition.js';
import { relayedClickHouse, type RelayReply } from '../storage/clickhouseRelay.js';
import { nameThisThread } from '../threads/threadName.js';
import { answerHeapQueries } from '../threads/threadHeaps.js';
import { Projector, type ProjectorOptions } from './projector.js';

/** What the thread is started with. */
export interface ProjectorWorkerData {
  readonly journalDir: string;
  /** The journal's durable end, published by the engine's thread. */
  readonly end: SharedArrayBuffer;
  /** The committed position, published by this thread. */
  readonly projected: SharedArrayBuffer;
  readonly db: string;
  readonly spoolDir: string | undefined;
  readonly options: ThreadProjectorOptions;
}

/** The projector's options that can cross to a thread (no callbacks). */
export type ThreadProjectorOptions = Omit<ProjectorOptions, 'onBatch' | 'onInsert'>;

/** Messages to this thread. */
export type ProjectorJob = RelayReply | { readonly kind: 'run' } | { readonly kind: 'wait'; readonly pos: number; readonly timeoutMs: number } | { readonly kind: 'stop'; readonly to: number };

/** Messages from this thread (a RelayRequest besides). */
export type ProjectorNews =
  | { readonly kind: 'started' }
  | { readonly kind: 'reached' }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'stopped'; readonly error?: string };

/**
 * How often (ms) the thread looks at the durable end while its projector waits between commits or idles (also
 * its run()'s own idle look): what a look finds only starts a commit, or ends a light-load wait, sooner, and a
 * reader waiting for a position wakes the projector itself (Projector.waitFor). Each look wakes this thread,
 * which at a steady rate costs more than what it finds.
 */
const WATCH_MS = 250;

const port = parentPort;
if (port === null) throw new Error('projectorWorker.ts runs as a worker thread');
nameThisThread('pmx-projector');
answerHeapQueries('pmx-projector');
const data = workerData as ProjectorWorkerData;
const end = new SharedPosition(data.end);
const projected = new SharedPosition(data.projected);
const relay = relayedClickHouse((request) => port.postMessage(request), data.spoolDir);
const log = new JournalTail(data.journalDir, end);
const projector = new Projector(relay.client, data.db, log, { ...data.options, idleMs: WATCH_MS, onBatch: (_from, to) => projected.advance(to) });
const stopRun = new AbortController();
let running: Promise<void> | undefined;
let seen = end.get();
// The projector's run() waits between commits and, when idle, looks again every idleMs; notify() ends a wait
// under light load early once enough records wait, as the engine host's hand-over does on the engine's thread.
const watch = setInterval(() => {
  const last = end.get();
  if (last === seen) return;
  seen = last;
  projector.notify();
}, WATCH_MS);

const send = (news: ProjectorNews): void => port.postMessage(news);
const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

async function stop(to: number): Promise<void> {
  clearInterval(watch);
  let error: string | undefined;
  try {
    await projector.catchUpTo(log, to);
  } catch (e) {
    error = messageOf(e);
  }
  stopRun.abort();
  await running;
  send(error === undefined ? { kind: 'stopped' } : { kind: 'stopped', error });
}

port.on('message', (job: ProjectorJob) => {
  switch (job.kind) {
    case 'clickhouse':
      relay.settle(job);
      return;
    case 'run':
      running ??= projector.run(stopRun.signal).catch((error: unknown) => send({ kind: 'failed', message: messageOf(error) }));
      return;
    case 'wait':
      projector.waitFor(job.pos, job.timeoutMs).then(
        () => send({ kind: 'reached' }),
        () => undefined,
      );
      return;
    case 'stop':
      void stop(job.to);
      return;
  }
});

projector.start().then(
  () => {
    projected.advance(projector.position);
    send({ kind: 'started' });
  },
  (error: unknown) => send({ kind: 'failed', message: messageOf(error) }),
);
