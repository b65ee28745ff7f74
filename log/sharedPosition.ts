// A log position one thread publishes and others read, in shared memory: publishing is a plain atomic store
// (no message, no wake-up of the readers), and a reader sees a position only after everything the publisher
// did before storing it. Positions are safe integers (as everywhere in the log), held as one 64-bit slot.

export class SharedPosition {
  private readonly slot: BigInt64Array;

  /** A new position at 0, or a view of one another thread made (its `buffer`). */
  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.slot = new BigInt64Array(buffer, 0, 1);
  }

  get(): number {
    return Number(Atomics.load(this.slot, 0));
  }

  /** Publishes `pos`; a position never moves back (a lower one is ignored). */
  advance(pos: number): void {
    if (!Number.isSafeInteger(pos) || pos < 0) throw new RangeError(`not a log position: ${pos}`);
    if (pos > this.get()) Atomics.store(this.slot, 0, BigInt(pos));
  }
}
