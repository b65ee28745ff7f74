// The embedded journal: the default EventLog, append-only segment files under the data directory.
//
// - Group commit: append(batch) encodes every record of the batch into one buffer and writes it with one
//   write to a file opened O_DSYNC, which returns only once the data is durable (as write + fdatasync); the
//   promise resolves after that, never before.
// - Segments roll after an append once the current one has reached the configured size; a new segment file
//   is made durable in its directory (fsync of the directory) before records go into it.
// - Opening recovers: the last segment is scanned; a torn tail (an incomplete frame, or a bad checksum on the
//   last frame or on a zero-filled remainder) is truncated away and reported in `recovery`; a bad frame with
//   valid data after it, or a position out of sequence, refuses start-up with LogCorruptError naming the file
//   and byte offset. Earlier segments are checked as they are read.
// - A failed write or fsync is fatal (FatalLogError): after a failed fsync the kernel may have dropped the
//   data, so the only safe continuation is a restart, which recovers from what is really on disk.

import { EventEmitter } from 'node:events';
import { constants } from 'node:fs';
import { mkdir, open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { READ_CHUNK } from './segmentReader.js';
import { join } from 'node:path';
import type { EncodedRecord, EventLog, LogRecord } from '../eventLog.js';
import { FatalLogError, LogCorruptError } from '../eventLog.js';
import { decodeRecord, recordText, writeRecord, type RecordText } from '../recordCodec.js';
import { FRAME_HEADER, allZero, readFrame, sealFrame } from './frame.js';
import { readSegmentRecords } from './segmentReader.js';
import { listSegments, segmentName, type Segment } from './segments.js';
import { lockJournal } from './journalLock.js';
import { syncDirectory } from '../durableFile.js';
import { AppendThread } from './appendThread.js';
import { followLog, waitAWhile } from '../followLog.js';

/**
 * Segments are appended through O_DSYNC: a write returns once its data (and the metadata needed to read it
 * back) is on stable storage, as write + fdatasync would, in one call instead of two. The calls are made by
 * the journal's own thread (appendThread.ts), not libuv's pool; a completed write is noticed by poll() between
 * requests, or else on the thread's message.
 */
const APPEND_FLAGS = constants.O_APPEND | constants.O_CREAT | constants.O_RDWR | constants.O_DSYNC;

export interface JournalOptions {
  /** Directory of the segment files (created if missing). */
  readonly dir: string;
  /** A segment is closed and a new one started once it reaches this many bytes. */
  readonly segmentBytes: number;
  /** How often follow() looks for records appended by another process (ms). */
  readonly pollMs?: number;
  /** Bytes read from a segment at a time (default 4 MiB); a larger record is read whole. */
  readonly readChunkBytes?: number;
}

export interface JournalRecovery {
  readonly file: string;
  /** Bytes cut from the end of the last segment (0 when the tail was clean). */
  readonly truncatedBytes: number;
}



/** Every this many positions, the journal remembers where a record starts. */
const INDEX_EVERY = 256;
/** Largest append encoded into the kept scratch buffer; a larger one gets a buffer of its own. */
const SCRATCH_BYTES = 1 << 20;

export class Journal implements EventLog {
  private readonly appended = new EventEmitter();
  private readonly index = new Map<number, { pos: number[]; offset: number[] }>();
  private failed: Error | null = null;
  private closed = false;
  private busy: Promise<void> = Promise.resolve();
  /** Where an append's frames are encoded (appends run one at a time, and the writer is done with it when one settles). */
  private scratch = Buffer.alloc(0);
  private unlock: () => Promise<void> = async () => undefined;

  private constructor(
    private readonly options: JournalOptions,
    private readonly segments: Segment[],
    private handle: FileHandle,
    private readonly writer: AppendThread,
    private size: number,
    private last: number,
    readonly recovery: JournalRecovery,
  ) {
    this.appended.setMaxListeners(0);
  }

  static async open(options: JournalOptions): Promise<Journal> {
    await mkdir(options.dir, { recursive: true });
    const unlock = await lockJournal(options.dir);
    try {
      const journal = await Journal.openLocked(options);
      journal.unlock = unlock;
      return journal;
    } catch (error) {
      await unlock();
      throw error;
    }
  }

  private static async openLocked(options: JournalOptions): Promise<Journal> {
    const segments = await listSegments(options.dir);
    if (segments.length === 0) {
      const first: Segment = { firstPos: 1, path: join(options.dir, segmentName(1)) };
      const handle = await open(first.path, APPEND_FLAGS);
      await syncDirectory(options.dir);
      return new Journal(options, [first], handle, await AppendThread.start(), 0, 0, { file: first.path, truncatedBytes: 0 });
    }
    const tail = segments[segments.length - 1] as Segment;
    const { validBytes, lastPos, fileBytes } = await Journal.scanTail(tail);
    const handle = await open(tail.path, 'r+');
    if (validBytes < fileBytes) {
      await handle.truncate(validBytes);
      await handle.sync();
    }
    await handle.close();
    const appendHandle = await open(tail.path, APPEND_FLAGS);
    return new Journal(options, segments, appendHandle, await AppendThread.start(), validBytes, lastPos, { file: tail.path, truncatedBytes: fileBytes - validBytes });
  }

  /** Validates the last segment: where its valid frames end and the last position in it. */
  private static async scanTail(segment: Segment): Promise<{ validBytes: number; lastPos: number; fileBytes: number }> {
    const buf = await readFile(segment.path);
    let offset = 0;
    let expected = segment.firstPos;
    for (;;) {
      const frame = readFrame(buf, offset, buf.length);
      if (frame.kind === 'incomplete') break;
      if (frame.kind === 'bad-checksum') {
        if (frame.next >= buf.length || allZero(buf, offset, buf.length)) break;
        throw new LogCorruptError(`journal segment ${segment.path} is corrupt at byte ${offset}: checksum mismatch with valid data after it; refusing to start`, segment.path, offset);
      }
      if (frame.pos !== expected) {
        throw new LogCorruptError(`journal segment ${segment.path} is corrupt at byte ${offset}: position ${frame.pos} where ${expected} was expected; refusing to start`, segment.path, offset);
      }
      expected += 1;
      offset = frame.next;
    }
    return { validBytes: offset, lastPos: expected - 1, fileBytes: buf.length };
  }

  get lastPos(): number {
    return this.last;
  }

  /** The directory the journal lives in. */
  get dir(): string {
    return this.options.dir;
  }

  append(records: readonly LogRecord[]): Promise<void> {
    const run = this.busy.then(() => this.appendNow(records));
    this.busy = run.catch(() => undefined);
    return run;
  }

  private async appendNow(records: readonly LogRecord[]): Promise<void> {
    if (this.closed) throw new FatalLogError('the journal is closed');
    if (this.failed !== null) throw new FatalLogError(`the journal failed earlier and needs a restart: ${this.failed.message}`);
    const fresh = records.filter((r) => r.pos > this.last);
    if (fresh.length === 0) return;
    fresh.forEach((r, i) => {
      if (r.pos !== this.last + 1 + i) throw new FatalLogError(`append would leave a gap: position ${r.pos} after ${this.last + i}`);
    });
    // Indexed loops over arrays built by push: one elements kind whatever the batch's size, so the append's
    // optimised code is not dropped when a batch of another size arrives.
    const texts: RecordText[] = [];
    let total = 0;
    for (let i = 0; i < fresh.length; i++) {
      const text = recordText(fresh[i] as LogRecord);
      texts.push(text);
      total += FRAME_HEADER + text.bytes;
    }
    if (total <= SCRATCH_BYTES && this.scratch.length < total) this.scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_BYTES, Math.max(total, this.scratch.length * 2)));
    const out = total <= SCRATCH_BYTES ? this.scratch.subarray(0, total) : Buffer.allocUnsafeSlow(total);
    let offset = 0;
    const segmentFirst = (this.segments[this.segments.length - 1] as Segment).firstPos;
    for (let i = 0; i < texts.length; i++) {
      const text = texts[i] as RecordText;
      this.noteOffset(segmentFirst, text.pos, this.size + offset);
      offset = sealFrame(out, offset, text.pos, writeRecord(out, offset + FRAME_HEADER, text));
    }
    try {
      await this.writer.write(this.handle.fd, out);
    } catch (error) {
      this.failed = error instanceof Error ? error : new Error(String(error));
      throw new FatalLogError(`journal write to ${this.currentPath()} failed: ${this.failed.message}`);
    }
    this.size += total;
    this.last = (fresh[fresh.length - 1] as LogRecord).pos;
    if (this.size >= this.options.segmentBytes) await this.roll();
    this.appended.emit('append', this.last);
  }

  poll(): void {
    this.writer.poll();
  }

  private currentPath(): string {
    return (this.segments[this.segments.length - 1] as Segment).path;
  }

  private async roll(): Promise<void> {
    const next: Segment = { firstPos: this.last + 1, path: join(this.options.dir, segmentName(this.last + 1)) };
    const handle = await open(next.path, APPEND_FLAGS);
    await syncDirectory(this.options.dir);
    await this.handle.close();
    this.handle = handle;
    this.segments.push(next);
    this.size = 0;
  }

  /** Remembers where a position starts, for every INDEX_EVERY-th position (see readEncoded). */
  private noteOffset(segmentFirstPos: number, pos: number, offset: number): void {
    if (pos % INDEX_EVERY !== 0) return;
    let entries = this.index.get(segmentFirstPos);
    if (entries === undefined) {
      entries = { pos: [], offset: [] };
      this.index.set(segmentFirstPos, entries);
    }
    const last = entries.pos[entries.pos.length - 1];
    if (last === undefined || pos > last) {
      entries.pos.push(pos);
      entries.offset.push(offset);
    }
  }

  /** The nearest indexed position at or before `pos` in a segment, with its byte offset. */
  private seekPoint(segment: Segment, pos: number): { pos: number; offset: number } {
    const entries = this.index.get(segment.firstPos);
    let best = { pos: segment.firstPos, offset: 0 };
    if (entries === undefined) return best;
    let lo = 0;
    let hi = entries.pos.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = entries.pos[mid] as number;
      if (at <= pos) {
        best = { pos: at, offset: entries.offset[mid] as number };
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best;
  }

  /**
   * Encoded records from `from` up to the durable end (or `until`), without decoding them (replay parses
   * commands only). Reads each segment in chunks from the nearest indexed offset, so following the tail of a
   * live journal costs what is new, not the whole segment.
   */
  readEncoded(from: number, until = this.last): AsyncGenerator<EncodedRecord> {
    return readSegmentRecords({
      segments: this.segments,
      from,
      until,
      tailBytes: this.size,
      chunkBytes: this.options.readChunkBytes ?? READ_CHUNK,
      seek: (segment, pos) => this.seekPoint(segment, pos),
      note: (segmentFirstPos, pos, offset) => this.noteOffset(segmentFirstPos, pos, offset),
    });
  }

  /** What a reader in another thread needs to read this journal as it is now (see host/replayPipeline.ts). */
  readPlan(): { readonly segments: readonly Segment[]; readonly tailBytes: number; readonly lastPos: number } {
    return { segments: [...this.segments], tailBytes: this.size, lastPos: this.last };
  }

  async *read(from: number): AsyncGenerator<LogRecord> {
    for await (const { bytes } of this.readEncoded(from)) yield decodeRecord(bytes);
  }

  follow(from: number, signal: AbortSignal): AsyncGenerator<LogRecord> {
    return followLog(
      {
        lastPos: () => this.last,
        read: (at) => this.read(at),
        more: (aborted) =>
          waitAWhile(this.options.pollMs ?? 200, aborted, (wake) => {
            this.appended.on('append', wake);
            return () => this.appended.off('append', wake);
          }),
      },
      from,
      signal,
    );
  }

  /** Bytes on disk over all segments (for metrics and benchmarks). */
  async bytesOnDisk(): Promise<number> {
    let total = 0;
    for (const s of this.segments) total += (await stat(s.path)).size;
    return total;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.busy;
    await this.writer.close();
    await this.handle.close();
    await this.unlock();
    this.appended.emit('append', this.last);
  }
}
