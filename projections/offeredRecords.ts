// Log records handed to the projector in memory (Projector.offer()): a bounded queue of contiguous log
// positions, oldest first. It only ever spares a read of the log: whatever it lacks (a gap, a restart, the
// oldest records dropped beyond its bound) the projector reads from the log instead.

import type { LogRecord } from '../log/eventLog.js';

/** A head this far into the array is cut off (amortised: at most one copy per COMPACT_AFTER records taken). */
const COMPACT_AFTER = 1024;

export class OfferedRecords {
  /** Held records are items[head..]: consecutive positions. */
  private items: LogRecord[] = [];
  private head = 0;

  /** `max`: most records held; 0 holds none. */
  constructor(private readonly max: number) {}

  get size(): number {
    return this.items.length - this.head;
  }

  /** Position of the oldest record held. */
  first(): number | undefined {
    return this.items[this.head]?.pos;
  }

  /**
   * Appends `records` (consecutive positions, else none is kept). Records at or below `built` (already
   * projected) are not kept. When they do not continue what is held, what is held is dropped; beyond
   * `max`, the oldest are.
   */
  add(records: readonly LogRecord[], built: number): void {
    const start = records[0]?.pos;
    if (this.max <= 0 || start === undefined) return;
    for (let i = 1; i < records.length; i++) {
      if ((records[i] as LogRecord).pos !== start + i) return this.clear();
    }
    const tail = this.items[this.items.length - 1];
    if (this.size > 0 && tail !== undefined && start !== tail.pos + 1) this.clear();
    for (const record of records) if (record.pos > built) this.items.push(record);
    if (this.size > this.max) this.head = this.items.length - this.max;
    this.compact();
  }

  /**
   * Removes and returns the held records of positions from..end when the oldest held (after dropping those
   * below `from`, already projected) is exactly `from`; as many as are held up to `end`. Else undefined.
   */
  take(from: number, end: number): LogRecord[] | undefined {
    while (this.head < this.items.length && (this.items[this.head] as LogRecord).pos < from) this.head += 1;
    if (this.first() !== from || end < from) {
      this.compact();
      return undefined;
    }
    const n = Math.min(this.size, end - from + 1);
    const out = this.items.slice(this.head, this.head + n);
    this.head += n;
    this.compact();
    return out;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }

  private compact(): void {
    if (this.head === this.items.length) this.clear();
    else if (this.head >= COMPACT_AFTER && 2 * this.head >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }
}
