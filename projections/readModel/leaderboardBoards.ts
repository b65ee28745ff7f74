// The leaderboards kept: each board (period, category) computed whole by ClickHouse (leaderboard.ts
// computeBoard) and answered from memory while it stands. Contract:
// - A board computed at the projector's current position is current: it is answered as it is (an all-time
//   board stays current until the projector moves on; a board of a period also until `maxAgeMs` passed, its
//   window sliding with the clock).
// - A board that is not current is still answered: the first read once it is `maxAgeMs` old starts computing
//   its successor in the background, which later reads get once done (a board is then at most `maxAgeMs` and
//   one computation behind the projector, while anyone reads it). With `maxAgeMs` 0 every read after a change
//   waits for a current board (tests: exact). The first read of a board waits for it, unless warm() computed
//   it before (the service warms the all-time board of every market at start, so that its first reader, the
//   leaderboard page's default, does not wait seconds on a large history).
// - Boards are computed one at a time per key; at most `maxBoards` are kept, the least recently read leaving
//   first. A failed computation fails the reads that waited for it and is tried again by the next read.

import type { ReadContext } from './context.js';
import { computeBoard, type Board, type BoardSource, type TimePeriod } from './leaderboard.js';

/** Default longest a board that the projector moved past is answered (ms). */
export const DEFAULT_BOARD_MAX_AGE_MS = 30_000;
/** Default most boards kept (one per period and category asked for). */
export const DEFAULT_MAX_BOARDS = 16;

interface Kept {
  board: Board | undefined;
  computing: Promise<Board> | undefined;
}

export class LeaderboardBoards {
  private readonly kept = new Map<string, Kept>();
  /** Boards computed (metrics, tests). */
  computed = 0;

  constructor(
    private readonly ctx: ReadContext,
    /** The projector's committed position (the boards are read as of it). */
    private readonly position: () => number,
    private readonly maxAgeMs = DEFAULT_BOARD_MAX_AGE_MS,
    private readonly maxBoards = DEFAULT_MAX_BOARDS,
  ) {}

  /** The board of `period` over `markets` (undefined: every market); `category` names it. */
  readonly board: BoardSource = async (period: TimePeriod, markets: readonly string[] | undefined, category: string) => {
    const key = `${period}\u0000${category}`;
    let k = this.kept.get(key);
    if (k !== undefined) this.kept.delete(key); // re-inserted below: most recently read last
    k ??= { board: undefined, computing: undefined };
    this.kept.set(key, k);
    while (this.kept.size > this.maxBoards) this.kept.delete(this.kept.keys().next().value as string);
    const b = k.board;
    if (b === undefined || this.maxAgeMs === 0) {
      if (b !== undefined && b.pos === this.position() && period === 'ALL') return b;
      return this.compute(k, period, markets);
    }
    const age = this.ctx.now() - b.at;
    const current = b.pos === this.position() && (period === 'ALL' || age < this.maxAgeMs);
    if (!current && age >= this.maxAgeMs) this.compute(k, period, markets).catch(() => undefined);
    return b;
  };

  /**
   * Starts computing the all-time board of every market (the default read) in the background, unless every
   * read waits for a current board anyway (`maxAgeMs` 0). A failure is left for the next read to retry.
   */
  warm(): void {
    if (this.maxAgeMs === 0 || this.kept.has(`ALL\u0000OVERALL`)) return;
    const k: Kept = { board: undefined, computing: undefined };
    this.kept.set(`ALL\u0000OVERALL`, k);
    this.compute(k, 'ALL', undefined).catch(() => undefined);
  }

  private compute(k: Kept, period: TimePeriod, markets: readonly string[] | undefined): Promise<Board> {
    k.computing ??= computeBoard(this.ctx, period, markets, this.position())
      .then((board) => {
        k.board = board;
        this.computed += 1;
        return board;
      })
      .finally(() => {
        k.computing = undefined;
      });
    return k.computing;
  }
}
