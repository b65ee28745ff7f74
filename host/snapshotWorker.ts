// Worker side of snapshotThread.ts: turns an engine's exported state into its snapshot file (snapshotText.ts),
// off the thread that runs the engine, which then pays only for the export and its JSON, not for the state hash
// (tens of ms with tens of thousands of resting orders). Jobs are done one at a time, in the order sent.

import { parentPort } from 'node:worker_threads';
import { writeFileDurably } from '../log/durableFile.js';
import { nameThisThread } from '../server/threadName.js';
import { snapshotText } from './snapshotText.js';

export interface SnapshotJob {
  readonly id: number;
  readonly path: string;
  /** Last log position the export includes. */
  readonly pos: number;
  /** JSON of exportSnapshot(engine) at that position. */
  readonly engineJson: string;
}

export type SnapshotReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'done'; readonly id: number; readonly stateHash: string }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string };

if (parentPort === null) throw new Error('snapshotWorker runs as a worker thread');
const port = parentPort;
nameThisThread('pmx-snapshots');

let queue = Promise.resolve();
port.on('message', (job: SnapshotJob) => {
  queue = queue.then(async () => {
    try {
      const { text, stateHash } = snapshotText(job.pos, job.engineJson);
      await writeFileDurably(job.path, text);
      port.postMessage({ kind: 'done', id: job.id, stateHash } satisfies SnapshotReply);
    } catch (error) {
      port.postMessage({ kind: 'failed', id: job.id, message: error instanceof Error ? error.message : String(error) } satisfies SnapshotReply);
    }
  });
});
// Loaded and listening: the thread can take jobs.
port.postMessage({ kind: 'ready' } satisfies SnapshotReply);
