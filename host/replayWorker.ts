// Worker side of the replay pipeline: reads journal segments, checks every frame, and sends each record's
// position and command bytes to the main thread in batches (transferred, not copied). The main thread only
// parses and applies commands, so reading, checksumming and applying overlap on two cores. A batch is sent
// only when the main thread has granted credit, so the worker never runs far ahead.

import { parentPort, workerData } from 'node:worker_threads';
import { readSegmentRecords } from '../log/journal/segmentReader.js';
import { RECORD_VERSION } from '../log/recordCodec.js';
import type { Segment } from '../log/journal/segments.js';

export interface ReplayWorkerInput {
  readonly segments: readonly Segment[];
  readonly from: number;
  readonly until: number;
  readonly tailBytes: number;
}

export type ReplayWorkerMessage =
  | { readonly kind: 'batch'; readonly buffer: ArrayBuffer; readonly length: number }
  | { readonly kind: 'done' }
  | { readonly kind: 'error'; readonly name: string; readonly message: string; readonly file?: string; readonly offset?: number; readonly version?: number };

const BATCH_BYTES = 1 << 20;
const port = parentPort;
if (port === null) throw new Error('replayWorker runs as a worker thread');

let credit = 0;
let wake: (() => void) | null = null;
port.on('message', (m: { credit: number }) => {
  credit += m.credit;
  wake?.();
});

/** A batch buffer over an ArrayBuffer of its own, so it can be transferred whole. */
function newBatch(bytes: number): { readonly memory: ArrayBuffer; readonly buf: Buffer } {
  const memory = new ArrayBuffer(bytes);
  return { memory, buf: Buffer.from(memory) };
}

async function send(memory: ArrayBuffer, length: number): Promise<void> {
  while (credit === 0) await new Promise<void>((resolve) => (wake = resolve));
  credit -= 1;
  port?.postMessage({ kind: 'batch', buffer: memory, length } satisfies ReplayWorkerMessage, [memory]);
}

async function main(input: ReplayWorkerInput): Promise<void> {
  // Batch layout: repeated [f64 position][u32 command length][command JSON bytes].
  let batch = newBatch(BATCH_BYTES);
  let used = 0;
  for await (const { pos, bytes } of readSegmentRecords({ ...input, chunkBytes: 4 << 20 })) {
    const version = bytes.readUInt8(0);
    if (version !== RECORD_VERSION) {
      port?.postMessage({ kind: 'error', name: 'UnknownRecordVersionError', message: `record version ${version}`, version } satisfies ReplayWorkerMessage);
      return;
    }
    const length = bytes.readUInt32BE(9);
    const need = 12 + length;
    if (used + need > batch.buf.length) {
      if (used > 0) await send(batch.memory, used);
      batch = newBatch(Math.max(BATCH_BYTES, need));
      used = 0;
    }
    batch.buf.writeDoubleBE(pos, used);
    batch.buf.writeUInt32BE(length, used + 8);
    bytes.copy(batch.buf, used + 12, 13, 13 + length);
    used += need;
  }
  if (used > 0) await send(batch.memory, used);
  port?.postMessage({ kind: 'done' } satisfies ReplayWorkerMessage);
}

main(workerData as ReplayWorkerInput).catch((error: unknown) => {
  const e = error as { name?: string; message?: string; file?: string; offset?: number };
  port.postMessage({ kind: 'error', name: e.name ?? 'Error', message: e.message ?? String(error), file: e.file, offset: e.offset } satisfies ReplayWorkerMessage);
});
