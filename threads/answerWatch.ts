// Noticing on this thread that another thread has answered through shared memory (a writer thread's "answered"
// word, a worker's batch counter), where the other thread stores its answer and then calls Atomics.notify on
// that word. Two ways, whichever comes first:
// - an Atomics.waitAsync on the word. One is armed at a time: a wait armed for an earlier answer and not yet
//   woken also wakes on the next notify, so it serves the next answer as well; after a wake-up, one is armed
//   again at the word's current value while answers are awaited;
// - a read of the word every FALLBACK_MS while an answer is awaited (`awaiting()` holds). The waitAsync's
//   wake-up has been seen lost on Node 20: with every client waiting for its reply, a write the journal's
//   thread had finished stayed unsettled for 406 s, until an unrelated request arrived. One timer serves every
//   wait of a watch and is re-armed (Timeout.refresh) while answers are awaited, never created per wait.
//
// The owner's `check()` reads the word and settles what it answers, and says whether it settled anything. It
// is idempotent: both ways may call it for one answer, and the owner calls it itself where it likes (the
// engine host between requests, EngineHost.poll).
//
// Each watch counts, by name, for /metrics (`watchTallies`): the waits armed, the waits whose wake-up came,
// and the fallback reads that settled an answer. Armed minus woken is the waits outstanding, at most one per
// watch; more means wake-ups lost. A fallback settle is an answer found before its wake-up ran, which also
// happens without any loss when the answer lands while this thread is busy for longer than FALLBACK_MS (the
// timers' phase of the event loop runs before the wake-up's).

/** While answers are awaited, the longest this thread goes without reading the word itself. */
export const FALLBACK_MS = 10;

export interface WatchTally {
  /** Atomics.waitAsync calls that went to sleep (not those that found the word already moved). */
  armed: number;
  /** Of those, the ones whose wake-up came. */
  woken: number;
  /** Fallback reads that settled an answer. */
  fallbackSettles: number;
}

const tallies = new Map<string, WatchTally>();

/** Every watch's figures so far, by name (a process's watches of one name add up). */
export function watchTallies(): ReadonlyMap<string, Readonly<WatchTally>> {
  return tallies;
}

export class AnswerWatch {
  private readonly tally: WatchTally;
  private timer: NodeJS.Timeout | null = null;
  private timerArmed = false;
  private closed = false;
  /** A waitAsync of this watch is armed and has not woken. */
  private sleeping = false;

  /**
   * @param name the watch's name in /metrics (journal, signatures)
   * @param check reads the word and settles what it answers; true when it settled anything
   * @param awaiting whether an answer is awaited (the fallback reads only then)
   */
  constructor(
    name: string,
    private readonly check: () => boolean,
    private readonly awaiting: () => boolean,
  ) {
    let tally = tallies.get(name);
    if (tally === undefined) tallies.set(name, (tally = { armed: 0, woken: 0, fallbackSettles: 0 }));
    this.tally = tally;
  }

  /** Calls check() once `words[index]` no longer holds `seen`, and keeps the fallback read running meanwhile. */
  wait(words: Int32Array, index: number, seen: number): void {
    if (!this.sleeping) this.arm(words, index, seen);
    this.armTimer();
  }

  /** Stops the watch for good: no more fallback reads, and a wait still armed wakes without calling check(). */
  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerArmed = false;
  }

  private arm(words: Int32Array, index: number, seen: number): void {
    const wait = Atomics.waitAsync(words, index, seen);
    if (!wait.async) {
      queueMicrotask(() => {
        if (!this.closed) this.check();
      });
      return;
    }
    this.sleeping = true;
    this.tally.armed += 1;
    void wait.value.then(() => {
      this.sleeping = false;
      this.tally.woken += 1;
      if (this.closed) return;
      this.check();
      // check() may have asked for the next answer and armed a wait itself.
      if (!this.sleeping && this.awaiting()) this.arm(words, index, Atomics.load(words, index));
    });
  }

  private armTimer(): void {
    if (this.timerArmed || this.closed) return;
    this.timerArmed = true;
    if (this.timer === null) {
      this.timer = setTimeout(this.tick, FALLBACK_MS);
      this.timer.unref();
    } else {
      this.timer.refresh();
    }
  }

  private readonly tick = (): void => {
    this.timerArmed = false;
    if (this.closed || !this.awaiting()) return;
    if (this.check()) this.tally.fallbackSettles += 1;
    if (this.awaiting()) this.armTimer();
  };
}
