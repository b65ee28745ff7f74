// When an API node snapshots its replica and read model. Taking a snapshot holds the node's thread (the read
// model's bytes: ~0.6 s with 200,000 fills and 80,000 open orders held, bench:live-memory; the replica's
// export is made on the snapshot thread, from its copy), and every request waiting meanwhile pays for it; so
// a snapshot that is due (`every` events since the last) waits for a moment without records (`quietMs`), and
// is taken regardless once twice as many events have passed. One at a time: a snapshot due while one is being
// written waits for it.

export interface QuietSnapshotsOptions {
  readonly every: number;
  readonly quietMs: number;
  /** The replica's event sequence number now. */
  readonly seq: () => number;
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
    if (since < 2 * this.options.every && quietFor < this.options.quietMs) {
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
