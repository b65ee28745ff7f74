// Main side of the replay pipeline (see replayWorker.ts): yields the journal's commands from a position on,
// in batches, parsed here from the command bytes the worker read and checked. Errors the worker met (a
// corrupt frame, an unknown record version) are raised here with their file and offset.

import { moduleWorker } from '../threads/moduleWorker.js';
import type { Command } from '../engine/index.js';
import { LogCorruptError } from '../log/eventLog.js';
import { UnknownRecordVersionError } from '../log/recordCodec.js';
import type { Journal } from '../log/journal/journal.js';
import type { ReplayWorkerInput, ReplayWorkerMessage } from './replayWorker.js';

const CREDIT = 4;

/** The reader thread could not start (e.g. run from TypeScript source without a loader for workers). */
export class PipelineUnavailableError extends Error {
  override readonly name = 'PipelineUnavailableError';
}

export async function* pipelinedCommands(journal: Journal, from: number): AsyncGenerator<{ pos: number; command: Command }[]> {
  const plan = journal.readPlan();
  const input: ReplayWorkerInput = { segments: plan.segments, from, until: plan.lastPos, tailBytes: plan.tailBytes };
  const worker = moduleWorker(import.meta.url, 'replayWorker', { workerData: input });
  const queue: ReplayWorkerMessage[] = [];
  let notify: (() => void) | null = null;
  let failure: Error | null = null;
  worker.on('message', (m: ReplayWorkerMessage) => {
    queue.push(m);
    notify?.();
  });
  let heard = false;
  worker.on('error', (error) => {
    failure = heard ? error : new PipelineUnavailableError(`replay reader thread did not start: ${error.message}`);
    notify?.();
  });
  worker.postMessage({ credit: CREDIT });
  try {
    for (;;) {
      while (queue.length === 0 && failure === null) await new Promise<void>((resolve) => (notify = resolve));
      if (failure !== null) throw failure;
      const m = queue.shift() as ReplayWorkerMessage;
      heard = true;
      if (m.kind === 'done') return;
      if (m.kind === 'error') {
        if (m.name === 'LogCorruptError') throw new LogCorruptError(m.message, m.file ?? '', m.offset ?? 0);
        if (m.name === 'UnknownRecordVersionError') throw new UnknownRecordVersionError(m.version ?? -1);
        throw new Error(`replay reader: ${m.message}`);
      }
      worker.postMessage({ credit: 1 });
      const buf = Buffer.from(m.buffer, 0, m.length);
      const out: { pos: number; command: Command }[] = [];
      for (let at = 0; at < m.length; ) {
        const pos = buf.readDoubleBE(at);
        const length = buf.readUInt32BE(at + 8);
        out.push({ pos, command: JSON.parse(buf.toString('utf8', at + 12, at + 12 + length)) as Command });
        at += 12 + length;
      }
      yield out;
    }
  } finally {
    await worker.terminate();
  }
}
