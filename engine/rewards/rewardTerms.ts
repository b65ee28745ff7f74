// The constants of the liquidity rewards program (docs/rewards.md) and the UTC-day arithmetic it runs on.
// Everything is an integer: amounts in base units, prices in micro-units, times in ms of engine time.

/** One sample a minute of engine time, on the minute (upstream samples once a minute). */
export const SAMPLE_MS = 60_000;
/** An epoch is one UTC day: its pool is paid when engine time reaches the next day's first minute. */
export const DAY_MS = 86_400_000;
export const SAMPLES_PER_DAY = DAY_MS / SAMPLE_MS;
/** The scaling factor c of single-sided liquidity (upstream: "currently 3.0 on all markets"). */
export const SINGLE_SIDED_DIVISOR = 3;
/** Outside this midpoint range (inclusive, micro-units) liquidity must be two-sided to score. */
export const TWO_SIDED_BELOW = 100_000;
export const TWO_SIDED_ABOVE = 900_000;
/** A sample's normalised score (Q_normal) in fixed point: 10^12 = the whole sample. */
export const SHARE_SCALE = 1_000_000_000_000;
/** Payouts under $1 are not paid (upstream's minimum). */
export const MIN_PAYOUT = 1_000_000;
/** Largest daily pool a market may carry: $1,000,000 (keeps every product of the split exact). */
export const MAX_DAILY_RATE = 1_000_000_000_000;

/** A market's program as the operator set it. */
export interface RewardTerms {
  /** The pool paid for a whole UTC day of samples, in base units (a day sampled in part pays its part). */
  readonly dailyRate: number;
  /** v: the largest distance from the adjusted midpoint that scores, in micro-units (3 cents = 30,000). */
  readonly maxSpread: number;
  /** The smallest open size (base units) an order needs to score; also the size cutoff of the midpoint. */
  readonly minSize: number;
}

/** A market's program in the engine: its terms and since when it runs (engine time, ms; kept when terms change). */
export interface RewardProgram extends RewardTerms {
  readonly since: number;
}

/** The UTC day (days since 1970-01-01) that an engine time (ms) falls in. */
export function dayOf(time: number): number {
  return Math.floor(time / DAY_MS);
}

/**
 * A UTC day as YYYY-MM-DD, by the civil-from-days algorithm (H. Hinnant): the engine may not construct Dates
 * (eslint: no clock), and this is the same calendar.
 */
export function dayText(day: number): string {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** The UTC day of a YYYY-MM-DD text, or undefined when it is not a real date. */
export function dayOfText(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (m === null) return undefined;
  let y = Number(m[1]);
  const month = Number(m[2]);
  const d = Number(m[3]);
  if (month < 1 || month > 12 || d < 1 || d > 31) return undefined;
  y -= month <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  const day = era * 146_097 + doe - 719_468;
  return dayText(day) === text ? day : undefined;
}
