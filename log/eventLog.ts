// The event log: the durable, ordered record of every command the engine applied and the events it
// produced. Two implementations: the embedded journal (journal/) and a Kafka topic (kafka/).
//
// Contract:
// - Records carry a position: 1, 2, 3, ... with no gaps. append() takes records in position order that
//   continue the log; it resolves only when every record is durable (journal: written and fsynced; Kafka:
//   acknowledged by all in-sync replicas), and rejects otherwise.
// - append() is idempotent by position: records at or below the last durable position are skipped, so a
//   retry after an ambiguous failure (the write landed but the call failed) never duplicates. After a
//   failure an implementation re-learns its last position from storage before it appends again.
// - read(from) yields the records from position `from` on, in order, then ends; follow() keeps yielding
//   records as they are appended until its signal aborts.

import type { Command, EngineEvent } from '../engine/index.js';

export interface LogRecord {
  /** Position in the log: 1, 2, 3, ... without gaps. */
  readonly pos: number;
  readonly command: Command;
  /** The events the engine produced for the command (checked on replay, consumed by projections). */
  readonly events: readonly EngineEvent[];
}

/**
 * A record without its events: its command, and the sequence number its events end at. A follower that applies
 * the command makes the events itself (the engine is deterministic) and checks it reaches that number: the
 * engine's records to its API nodes (cluster/commandWire.ts), and to its copy on the snapshot thread.
 */
export interface CommandRecord {
  readonly pos: number;
  readonly command: Command;
  /** The sequence number of the record's last event; null when the command produced none. */
  readonly seq: number | null;
}

/** The sequence number of the last of `events`; null when there are none. */
export function lastSeqOf(events: readonly EngineEvent[]): number | null {
  const last = events[events.length - 1];
  return last === undefined ? null : last.seq;
}

export function commandRecordOf(record: LogRecord): CommandRecord {
  return { pos: record.pos, command: record.command, seq: lastSeqOf(record.events) };
}

/** What the projections read of a record: its position and events (the command is not decoded). */
export type EventsRecord = Pick<LogRecord, 'pos' | 'events'>;

/** A record as a log stores it: its position and its encoded bytes (recordCodec.ts). */
export interface EncodedRecord {
  readonly pos: number;
  readonly bytes: Buffer;
}

export interface EventLog {
  /** Last durable position (0 for an empty log). */
  readonly lastPos: number;
  /** Makes `records` durable; resolves when they are. Skips records at or below lastPos. */
  append(records: readonly LogRecord[]): Promise<void>;
  /** Records from `from` (inclusive) up to the end of the log as it is now. */
  read(from: number): AsyncIterable<LogRecord>;
  /** Records from `from` on, waiting for new ones, until `signal` aborts. */
  follow(from: number, signal: AbortSignal): AsyncIterable<LogRecord>;
  close(): Promise<void>;
  /**
   * Settles now the appends that have become durable, rather than on a later event-loop turn (the journal:
   * appendThread.ts). Optional, cheap, and harmless to call at any time; a log without it settles appends on
   * its own.
   */
  poll?(): void;
}

/** A log that also hands out its records still encoded (the journal and Kafka do). */
export interface EncodedReads {
  /** Like read(), without decoding: a reader decodes only what it needs (recordCodec.ts). */
  readEncoded(from: number): AsyncIterable<EncodedRecord>;
}

/** A log that can also be followed with its records still encoded (Kafka). */
export interface EncodedFollow {
  /** Like follow(), without decoding: a follower decodes only the records it needs. */
  followEncoded(from: number, signal: AbortSignal): AsyncIterable<EncodedRecord>;
}

export function hasEncodedFollow(log: EventLog): log is EventLog & EncodedFollow {
  return typeof (log as Partial<EncodedFollow>).followEncoded === 'function';
}

export function hasEncodedReads(log: EventLog): log is EventLog & EncodedReads {
  return typeof (log as Partial<EncodedReads>).readEncoded === 'function';
}

/** An append that cannot succeed by retrying (fenced writer, corrupt storage, closed log). */
export class FatalLogError extends Error {
  override readonly name = 'FatalLogError';
  readonly retriable = false;
}

/** The log refuses to open: its contents are damaged in a way start-up must not paper over. */
export class LogCorruptError extends Error {
  override readonly name = 'LogCorruptError';
  readonly retriable = false;
  constructor(
    message: string,
    readonly file: string,
    readonly offset: number,
  ) {
    super(message);
  }
}
