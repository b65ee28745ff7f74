// A read-only view of a journal that another thread of this process appends to (the projector's thread reads
// the service's journal so): records up to the durable end that the appending thread publishes in shared
// memory (log/sharedPosition.ts), read from the segment files as the Journal reads them, checksums and
// position order checked. It never writes, never takes the journal's lock and never truncates.
//
// Why it can read a live journal: the appending thread publishes a position only after the write holding it
// has returned (O_DSYNC: on disk, and in the page cache every reader shares), and it creates and syncs a new
// segment file before any record goes into it. A read takes the end first and lists the segments after, so
// every position up to that end is in a segment it lists, whole; bytes beyond the end (a write in progress)
// are never reached, because the reader stops at the end's position.

import { stat } from 'node:fs/promises';
import type { EncodedRecord, EncodedReads, EventLog, LogRecord } from '../eventLog.js';
import { decodeRecord } from '../recordCodec.js';
import type { SharedPosition } from '../sharedPosition.js';
import { READ_CHUNK, readSegmentRecords } from './segmentReader.js';
import { followLog, waitAWhile } from '../followLog.js';
import { listSegments, type Segment } from './segments.js';

/** How often follow() looks for a new durable end (ms). */
const FOLLOW_POLL_MS = 50;

export class JournalTail implements EventLog, EncodedReads {
  /** Where the last record read starts: the next read from the position after it seeks there. */
  private resume: { segmentFirstPos: number; pos: number; offset: number } | undefined;

  constructor(
    private readonly dir: string,
    private readonly end: SharedPosition,
  ) {}

  get lastPos(): number {
    return this.end.get();
  }

  append(): Promise<void> {
    return Promise.reject(new Error('a journal tail is read-only: the thread that owns the journal appends'));
  }

  async *readEncoded(from: number, until = this.end.get()): AsyncGenerator<EncodedRecord> {
    if (from > until) return;
    const segments = await listSegments(this.dir);
    const tail = segments[segments.length - 1];
    if (tail === undefined) return;
    yield* readSegmentRecords({
      segments,
      from,
      until,
      tailBytes: (await stat(tail.path)).size,
      chunkBytes: READ_CHUNK,
      seek: (segment, pos) => this.seek(segment, pos),
      note: (segmentFirstPos, pos, offset) => {
        this.resume = { segmentFirstPos, pos, offset };
      },
    });
  }

  /** The last record read, when it is in `segment` at or before `pos`; else the segment's start. */
  private seek(segment: Segment, pos: number): { pos: number; offset: number } {
    const at = this.resume;
    if (at !== undefined && at.segmentFirstPos === segment.firstPos && at.pos <= pos) return { pos: at.pos, offset: at.offset };
    return { pos: segment.firstPos, offset: 0 };
  }

  async *read(from: number): AsyncGenerator<LogRecord> {
    for await (const { bytes } of this.readEncoded(from)) yield decodeRecord(bytes);
  }

  follow(from: number, signal: AbortSignal): AsyncGenerator<LogRecord> {
    return followLog({ lastPos: () => this.end.get(), read: (at) => this.read(at), more: (aborted) => waitAWhile(FOLLOW_POLL_MS, aborted) }, from, signal);
  }

  async close(): Promise<void> {
    // Nothing is held between reads.
  }
}
