// How far apart the projector's commits go under load when it has a lag budget (ProjectorOptions.lagBudgetMs).
//
// A commit's cost to ClickHouse is mostly per statement and per part, whatever its rows, so under load fewer and
// larger commits cost less CPU per order; what they cost readers is lag. Under a steady load the record that waits
// longest is the one that became durable just after a commit cut its range: it waits for the next cut and then for
// that commit to land. With cuts `gap` ms apart and commits taking `d` ms, its wait is gap + d. So the next cut may
// come at this cut + budget - d, where d is predicted from the last commits (the longest of them: a commit longer
// than predicted spends the budget's margin, not more). The projector never cuts sooner than its least interval
// after a commit ends; when commits take more than the budget leaves, the least interval alone spaces them.

/** How many recent commit durations the prediction looks at. */
const RECENT = 3;

/** The last commits' durations (ms, from the cut of their range to their landing), newest last. */
export class CommitDurations {
  private readonly recent: number[] = [];

  add(ms: number): void {
    this.recent.push(ms);
    if (this.recent.length > RECENT) this.recent.shift();
  }

  /** The duration the next commit is expected to take: the longest of the recent ones (0 before any). */
  get predicted(): number {
    let longest = 0;
    for (const ms of this.recent) if (ms > longest) longest = ms;
    return longest;
  }
}

/**
 * Milliseconds to wait from `now` before cutting the next commit's range, so that a record made durable right after
 * the cut at `cutAt` is committed within `budgetMs` of it (all times on one monotonic clock); 0 when that time is
 * already past.
 */
export function waitWithinBudget(budgetMs: number, cutAt: number, now: number, predictedMs: number): number {
  return Math.max(0, cutAt + budgetMs - predictedMs - now);
}
