// The event log on a Kafka topic (see eventLog.ts for the contract).
//
// - One partition, so the order is total. Each record is one Kafka message: the value is the encoded record
//   (recordCodec.ts, which carries the position), with the position also in a `pos` header for tools.
// - One writer: a writer opens by initialising its transactional producers (writerLanes.ts: two, used in turn,
//   over kafkaWriter.ts), which fences any earlier writer of the topic; a fenced writer's append rejects with
//   FatalLogError and it never writes again. Each append is one transaction, acknowledged by all in-sync
//   replicas (acks -1) before it resolves.
// - lastPos is learned on open from the last committed record (kafkaReader.ts readTail). append() skips records
//   at or below it. After an append fails with anything but fencing, the write may or may not have landed: the
//   next append first re-learns the position (see recover()) and then writes only what is missing.
// - read()/follow() read committed records only (read_committed), each through its own short-lived consumer;
//   where a position starts is found from the offset index and forward seeks, not a scan from offset 0.

import type { Admin, Kafka } from 'kafkajs';
import type { EncodedFollow, EncodedRecord, EventLog, LogRecord } from '../eventLog.js';
import { FatalLogError } from '../eventLog.js';
import { encodeRecord } from '../recordCodec.js';
import { KafkaAppendError, isFencingError, isPermanentError, messageOf } from './kafkaErrors.js';
import { createClient, resolveOptions, type KafkaLogOptions, type ResolvedKafkaLogOptions } from './kafkaOptions.js';
import { readEncodedRecords, readRecords, readTail, type ReadSource, type TailRecord } from './kafkaReader.js';
import { ensureTopic } from './kafkaTopic.js';
import { WriterLanes, laneIds } from './writerLanes.js';
import { OffsetIndex } from './offsetIndex.js';
import type { PartitionStream } from './partitionStream.js';

export type { KafkaLogOptions } from './kafkaOptions.js';

/** An append whose outcome is unknown: the log held `before` records; the append would have made it `after`. */
interface InDoubt {
  readonly before: number;
  readonly after: number;
  /** Encoded last record of the append, to recognise it if it landed. */
  readonly last: Buffer;
}

export class KafkaLog implements EventLog, EncodedFollow {
  private pos = 0;
  private busy: Promise<void> = Promise.resolve();
  private inDoubt: InDoubt | null = null;
  private fatal: FatalLogError | null = null;
  private closing: Promise<void> | null = null;
  private readonly closed = new AbortController();
  private readonly index = new OffsetIndex();
  private readonly streams = new Set<PartitionStream>();

  private constructor(
    private readonly options: ResolvedKafkaLogOptions,
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly writer: WriterLanes | null,
  ) {}

  /** Opens the log: creates the topic if needed, takes the writer role (fencing older writers), learns lastPos. */
  static async open(options: KafkaLogOptions): Promise<KafkaLog> {
    const resolved = resolveOptions(options);
    const kafka = createClient(resolved);
    const admin = kafka.admin();
    const writer =
      resolved.role === 'writer'
        ? new WriterLanes(kafka, { topic: resolved.topic, transactionalId: resolved.transactionalId, transactionTimeoutMs: resolved.transactionTimeoutMs }, resolved.writerLanes)
        : null;
    const log = new KafkaLog(resolved, kafka, admin, writer);
    try {
      await admin.connect();
      await ensureTopic(admin, { topic: resolved.topic, create: resolved.createTopic, replicationFactor: resolved.replicationFactor });
      await writer?.init();
      log.pos = (await readTail(log.source()))?.pos ?? 0;
    } catch (error) {
      await log.close();
      throw error;
    }
    return log;
  }

  get lastPos(): number {
    return this.pos;
  }

  get topic(): string {
    return this.options.topic;
  }

  /**
   * A lower bound on the offset of position `pos + 1`, for a snapshot covering `pos` to store; undefined when
   * this process knows nothing useful. Give it back with addOffsetHint() to make a later read start near it.
   */
  offsetHint(pos: number): number | undefined {
    const bound = this.index.lowerBound(pos + 1);
    return bound > 0 ? bound : undefined;
  }

  /** Tells the log that position `pos + 1` is at offset `offset` or later (a wrong hint only costs time). */
  addOffsetHint(pos: number, offset: number): void {
    this.index.add(pos + 1, offset);
  }

  append(records: readonly LogRecord[]): Promise<void> {
    const run = this.busy.then(() => this.appendNow(records));
    this.busy = run.catch(() => undefined);
    return run;
  }

  read(from: number): AsyncIterable<LogRecord> {
    return this.guarded(() => readRecords(this.source(), from, { kind: 'read', lastPos: this.pos, signal: this.closed.signal }));
  }

  /** Like read(), without decoding: replay parses only each record's command (see host/recovery.ts). */
  readEncoded(from: number): AsyncIterable<EncodedRecord> {
    return this.guarded(() => readEncodedRecords(this.source(), from, { kind: 'read', lastPos: this.pos, signal: this.closed.signal }));
  }

  followEncoded(from: number, signal: AbortSignal): AsyncIterable<EncodedRecord> {
    return this.guarded(() => readEncodedRecords(this.source(), from, { kind: 'follow', signal: AbortSignal.any([signal, this.closed.signal]) }));
  }

  follow(from: number, signal: AbortSignal): AsyncIterable<LogRecord> {
    return this.guarded(() => readRecords(this.source(), from, { kind: 'follow', signal: AbortSignal.any([signal, this.closed.signal]) }));
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.closed.abort();
    await Promise.all([...this.streams].map((s) => s.close()));
    await this.busy;
    await this.writer?.close();
    await this.admin.disconnect().catch(() => undefined);
  }

  /** Refuses reads of a closed log; a reader's lastPos follows what it has read (a writer's is authoritative). */
  private async *guarded<T extends { readonly pos: number }>(read: () => AsyncGenerator<T>): AsyncGenerator<T> {
    if (this.closing !== null) throw new Error(`the Kafka event log on topic "${this.options.topic}" is closed`);
    for await (const record of read()) {
      if (this.writer === null && record.pos > this.pos) this.pos = record.pos;
      yield record;
    }
  }

  private source(): ReadSource {
    return {
      kafka: this.kafka,
      admin: this.admin,
      topic: this.options.topic,
      groupPrefix: `${this.options.clientId}.${this.options.topic}.reader`,
      fetchWaitMs: this.options.fetchWaitMs,
      stallMs: this.options.readStallMs,
      index: this.index,
      streams: this.streams,
    };
  }

  private async appendNow(records: readonly LogRecord[]): Promise<void> {
    if (this.fatal !== null) throw this.fatal;
    if (this.closing !== null) throw new FatalLogError(`the Kafka event log on topic "${this.options.topic}" is closed`);
    if (this.writer === null) throw new FatalLogError(`the Kafka event log on topic "${this.options.topic}" was opened read-only`);
    if (this.inDoubt !== null) await this.recover(this.writer, this.inDoubt);

    const fresh = records.filter((r) => r.pos > this.pos);
    if (fresh.length === 0) return;
    fresh.forEach((r, i) => {
      if (r.pos !== this.pos + 1 + i) throw new FatalLogError(`append would leave a gap: position ${r.pos} after ${this.pos + i}`);
    });
    const values = fresh.map(encodeRecord);
    const headers = fresh.map((r) => ({ pos: String(r.pos) }));
    const last = fresh[fresh.length - 1] as LogRecord;
    let offsets: number[];
    try {
      offsets = await this.writer.write(values, headers);
    } catch (error) {
      throw await this.failed(error, { before: this.pos, after: last.pos, last: values[values.length - 1] as Buffer });
    }
    fresh.forEach((r, i) => {
      if (i === 0 || i === fresh.length - 1) this.index.add(r.pos, offsets[i] as number);
    });
    this.pos = last.pos;
  }

  /** Turns a failed write into what append() rejects with, and remembers what recovery must settle. */
  private async failed(error: unknown, doubt: InDoubt): Promise<Error> {
    const range = doubt.after === doubt.before + 1 ? `position ${doubt.after}` : `positions ${doubt.before + 1}..${doubt.after}`;
    if (isFencingError(error)) {
      return this.stopWriting(`this writer was fenced: another writer took over Kafka topic "${this.options.topic}" (transactional ids ${laneIds(this.options.transactionalId, this.options.writerLanes).map((id) => `"${id}"`).join(', ')}); ${range} not written`);
    }
    if (isPermanentError(error)) {
      return this.stopWriting(`Kafka refused ${range} on topic "${this.options.topic}" for good: ${messageOf(error)}`);
    }
    this.inDoubt = doubt;
    return new KafkaAppendError(`append of ${range} to Kafka topic "${this.options.topic}" failed and may or may not have landed: ${messageOf(error)}`, { cause: error });
  }

  private async stopWriting(message: string): Promise<FatalLogError> {
    this.fatal = new FatalLogError(message);
    await this.writer?.close();
    return this.fatal;
  }

  /**
   * Settles an append whose outcome is unknown before writing again. First the tail is checked without touching
   * the transactional ids: if someone else has written meanwhile, re-initialising would fence that newer writer,
   * so this one stops instead. (That tail may still lack the last acknowledged append: its commit markers can
   * be in the writing while the next lane's transaction failed. Committed records never go away, so a tail
   * short of it is not another writer.) Then fresh producers take the ids back, which aborts the doubtful
   * transaction if it is still open (or waits for its commit to finish), and the tail read after that is the
   * settled truth: either nothing of the append landed or all of it did. Anything else means another writer: stop.
   */
  private async recover(writer: WriterLanes, doubt: InDoubt): Promise<void> {
    try {
      this.checkTail(await readTail(this.source()), doubt, 'unsettled');
      await writer.init();
      const tail = await readTail(this.source());
      this.checkTail(tail, doubt);
      this.pos = tail?.pos ?? 0;
      this.inDoubt = null;
    } catch (error) {
      if (error instanceof FatalLogError) throw error;
      if (isFencingError(error)) throw await this.stopWriting(`this writer was fenced while recovering: another writer took over Kafka topic "${this.options.topic}"`);
      throw new KafkaAppendError(`could not re-learn the last position of Kafka topic "${this.options.topic}" after a failed append: ${messageOf(error)}`, { cause: error });
    }
  }

  private checkTail(tail: TailRecord | null, doubt: InDoubt, state: 'unsettled' | 'settled' = 'settled'): void {
    const found = tail?.pos ?? 0;
    if (found === doubt.before || (state === 'unsettled' && found < doubt.before)) return;
    if (found === doubt.after && tail !== null && tail.value.equals(doubt.last)) return;
    this.fatal = new FatalLogError(
      `another writer has appended to Kafka topic "${this.options.topic}": its last position is ${found}, where this writer expected ${doubt.before} or ${doubt.after}; stopping`,
    );
    void this.writer?.close();
    throw this.fatal;
  }
}

/** Opens the Kafka event log (see KafkaLog.open). */
export function openKafkaLog(options: KafkaLogOptions): Promise<KafkaLog> {
  return KafkaLog.open(options);
}
