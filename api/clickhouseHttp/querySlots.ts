// At most `running` analyst queries at once, and at most `queued` more waiting for a turn (first come,
// first served); past that a query is refused at once (TOO_MANY_SIMULTANEOUS_QUERIES) rather than pile up.
// This is what keeps heavy analysis from taking the cores the order path needs: with one running query
// and max_threads = 1, analysts use at most one core whatever they send.

import { refuse } from './chErrors.js';

export class QuerySlots {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly running: number,
    private readonly queued: number,
  ) {}

  /** Resolves when the query may run; call the returned function when it has finished. */
  async acquire(): Promise<() => void> {
    if (this.active < this.running) {
      this.active += 1;
    } else {
      if (this.waiting.length >= this.queued) throw refuse.busy(this.running + this.queued);
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.active -= 1;
    };
  }

  get inFlight(): number {
    return this.active + this.waiting.length;
  }
}
