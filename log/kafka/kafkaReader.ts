// Reading records by position from the log's topic.
//
// Finding where position `from` starts: offsets are not positions, but every position takes at least one
// offset, so a record at offset o with position q < from proves that `from` is at offset o + (from - q) or
// later. The reader starts at the best lower bound it knows (the offset index, or from - 1) and, whenever a
// fetched record shows `from` is further on than the fetch reaches, seeks forward to the new bound. Each jump
// skips every record position left to go, so it leaves only the offsets taken by transaction markers and
// aborted writes in between: a few round trips even with one marker per record, never a scan from offset 0.
//
// Positions must follow each other without gaps: a record after a missing position is LogCorruptError.

import type { Admin, Kafka } from 'kafkajs';
import type { EncodedRecord, LogRecord } from '../eventLog.js';
import { LogCorruptError } from '../eventLog.js';
import { UnknownRecordVersionError, decodeRecord, positionOf } from '../recordCodec.js';
import { topicBounds } from './kafkaTopic.js';
import type { OffsetIndex } from './offsetIndex.js';
import { PartitionStream, type RawRecord } from './partitionStream.js';

export interface ReadSource {
  readonly kafka: Kafka;
  readonly admin: Admin;
  readonly topic: string;
  readonly groupPrefix: string;
  readonly fetchWaitMs: number;
  readonly stallMs: number;
  readonly index: OffsetIndex;
  /** Streams being read, so that closing the log can close them even while a caller holds an iterator. */
  readonly streams: Set<PartitionStream>;
}

export type ReadMode =
  /** Up to the topic's end as of now, and at least up to `lastPos` (this process's own durable records). */
  | { readonly kind: 'read'; readonly lastPos: number; readonly signal: AbortSignal }
  /** Without end, until `signal` aborts. */
  | { readonly kind: 'follow'; readonly signal: AbortSignal };

function where(topic: string): string {
  return `Kafka topic ${topic} partition 0`;
}

/** Decodes with `decodeRecord` or `positionOf`, naming the offset of a record that cannot be decoded. */
function decode<T>(source: ReadSource, raw: RawRecord, how: (bytes: Buffer) => T): T {
  try {
    return how(raw.value);
  } catch (error) {
    if (error instanceof UnknownRecordVersionError) throw error;
    throw new LogCorruptError(`${where(source.topic)}: undecodable record at offset ${raw.offset}: ${(error as Error).message}`, where(source.topic), raw.offset);
  }
}

async function openStream(source: ReadSource, start: number): Promise<PartitionStream> {
  const stream = await PartitionStream.open(source.kafka, source.topic, start, { groupPrefix: source.groupPrefix, fetchWaitMs: source.fetchWaitMs });
  source.streams.add(stream);
  return stream;
}

async function closeStream(source: ReadSource, stream: PartitionStream): Promise<void> {
  source.streams.delete(stream);
  await stream.close();
}

/** Thrown inside readRecords when a start offset from the index turned out to be past `from`. */
class BadStart extends Error {}


/** Records from `from` on, decoded. */
export function readRecords(source: ReadSource, from: number, mode: ReadMode): AsyncGenerator<LogRecord> {
  return readFromPosition(source, from, mode, (raw) => decode(source, raw, decodeRecord));
}

/** Records from `from` on, still encoded (replay parses only the command: decodeCommand). */
export function readEncodedRecords(source: ReadSource, from: number, mode: ReadMode): AsyncGenerator<EncodedRecord> {
  return readFromPosition(source, from, mode, (raw, pos) => ({ pos, bytes: raw.value }));
}

type Decoder<T> = (raw: RawRecord, pos: number) => T;

async function* readFromPosition<T>(source: ReadSource, from: number, mode: ReadMode, as: Decoder<T>): AsyncGenerator<T> {
  const first = Math.max(1, from);
  const { low, end } = await topicBounds(source.admin, source.topic);
  const plain = Math.max(low, first - 1);
  const indexed = Math.max(plain, source.index.lowerBound(first));
  try {
    yield* readFrom(source, first, indexed, indexed > plain, end, mode, as);
  } catch (error) {
    if (!(error instanceof BadStart)) throw error;
    // The hint was wrong (for example a snapshot's offset from another topic): search without it.
    yield* readFrom(source, first, plain, false, end, mode, as);
  }
}

async function* readFrom<T>(source: ReadSource, first: number, start: number, hinted: boolean, end: number, mode: ReadMode, as: Decoder<T>): AsyncGenerator<T> {
  let expected = first;
  const finished = (position: number): boolean => mode.kind === 'read' && position >= end && expected > mode.lastPos;
  if (finished(start)) return;
  const stream = await openStream(source, start);
  try {
    let seen = false;
    for (;;) {
      if (finished(stream.position)) return;
      const chunk = await stream.next(mode.signal, mode.kind === 'read' ? source.stallMs : undefined);
      if (chunk === null) {
        if (mode.kind === 'read') throw new Error(`reading ${where(source.topic)} was interrupted: the log is closing`);
        return;
      }
      let jump = 0;
      for (const raw of chunk.records) {
        const pos = decode(source, raw, positionOf);
        if (pos < expected) {
          jump = Math.max(jump, raw.offset + (expected - pos));
          seen = true;
          continue;
        }
        if (pos > expected) {
          if (!seen && hinted) throw new BadStart();
          const what = expected === first && !seen ? `position ${expected} is not in the topic (its first stored record is at position ${pos})` : `position ${pos} follows position ${expected - 1}`;
          throw new LogCorruptError(`${where(source.topic)}: ${what}, at offset ${raw.offset}`, where(source.topic), raw.offset);
        }
        seen = true;
        const record = as(raw, pos);
        source.index.add(pos, raw.offset);
        expected++;
        yield record;
      }
      stream.seek(jump);
    }
  } finally {
    await closeStream(source, stream);
  }
}

export interface TailRecord {
  readonly pos: number;
  readonly offset: number;
  readonly value: Buffer;
}

/** The last committed record of the topic (null when it holds none): read the last few offsets to the end. */
export async function readTail(source: ReadSource): Promise<TailRecord | null> {
  const { low, end } = await topicBounds(source.admin, source.topic);
  if (end <= low) return null;
  // Usually the last record is 1 or 2 offsets before the end (a commit marker after it); widen the window when
  // the end is all markers and aborted writes.
  for (let window = 64; ; window *= 16) {
    const start = Math.max(low, end - window);
    const stream = await openStream(source, start);
    let last: RawRecord | null = null;
    try {
      while (stream.position < end) {
        const chunk = await stream.next(undefined, source.stallMs);
        if (chunk === null) throw new Error(`reading ${where(source.topic)} was interrupted: the log is closing`);
        for (const raw of chunk.records) if (raw.offset < end) last = raw;
      }
    } finally {
      await closeStream(source, stream);
    }
    if (last !== null) {
      const pos = decode(source, last, positionOf);
      source.index.add(pos, last.offset);
      return { pos, offset: last.offset, value: last.value };
    }
    if (start === low) return null;
  }
}
