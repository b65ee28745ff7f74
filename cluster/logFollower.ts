// A replica of the engine that follows the log: the state an API node serves its reads from. The engine is
// deterministic, so applying each logged command in order reproduces the engine's state at every position;
// each record's event sequence is checked against what the log recorded (as recovery does), and a replica
// that diverges stops for good rather than serve a state the engine never had.
//
// Each record, once applied, is handed to the consumers (the in-memory read model, the WebSocket publisher)
// with the replica at exactly that record's position, as the engine host's onDurable hands its batches over,
// with the events the replica produced (the engine sends records without their events: commandWire.ts).
//
// Two sources, one order: the engine sends each durable batch to its connected nodes (offer(), normally the
// first to arrive), and the follower reads the log itself (Kafka) for whatever it was not sent. A record is
// applied only at the position right after the replica's: from whichever source has it first; the other
// source's copy is skipped by position (Kafka's still encoded, so a skipped record costs no decoding).
// The log is read only while the replica needs it: from start-up until the engine's records overtake it,
// and again from the replica's position whenever they leave a gap (a reconnection: needLog()).

import type { Command, Engine, EngineEvent } from '../engine/index.js';
import { hasEncodedFollow, lastSeqOf, type CommandRecord, type EventLog, type LogRecord } from '../log/eventLog.js';
import { decodeRecord } from '../log/recordCodec.js';

export class ReplicaDivergedError extends Error {
  override readonly name = 'ReplicaDivergedError';
  readonly retriable = false;
}

export interface LogFollowerOptions {
  /** Records applied to the replica, in order, with the replica at the last one's position. Must not throw. */
  readonly onRecords: (records: readonly LogRecord[]) => void;
  /** The follower stopped for good (a record failed to apply, or the log failed). */
  readonly onFailure: (error: Error) => void;
}

export class LogFollower {
  private pos: number;
  private failure: Error | undefined;
  private readonly stop = new AbortController();
  private running: Promise<void> | undefined;
  /** Ends the current read of the log (the engine's records have overtaken it). */
  private reading: AbortController | undefined;
  /** Reads of the log started: one at start-up, one per gap since. */
  logReads = 0;
  private waiters: { pos: number; resolve: () => void; reject: (error: Error) => void }[] = [];
  /** Time (ms, this process's clock) the last record was applied. */
  lastAppliedAt = 0;

  constructor(
    private readonly log: EventLog,
    readonly engine: Engine,
    /** The log position `engine` holds now. */
    pos: number,
    private readonly options: LogFollowerOptions,
  ) {
    this.pos = pos;
  }

  get position(): number {
    return this.pos;
  }

  get failed(): Error | undefined {
    return this.failure;
  }

  start(): void {
    this.needLog();
  }

  /** Reads the log from the replica's position on, unless a read is running (a gap, or no engine connection). */
  needLog(): void {
    if (this.reading !== undefined || this.stop.signal.aborted || this.failure !== undefined) return;
    const reading = new AbortController();
    this.reading = reading;
    this.logReads++;
    const run = this.follow(AbortSignal.any([this.stop.signal, reading.signal])).finally(() => {
      if (this.reading === reading) this.reading = undefined;
    });
    this.running = Promise.all([this.running, run]).then(() => undefined);
  }

  /** Resolves once the replica holds position `pos`; rejects after `timeoutMs` or when the follower fails. */
  waitFor(pos: number, timeoutMs: number): Promise<void> {
    if (this.pos >= pos) return Promise.resolve();
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        pos,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`this node's replica of the engine did not reach log position ${pos} within ${timeoutMs} ms (it holds ${this.pos})`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Durable records sent by the engine: applied when they continue the replica, else left to the log. */
  offer(records: readonly CommandRecord[]): void {
    if (this.failure !== undefined) return;
    let from = 0;
    while (from < records.length && (records[from] as CommandRecord).pos <= this.pos) from++;
    if (from === records.length) return;
    if ((records[from] as CommandRecord).pos !== this.pos + 1) {
      // A gap: the log has what the engine did not send.
      this.needLog();
      return;
    }
    const applied: LogRecord[] = [];
    try {
      for (let i = from; i < records.length; i++) {
        const r = records[i] as CommandRecord;
        applied.push({ pos: r.pos, command: r.command, events: this.apply(r.pos, r.command, r.seq) });
      }
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.options.onRecords(applied);
    this.settle();
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.running;
  }

  /** Reads the log until `signal` aborts, or until the engine's records overtake it (then it ends itself). */
  private async follow(signal: AbortSignal): Promise<void> {
    const overtaken = (pos: number): boolean => {
      if (pos > this.pos) return false;
      // Cleared at once, not when this read has wound down: a gap from now on starts a new read.
      const reading = this.reading;
      this.reading = undefined;
      reading?.abort();
      return true;
    };
    try {
      if (hasEncodedFollow(this.log)) {
        for await (const encoded of this.log.followEncoded(this.pos + 1, signal)) {
          if (overtaken(encoded.pos)) return;
          if (encoded.pos === this.pos + 1) this.take(decodeRecord(encoded.bytes));
        }
      } else {
        for await (const record of this.log.follow(this.pos + 1, signal)) {
          if (overtaken(record.pos)) return;
          if (record.pos === this.pos + 1) this.take(record);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      this.fail(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private take(record: LogRecord): void {
    this.apply(record.pos, record.command, lastSeqOf(record.events));
    this.options.onRecords([record]);
    this.settle();
  }

  /**
   * Applies the command logged at `pos` to the replica; returns the events it produced. `recordedSeq`: the
   * sequence number of the last event the log recorded for it (null when none).
   */
  private apply(pos: number, command: Command, recordedSeq: number | null): EngineEvent[] {
    if (pos !== this.pos + 1) throw new ReplicaDivergedError(`log position ${pos} follows ${this.pos}: the log has a gap`);
    const events = this.engine.apply(command);
    const produced = lastSeqOf(events) ?? this.engine.seq;
    if (recordedSeq !== null && produced !== recordedSeq) {
      throw new ReplicaDivergedError(`the replica diverged at log position ${pos}: it reached event ${produced}, the log recorded ${recordedSeq}`);
    }
    this.pos = pos;
    this.lastAppliedAt = Date.now();
    return events;
  }

  private settle(): void {
    if (this.waiters.length === 0) return;
    const due = this.waiters.filter((w) => w.pos <= this.pos);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.pos > this.pos);
    for (const w of due) w.resolve();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.options.onFailure(error);
    for (const w of this.waiters) w.reject(error);
    this.waiters = [];
  }
}
