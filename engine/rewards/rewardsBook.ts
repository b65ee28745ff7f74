// What the engine holds of the liquidity rewards program: each rewarded market's terms, the UTC day being
// sampled, and per market of that day what its samples accrued (the pool's part, and each maker's summed
// normalised score, equation 6). A day's accrual is paid and forgotten when engine time reaches the next day
// (rewardSampler.ts), so the state stays one day deep. `nextSampleAt` is the engine time of the next sample:
// the command path compares one number with it, and the host arms a timer for it.

import type { RewardProgram } from './rewardTerms.js';

/** One market's accrual in the day under way. */
export class MarketAccrual {
  /** Σ over the day's samples of the daily rate in force: the pool is ⌊rateMinutes / 1,440⌋. */
  rateMinutes = 0;
  /** Samples taken (minutes the market was rewarded and open). */
  samples = 0;
  /** account → Σ of its normalised scores (SHARE_SCALE per whole sample): Q_epoch. */
  readonly scores = new Map<string, number>();
}

export class RewardsBook {
  /** The markets with a program, by condition id. */
  readonly terms = new Map<string, RewardProgram>();
  /** The UTC day the accruals are of; -1 when none is under way. */
  day = -1;
  /** Accruals of `day`, by condition id. */
  readonly accrual = new Map<string, MarketAccrual>();
  /** Engine time (ms, on a minute) of the next sample, or of the day close when only that is left; Infinity when nothing is due. */
  nextSampleAt = Number.POSITIVE_INFINITY;

  accrualOf(conditionId: string): MarketAccrual {
    let a = this.accrual.get(conditionId);
    if (a === undefined) {
      a = new MarketAccrual();
      this.accrual.set(conditionId, a);
    }
    return a;
  }

  /** True when nothing is held (a state without rewards renders, hashes and snapshots as before they existed). */
  get empty(): boolean {
    return this.terms.size === 0 && this.day === -1 && this.accrual.size === 0 && this.nextSampleAt === Number.POSITIVE_INFINITY;
  }

  /** Programs sorted by condition id: [conditionId, dailyRate, maxSpread, minSize, since]. */
  termEntries(): [string, number, number, number, number][] {
    return [...this.terms].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([id, t]) => [id, t.dailyRate, t.maxSpread, t.minSize, t.since]);
  }

  /** Accruals sorted by condition id, each maker sorted by account: [conditionId, rateMinutes, samples, [[account, score]]]. */
  accrualEntries(): [string, number, number, [string, number][]][] {
    return [...this.accrual]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([id, a]) => [id, a.rateMinutes, a.samples, [...a.scores].sort((x, y) => (x[0] < y[0] ? -1 : 1))]);
  }
}
