// Where positions live in the topic, as far as this process knows. Kafka offsets are not positions:
// transaction markers (and aborted writes) take offsets too, so offset(p) >= offset(q) + (p - q) for p > q.
// An entry (pos, offset) promises that position `pos` is at `offset` or later; exact entries come from
// appends and reads, looser ones from hints (a snapshot's stored offset). The reader starts its search there.

export interface OffsetBound {
  readonly pos: number;
  /** Position `pos` is at this offset or later. */
  readonly offset: number;
}

const MAX_ENTRIES = 4096;

export class OffsetIndex {
  private entries: OffsetBound[] = [];

  /** Records that position `pos` is at `offset` or later. Entries are kept in position order. */
  add(pos: number, offset: number): void {
    const last = this.entries[this.entries.length - 1];
    if (last !== undefined && pos <= last.pos) {
      // An older position (a hint, a re-read): insert in order, keeping the tighter bound.
      const i = this.indexAtOrBefore(pos);
      const at = i >= 0 ? this.entries[i] : undefined;
      if (at !== undefined && at.pos === pos) {
        if (offset > at.offset) this.entries[i] = { pos, offset };
        return;
      }
      this.entries.splice(i + 1, 0, { pos, offset });
    } else {
      this.entries.push({ pos, offset });
    }
    // Thin out evenly when full, always keeping the newest entry.
    if (this.entries.length > MAX_ENTRIES) {
      const newest = this.entries[this.entries.length - 1] as OffsetBound;
      this.entries = this.entries.filter((_, i) => i % 2 === 0);
      if (this.entries[this.entries.length - 1] !== newest) this.entries.push(newest);
    }
  }

  /** The lowest offset at which position `pos` can be, from what is known (0 when nothing is). */
  lowerBound(pos: number): number {
    const at = this.entries[this.indexAtOrBefore(pos)];
    return at === undefined ? 0 : at.offset + (pos - at.pos);
  }

  private indexAtOrBefore(pos: number): number {
    let lo = 0;
    let hi = this.entries.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if ((this.entries[mid] as OffsetBound).pos <= pos) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }
}
