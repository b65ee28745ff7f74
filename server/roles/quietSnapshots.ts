// When an API node snapshots its replica and read model. Both are normally taken from their copies on the
// snapshot thread, which holds nothing here: then a due snapshot (`every` events since the last) is taken at
// once. A snapshot that would hold the node's thread (a copy was lost, or the read model's is being seeded:
// its bytes take 0.7–1.3 s with 200,000 fills and 80,000 open orders held, bench:live-memory), which every
// request waiting meanwhile pays for, waits for a moment without records (`quietMs`), and is taken regardless
// once twice as many events have passed. One at a time: a snapshot due while one is being written waits for it.

export interface QuietSnapshotsOptions {
  readonly every: number;
  readonly quietMs: number;
  /** The replica's event sequence number now. */
  readonly seq: () => number;
  /** Whether taking one now would hold the node's thread; when not, a due snapshot is taken at once. */
  readonly holdsThread?: () => boolean;
  /** Takes the snapshot (its synchronous part at once); settles when it is written. Must not reject. */
  readonly take: () => Promise<void>;
  readonly now?: () => number;
}

export class QuietSnapshots {
  private lastSeq: number;
  private lastRecordsAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private taking = false;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: QuietSnapshotsOptions) {
    this.lastSeq = options.seq();
    this.now = options.now ?? (() => performance.now());
  }

  /** Records were just applied. */
  records(): void {
    this.lastRecordsAt = this.now();
    this.check();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    if (this.closed || this.taking) return;
    const since = this.options.seq() - this.lastSeq;
    if (since < this.options.every) return;
    const quietFor = this.now() - this.lastRecordsAt;
    if (since < 2 * this.options.every && quietFor < this.options.quietMs && (this.options.holdsThread?.() ?? true)) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.check();
      }, this.options.quietMs - quietFor).unref();
      return;
    }
    this.lastSeq = this.options.seq();
    this.taking = true;
    void this.options.take().finally(() => {
      this.taking = false;
      this.check();
    });
  }
}
