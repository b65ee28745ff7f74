// The log's writer as transactional producers used in turn ("lanes"), one transactional id each: the log's id
// for lane 1, `<id>.2`, `<id>.3`, ... for the others.
//
// Why: a transaction's commit returns once the coordinator has decided it, and the coordinator then writes its
// markers. Until they are written, the same transactional id's next transaction is refused
// (CONCURRENT_TRANSACTIONS) and retried a millisecond later, so back to back appends on one id paid about 1 ms
// and a wasted request each (about 6 in 7 of them, on a local broker). The next lane's id is free: appends
// there go through at once (bench:cluster, docs/benchmarks.md).
//
// Contract: the same as one TransactionalWriter (kafkaWriter.ts), which the log relies on:
// - Writes never overlap (the log makes one at a time), so at most one transaction is open, and a write's
//   records follow the previous write's in the partition. A reader sees them in that order: a read_committed
//   fetch stops at the first transaction still being committed.
// - init() takes every lane's id, in lane order, fencing every earlier holder and settling (completing or
//   aborting) any transaction it left; once it returns, the topic's committed contents are settled.
// - The first write after init() always goes on lane 1. So of two writers, only the one that initialised lane
//   1 last can write at all: the other's first write there is fenced, and it stops for good (kafkaLog.ts). A
//   writer that loses a later lane to another writer is fenced at its first write there, and stops.
//   Two writers that start at the same moment can each take some lanes from the other; then both stop at
//   their first fenced write, and whatever was acknowledged before stays written exactly once.

import type { Kafka } from 'kafkajs';
import { TransactionalWriter, type WriterSpec } from './kafkaWriter.js';

/** Lanes of the engine's writer. Two suffice: a commit's markers are written before the second next append. */
export const WRITER_LANES = 2;

/** The transactional id of each lane, lane 1 first. */
export function laneIds(transactionalId: string, lanes: number = WRITER_LANES): string[] {
  if (!Number.isInteger(lanes) || lanes < 1) throw new RangeError(`the Kafka writer needs at least one lane, not ${lanes}`);
  return Array.from({ length: lanes }, (_, i) => (i === 0 ? transactionalId : `${transactionalId}.${i + 1}`));
}

export class WriterLanes {
  private readonly lanes: TransactionalWriter[];
  private next = 0;

  constructor(kafka: Kafka, spec: WriterSpec, lanes: number = WRITER_LANES) {
    this.lanes = laneIds(spec.transactionalId, lanes).map((transactionalId) => new TransactionalWriter(kafka, { ...spec, transactionalId }));
  }

  /** Takes every lane's transactional id over, in order (see the head of this file). */
  async init(): Promise<void> {
    this.next = 0;
    for (const lane of this.lanes) await lane.init();
  }

  /** Writes `values` in one transaction on the next lane; resolves with the offset of each value once committed. */
  write(values: readonly Buffer[], headers: readonly Record<string, string>[]): Promise<number[]> {
    const lane = this.lanes[this.next] as TransactionalWriter;
    this.next = (this.next + 1) % this.lanes.length;
    return lane.write(values, headers);
  }

  async close(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.close()));
  }
}
