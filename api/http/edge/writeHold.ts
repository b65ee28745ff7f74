// The edge's hold of write requests that reach an idle or nearly idle service (--edge-hold-ms; interrupt
// moderation, as a network card's). Every order, cancellation or other write is a chain of hand-overs between
// threads (the request thread, the signature worker, the journal's writer, back to the request thread and the
// edge), and each hand-over to a sleeping thread costs both threads a wake-up and a cache refill, whatever the
// work it carries. Under load the chain batches by itself: requests queue while the threads are busy, and one wake-up
// carries many. At a steady moderate rate it does not: with the service idle between requests, each one crosses
// the whole chain alone.
//
// Contract:
// - A write request (POST, PUT, PATCH, DELETE) that arrives while at most `upToInFlight` requests (8) are in
//   flight through the edge opens a hold of `holdMs`; it and every write request that arrives until the hold
//   ends are held at the edge, then forwarded together. A hold also ends early once `fullAt` requests are held.
//   With a few requests in flight the service is answering a small batch (at a moderate rate, the previous
//   hold's): a write let through then would reach it just after that batch and cross the chain alone, or with
//   one or two others, so it waits for the next hold instead.
// - While more are in flight and no hold is open, requests pass at once: the service is busy, and the requests
//   it is answering batch the new ones behind them. Under load in a closed loop (clients that each send their
//   next request on an answer) the count still falls to `upToInFlight` or fewer when one journal batch's
//   answers go out together, and the writes sent on those answers fill a hold at once (`fullAt`): they wait
//   for each other, not for `holdMs`.
// - Reads (GET, HEAD, OPTIONS …) are never held: they are answered on the request thread alone, without a chain.
// - A held connection is corked as a whole (its later bytes, pipelined requests and bodies, wait with it), so
//   each connection's byte order is unchanged; nothing is reordered or dropped, only delayed by at most `holdMs`.
//
// It adds at most holdMs to a write's latency when the service is idle or nearly so, and under load only the
// moment a hold takes to fill.

/** A connection whose upstream writes are held; release() forwards what it holds. */
export interface HeldConnection {
  release(): void;
}

export interface WriteHoldCounters {
  holds: number;
  heldRequests: number;
}

/** A hold ends once this many requests are held: a batch that size already pays for its hand-overs. */
export const HOLD_FULL_AT = 32;

/**
 * A write that arrives while at most this many requests are in flight opens a hold too: the service is answering
 * a small batch (a hold's, at a moderate rate) and would take the new write alone right after it, paying every
 * hand-over again. With more in flight it is busy enough that the write joins the requests queued behind them.
 */
export const HOLD_UP_TO_IN_FLIGHT = 8;

export class WriteHold {
  private held: HeldConnection[] = [];
  private heldRequests = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Requests forwarded through the edge and not yet answered, held ones included. */
  private inFlight = 0;

  constructor(
    private readonly holdMs: number,
    private readonly counters: WriteHoldCounters,
    private readonly fullAt = HOLD_FULL_AT,
    private readonly upToInFlight = HOLD_UP_TO_IN_FLIGHT,
  ) {}

  /**
   * Whether a write request arriving now waits: a hold is open, or the service has nothing in flight. Call it
   * before counting the request in flight; when it says true, hold the connection (add) unless it is held.
   */
  holds(): boolean {
    return this.holdMs > 0 && (this.timer !== undefined || this.inFlight <= this.upToInFlight);
  }

  /** `conn` holds its upstream writes from now until release(); `alreadyHeld`: it did since an earlier request of this hold. */
  add(conn: HeldConnection, alreadyHeld: boolean): void {
    if (this.timer === undefined) {
      this.counters.holds++;
      this.timer = setTimeout(() => this.releaseAll(), this.holdMs);
    }
    if (!alreadyHeld) this.held.push(conn);
    this.counters.heldRequests++;
    if (++this.heldRequests >= this.fullAt) this.releaseAll();
  }

  /** Requests in flight changed by `delta` (forwarded: +1; answered, or a closed connection's: −n). */
  inFlightChanged(delta: number): void {
    this.inFlight += delta;
  }

  /** Forwards everything held (the hold's end; also on close, so nothing waits for the timer). */
  releaseAll(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const held = this.held;
    this.held = [];
    this.heldRequests = 0;
    for (const conn of held) conn.release();
  }
}
