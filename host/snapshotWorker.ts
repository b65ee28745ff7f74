// Worker side of snapshotThread.ts: makes engine snapshot files off the thread that runs the engine. Two ways:
// - 'file': from an export the engine's thread took (its JSON): only the state hash and the file are made here;
// - a follower: the thread keeps its own copy of the engine, seeded once from an export ('seed') and kept at the
//   engine's durable position by applying every durable record in order ('follow'; the engine is
//   deterministic, and each record's last event sequence number is checked, as replay does). A 'followed'
//   snapshot is then the export of that copy, taken here: the engine's thread pays for nothing but sending
//   the records. A copy that diverges, or that is asked for a position it does not hold, fails its snapshots
//   from then on (the store then makes them from the engine's own export).
// - a read model beside the follower (an API node's in-memory read model, projections/live): seeded once from
//   the bytes of its snapshot at the follower's position ('seedLive'), then sent the events the follower
//   reproduces for every record, so a 'followedLive' snapshot is made here too. It keeps what the snapshot
//   holds (markets, open orders, positions, marks, fills) and nothing the reads alone need (finished orders,
//   shown JSON). One that fails to apply a record fails its snapshots from then on.
// - the notifications beside the follower (projections/notifications): seeded once from their snapshot's bytes at
//   the follower's position ('seedNotes'), then sent the same events, so a 'followedNotes' snapshot is made here
//   and the thread that serves the notifications never serialises them (hundreds of ms with 100,000 open orders
//   and as many notifications kept). The same rules as the read model's.
// Jobs run in the order sent; an export is taken when its message arrives, so it is at exactly the records
// applied before it. Files are written one at a time, in order.

import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parentPort } from 'node:worker_threads';
import { exportSnapshot, restoreSnapshot, type Engine, type EngineSnapshot } from '../engine/index.js';
import { writeFileDurably } from '../log/durableFile.js';
import { lastSeqOf, type CommandRecord } from '../log/eventLog.js';
import { nameThisThread } from '../threads/threadName.js';
import { answerHeapQueries } from '../threads/threadHeaps.js';
import { niceThisThread } from '../threads/threadNice.js';
import { snapshotFileText, snapshotText } from './snapshotText.js';
import { LiveState, type LiveStateOptions } from '../projections/live/liveState.js';
import { readSnapshot as readLiveSnapshot, restoreSnapshot as restoreLiveSnapshot, snapshotBytes as liveSnapshotBytes } from '../projections/live/liveSnapshot.js';
import type { NotificationState, NotificationStateOptions } from '../projections/notifications/notificationState.js';
import { readSnapshot as readNotesSnapshot, restoreSnapshot as restoreNotesSnapshot, snapshotBytes as notesSnapshotBytes } from '../projections/notifications/notificationSnapshots.js';

/** How much lower than the process the snapshot thread runs (nice value added). */
const SNAPSHOT_THREAD_NICE = 10;

export type SnapshotJob =
  /** The snapshot file of an export at `pos` (JSON of exportSnapshot). */
  | { readonly kind: 'file'; readonly id: number; readonly path: string; readonly pos: number; readonly engineJson: string }
  /** Start (or start again) the follower from an export at `pos`. */
  | { readonly kind: 'seed'; readonly id: number; readonly pos: number; readonly engineJson: string }
  /** Durable records, in order, continuing the follower's position. */
  | { readonly kind: 'follow'; readonly records: readonly CommandRecord[] }
  /** The snapshot file of the follower, which must be at `pos`. */
  | { readonly kind: 'followed'; readonly id: number; readonly path: string; readonly pos: number }
  /**
   * Start (or start again) the read model beside the follower, from its snapshot's bytes (liveSnapshot.ts) at
   * `pos`, where the follower must be; the same bytes are written to `path`.
   */
  | { readonly kind: 'seedLive'; readonly id: number; readonly path: string; readonly pos: number; readonly bytes: Uint8Array; readonly options: LiveStateOptions }
  /** The read model's snapshot file; it must be at `pos`. */
  | { readonly kind: 'followedLive'; readonly id: number; readonly path: string; readonly pos: number }
  /** As seedLive, for the notifications (notificationSnapshots.ts). */
  | { readonly kind: 'seedNotes'; readonly id: number; readonly path: string; readonly pos: number; readonly bytes: Uint8Array; readonly options: NotificationStateOptions }
  /** The notifications' snapshot file; they must be at `pos`. */
  | { readonly kind: 'followedNotes'; readonly id: number; readonly path: string; readonly pos: number };

export type SnapshotReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'done'; readonly id: number; readonly stateHash: string }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string };

if (parentPort === null) throw new Error('snapshotWorker runs as a worker thread');
const port = parentPort;
nameThisThread('pmx-snapshots');
answerHeapQueries('pmx-snapshots');
// Its exports take seconds of CPU with many resting orders: below the order path's threads, which preempt it.
niceThisThread(SNAPSHOT_THREAD_NICE);

let follower: { engine: Engine; pos: number } | undefined;
/** Why the follower cannot be used (it diverged, or was never seeded). */
let broken: string | undefined = 'no follower was seeded';

/** The read model beside the follower, at the follower's position while it holds. */
let live: LiveState | undefined;
/** Why the read model cannot be used. */
let liveBroken: string | undefined = 'no read model was seeded';

/** The notifications beside the follower, at the follower's position while they hold. */
let notes: NotificationState | undefined;
/** Why the notifications cannot be used. */
let notesBroken: string | undefined = 'no notifications were seeded';

function follow(records: readonly CommandRecord[]): void {
  if (follower === undefined || broken !== undefined) return;
  for (const record of records) {
    if (record.pos !== follower.pos + 1) {
      broken = `the follower at position ${follower.pos} was sent position ${record.pos}`;
      return;
    }
    const events = follower.engine.apply(record.command);
    const produced = lastSeqOf(events) ?? follower.engine.seq;
    if (record.seq !== null && produced !== record.seq) {
      broken = `the follower diverged at log position ${record.pos}: it reached event ${produced}, the log recorded ${record.seq}`;
      return;
    }
    follower.pos = record.pos;
    if (live !== undefined) {
      try {
        live.apply({ pos: record.pos, events });
      } catch (error) {
        live = undefined;
        liveBroken = `the read model failed at log position ${record.pos}: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
    if (notes !== undefined) {
      try {
        if (notes.pos !== record.pos - 1) throw new Error(`they are at position ${notes.pos}`);
        notes.apply({ pos: record.pos, events });
      } catch (error) {
        notes = undefined;
        notesBroken = `the notifications failed at log position ${record.pos}: ${error instanceof Error ? error.message : String(error)}`;
      }
    }
  }
}

let files = Promise.resolve();
/** Writes a file after the ones before it; answers the job. */
function writeInTurn(id: number, make: () => { data: string | Uint8Array; stateHash: string }, path: string): void {
  files = files.then(async () => {
    try {
      const { data, stateHash } = make();
      await mkdir(dirname(path), { recursive: true });
      await writeFileDurably(path, data);
      port.postMessage({ kind: 'done', id, stateHash } satisfies SnapshotReply);
    } catch (error) {
      port.postMessage({ kind: 'failed', id, message: error instanceof Error ? error.message : String(error) } satisfies SnapshotReply);
    }
  });
}

port.on('message', (job: SnapshotJob) => {
  switch (job.kind) {
    case 'file':
      writeInTurn(job.id, () => {
        const { text, stateHash } = snapshotText(job.pos, job.engineJson);
        return { data: text, stateHash };
      }, job.path);
      return;
    case 'seed': {
      try {
        live = undefined;
        liveBroken = 'the follower was seeded again';
        notes = undefined;
        notesBroken = 'the follower was seeded again';
        follower = { engine: restoreSnapshot(JSON.parse(job.engineJson) as EngineSnapshot), pos: job.pos };
        broken = undefined;
        port.postMessage({ kind: 'done', id: job.id, stateHash: follower.engine.stateHash() } satisfies SnapshotReply);
      } catch (error) {
        follower = undefined;
        broken = `seeding the follower failed: ${error instanceof Error ? error.message : String(error)}`;
        port.postMessage({ kind: 'failed', id: job.id, message: broken } satisfies SnapshotReply);
      }
      return;
    }
    case 'follow':
      follow(job.records);
      return;
    case 'followed': {
      if (follower === undefined || broken !== undefined || follower.pos !== job.pos) {
        const why = broken ?? `the follower is at position ${follower?.pos ?? 0}, not ${job.pos}`;
        port.postMessage({ kind: 'failed', id: job.id, message: `no snapshot from the follower: ${why}` } satisfies SnapshotReply);
        return;
      }
      // Taken now, at exactly this position; the hash and the text when its turn to be written comes.
      const engine = follower.engine;
      const engineJson = JSON.stringify(exportSnapshot(engine));
      const stateHash = engine.stateHash();
      writeInTurn(job.id, () => ({ data: snapshotFileText(job.pos, stateHash, engineJson), stateHash }), job.path);
      return;
    }
    case 'seedLive': {
      live = undefined;
      try {
        if (follower === undefined || broken !== undefined || follower.pos !== job.pos) {
          throw new Error(broken ?? `the follower is at position ${follower?.pos ?? 0}, not ${job.pos}`);
        }
        const snapshot = readLiveSnapshot(Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength));
        if (snapshot.pos !== job.pos) throw new Error(`the read model's snapshot is at position ${snapshot.pos}, not ${job.pos}`);
        // Only what its snapshot holds: no finished orders, no shown JSON.
        const state = new LiveState({ ...job.options, maxFinishedOrders: 0, maxShownJson: 0 });
        restoreLiveSnapshot(snapshot, state);
        live = state;
        liveBroken = undefined;
      } catch (error) {
        liveBroken = `seeding the read model failed: ${error instanceof Error ? error.message : String(error)}`;
        port.postMessage({ kind: 'failed', id: job.id, message: liveBroken } satisfies SnapshotReply);
        return;
      }
      writeInTurn(job.id, () => ({ data: job.bytes, stateHash: '' }), job.path);
      return;
    }
    case 'followedLive': {
      if (live === undefined || liveBroken !== undefined || live.pos !== job.pos) {
        const why = liveBroken ?? `the read model is at position ${live?.pos ?? 0}, not ${job.pos}`;
        port.postMessage({ kind: 'failed', id: job.id, message: `no snapshot of the read model: ${why}` } satisfies SnapshotReply);
        return;
      }
      // Taken now, at exactly this position.
      const bytes = liveSnapshotBytes(live);
      writeInTurn(job.id, () => ({ data: bytes, stateHash: '' }), job.path);
      return;
    }
    case 'seedNotes': {
      notes = undefined;
      try {
        if (follower === undefined || broken !== undefined || follower.pos !== job.pos) {
          throw new Error(broken ?? `the follower is at position ${follower?.pos ?? 0}, not ${job.pos}`);
        }
        const snapshot = readNotesSnapshot(Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.byteLength));
        if (snapshot.pos !== job.pos) throw new Error(`the notifications' snapshot is at position ${snapshot.pos}, not ${job.pos}`);
        notes = restoreNotesSnapshot(snapshot, job.options);
        notesBroken = undefined;
      } catch (error) {
        notesBroken = `seeding the notifications failed: ${error instanceof Error ? error.message : String(error)}`;
        port.postMessage({ kind: 'failed', id: job.id, message: notesBroken } satisfies SnapshotReply);
        return;
      }
      writeInTurn(job.id, () => ({ data: job.bytes, stateHash: '' }), job.path);
      return;
    }
    case 'followedNotes': {
      if (notes === undefined || notesBroken !== undefined || notes.pos !== job.pos) {
        const why = notesBroken ?? `the notifications are at position ${notes?.pos ?? 0}, not ${job.pos}`;
        port.postMessage({ kind: 'failed', id: job.id, message: `no snapshot of the notifications: ${why}` } satisfies SnapshotReply);
        return;
      }
      // Taken now, at exactly this position.
      const bytes = notesSnapshotBytes(notes);
      writeInTurn(job.id, () => ({ data: bytes, stateHash: '' }), job.path);
    }
  }
});

// Loaded and listening: the thread can take jobs.
port.postMessage({ kind: 'ready' } satisfies SnapshotReply);
