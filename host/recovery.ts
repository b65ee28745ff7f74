// Restart = the latest valid snapshot + replay of the log after it. The state hash of the restored snapshot
// must equal the one recorded with it, else start-up is refused; replay re-applies each logged command and
// checks that the engine produces the event sequence numbers the log recorded (a cheap proof that replay
// follows the original path). Progress is reported on long logs.

import { Engine, restoreSnapshot, type EngineConfig } from '../engine/index.js';
import { hasEncodedReads, lastSeqOf, type EventLog } from '../log/eventLog.js';
import { decodeCommand } from '../log/recordCodec.js';
import { Journal } from '../log/journal/journal.js';
import { PipelineUnavailableError, pipelinedCommands } from './replayPipeline.js';
import type { SnapshotStore } from './snapshotStore.js';

export class RecoveryError extends Error {
  override readonly name = 'RecoveryError';
  readonly retriable = false;
}

export interface RecoveryProgress {
  readonly pos: number;
  readonly lastPos: number;
  readonly elapsedMs: number;
}

export interface RecoveryResult {
  readonly engine: Engine;
  /** Last log position applied. */
  readonly pos: number;
  readonly snapshotPos: number;
  readonly replayed: number;
  readonly skippedSnapshots: string[];
}

export interface RecoveryOptions {
  readonly engineConfig: EngineConfig;
  /** The key of the engine's order-id hash (Engine options): random per process in the service; default 0. */
  readonly idHashKey?: number;
  readonly onProgress?: (progress: RecoveryProgress) => void;
  /** Report progress every this many records (default 100,000). */
  readonly progressEvery?: number;
  /** Clock for progress reports only. */
  readonly now?: () => number;
  /** Replay a journal with a reader thread (default true); false reads and applies on this thread. */
  readonly pipelined?: boolean;
}

export async function recover(log: EventLog, store: SnapshotStore | undefined, options: RecoveryOptions): Promise<RecoveryResult> {
  const now = options.now ?? Date.now;
  const started = now();
  const lastPos = log.lastPos;
  const { snapshot, skipped } = store === undefined ? { snapshot: undefined, skipped: [] } : await store.latest(lastPos);
  let engine: Engine;
  let pos = 0;
  if (snapshot !== undefined) {
    engine = restoreSnapshot(snapshot.engine, undefined, { idHashKey: options.idHashKey });
    const hash = engine.stateHash();
    if (hash !== snapshot.stateHash) {
      throw new RecoveryError(`snapshot at log position ${snapshot.pos} restores to state hash ${hash}, but ${snapshot.stateHash} was recorded with it; refusing to start`);
    }
    pos = snapshot.pos;
  } else {
    engine = new Engine(options.engineConfig, undefined, { idHashKey: options.idHashKey });
  }
  const snapshotPos = pos;
  const every = options.progressEvery ?? 100_000;
  const apply = (recordPos: number, command: Parameters<Engine['apply']>[0], lastSeq: number | undefined): void => {
    if (recordPos !== pos + 1) throw new RecoveryError(`log position ${recordPos} follows ${pos}: the log has a gap`);
    const events = engine.apply(command);
    const produced = lastSeqOf(events) ?? engine.seq;
    if (lastSeq !== undefined && produced !== lastSeq) {
      throw new RecoveryError(`replay diverged at log position ${recordPos}: the engine reached event ${produced}, the log recorded ${lastSeq}`);
    }
    pos = recordPos;
    if (options.onProgress !== undefined && (pos - snapshotPos) % every === 0) options.onProgress({ pos, lastPos, elapsedMs: now() - started });
  };
  // Replays up to lastPos, the end taken at the start, and no further: a log that another process appends to
  // (an API node's Kafka log, while the engine runs) may have grown by the time it is read, and the caller
  // follows on from the position returned.
  const replayOnThisThread = async (): Promise<void> => {
    if (hasEncodedReads(log)) {
      for await (const { bytes } of log.readEncoded(pos + 1)) {
        if (pos >= lastPos) break;
        const { pos: recordPos, command } = decodeCommand(bytes);
        apply(recordPos, command, undefined);
      }
    } else {
      for await (const record of log.read(pos + 1)) {
        if (pos >= lastPos) break;
        const last = record.events[record.events.length - 1];
        apply(record.pos, record.command, last?.seq);
      }
    }
  };
  if (log instanceof Journal && options.pipelined !== false) {
    try {
      for await (const batch of pipelinedCommands(log, pos + 1)) for (const { pos: recordPos, command } of batch) apply(recordPos, command, undefined);
    } catch (error) {
      // Nothing was applied when the reader thread could not start: read on this thread instead.
      if (!(error instanceof PipelineUnavailableError)) throw error;
      await replayOnThisThread();
    }
  } else {
    await replayOnThisThread();
  }
  if (pos !== lastPos) throw new RecoveryError(`replay ended at position ${pos} but the log ends at ${lastPos}`);
  options.onProgress?.({ pos, lastPos, elapsedMs: now() - started });
  return { engine, pos, snapshotPos, replayed: pos - snapshotPos, skippedSnapshots: skipped };
}
