// The published equations of upstream's liquidity rewards (docs.polymarket.com, Market Makers → Liquidity
// Rewards; docs/rewards.md writes each one out with its source), as pure integer functions. One book per
// market in outcome 0's price makes the two market sides plain: an outcome-0 bid and an outcome-1 ask
// (mirrored, "AskSize on m'") both rest on the book's bid side, so Q_one is the bid side's score and Q_two
// the ask side's. b, the in-game multiplier, is 1: no market here is in play.
//
// Units: prices and spreads in micro-units, sizes in base units. S(v,s)·size = ((v − s)/v)²·size is kept
// exact as the integer (v − s)²·size until a maker's side total is divided by v² (floored to a base unit of
// score); Q_min divides by c = 3 (floored); a sample's shares are fixed point (SHARE_SCALE), floored; the
// pool is split by the largest remainder, so the amounts add up to the pool exactly.

import { BID, type BookSide, type PriceLevel } from '../book/orderBook.js';
import { SHARE_SCALE, SINGLE_SIDED_DIVISOR, TWO_SIDED_ABOVE, TWO_SIDED_BELOW, type RewardTerms } from './rewardTerms.js';

/** A resting order as the equations see it. */
export interface RestingQuote {
  readonly account: string;
  readonly bookSide: BookSide;
  /** Price in outcome 0's terms (micro-units). */
  readonly bookPrice: number;
  /** Open size (base units). */
  readonly remaining: number;
}

/** One maker's scores in one sample: Q_one (bid side), Q_two (ask side), Q_min, all in base units of score. */
export interface MakerScore {
  readonly account: string;
  readonly qOne: number;
  readonly qTwo: number;
  readonly qMin: number;
}

/**
 * A side's price once the size cutoff applies: the price of the first level, from the best, at which the
 * open size summed from the best level reaches `minSize` (the best level itself when minSize is 0). Undefined
 * when the whole side holds less: orders smaller than the cutoff cannot move the midpoint alone.
 */
export function cutoffPrice(levels: readonly PriceLevel[], minSize: number): number | undefined {
  let depth = 0;
  for (const level of levels) {
    depth += level.size;
    if (depth >= minSize) return level.price;
  }
  return undefined;
}

/**
 * The size-cutoff-adjusted midpoint (micro-units): halfway between the bid and ask cutoff prices, or undefined
 * when either side is thinner than the cutoff. Prices are multiples of 0.0001, so the midpoint is an integer.
 */
export function adjustedMidpoint(bids: readonly PriceLevel[], asks: readonly PriceLevel[], minSize: number): number | undefined {
  const bid = cutoffPrice(bids, minSize);
  const ask = cutoffPrice(asks, minSize);
  return bid === undefined || ask === undefined ? undefined : (bid + ask) / 2;
}

/** s: an order's distance from the midpoint toward its own side; an order through the midpoint counts 0. */
export function spreadOf(bookSide: BookSide, bookPrice: number, mid: number): number {
  const s = bookSide === BID ? mid - bookPrice : bookPrice - mid;
  return s > 0 ? s : 0;
}

/**
 * Equation 1 times the size, scaled by v²: (v − s)²·size, the exact numerator of S(v,s)·size. Zero when the
 * order is at or beyond v, or smaller than the minimum size.
 */
export function scoreNumerator(quote: RestingQuote, mid: number, terms: RewardTerms): bigint {
  if (quote.remaining < terms.minSize) return 0n;
  const s = spreadOf(quote.bookSide, quote.bookPrice, mid);
  const v = terms.maxSpread;
  if (s >= v) return 0n;
  const d = BigInt(v - s);
  return d * d * BigInt(quote.remaining);
}

/** An order scores when its S(v,s)·size is positive: at least the minimum size, and less than v from the midpoint. */
export function quoteScores(quote: RestingQuote, mid: number, terms: RewardTerms): boolean {
  return scoreNumerator(quote, mid, terms) > 0n;
}

/** Whether single-sided liquidity may score at this midpoint: [0.10, 0.90] inclusive. */
export function singleSidedScores(mid: number): boolean {
  return mid >= TWO_SIDED_BELOW && mid <= TWO_SIDED_ABOVE;
}

/**
 * Equation 4: Q_min = max(min(Q_one, Q_two), max(Q_one, Q_two)/c) with the midpoint in [0.10, 0.90], else
 * min(Q_one, Q_two). max(Q_one/c, Q_two/c) = max(Q_one, Q_two)/c, floored to a base unit.
 */
export function qMinOf(qOne: number, qTwo: number, mid: number): number {
  const both = Math.min(qOne, qTwo);
  if (!singleSidedScores(mid)) return both;
  return Math.max(both, Math.floor(Math.max(qOne, qTwo) / SINGLE_SIDED_DIVISOR));
}

/**
 * Equations 1 to 4 for every maker with a scoring order in `quotes` (any order, any side): Q_one sums the bid
 * side's S·size, Q_two the ask side's, each divided by v² and floored. Sorted by account; makers whose Q_one
 * and Q_two are both 0 are left out.
 */
export function makerScores(quotes: Iterable<RestingQuote>, mid: number, terms: RewardTerms): MakerScore[] {
  // Exact sums of (v − s)²·size per maker and side. In plain numbers while they stay safe integers (every
  // realistic book), moved into a bigint part when one would not: the sampler runs once a minute, when the code
  // is seldom hot, and a bigint per order costs more than the rest of the sample.
  const sums = new Map<string, SideSums>();
  const v = terms.maxSpread;
  for (const q of quotes) {
    if (q.remaining < terms.minSize) continue;
    const s = spreadOf(q.bookSide, q.bookPrice, mid);
    if (s >= v) continue;
    let entry = sums.get(q.account);
    if (entry === undefined) {
      entry = new SideSums();
      sums.set(q.account, entry);
    }
    entry.add(q.bookSide === BID ? 0 : 1, v - s, q.remaining);
  }
  const v2 = BigInt(v) * BigInt(v);
  const out: MakerScore[] = [];
  for (const account of [...sums.keys()].sort()) {
    const entry = sums.get(account) as SideSums;
    const qOne = Number(entry.total(0) / v2);
    const qTwo = Number(entry.total(1) / v2);
    if (qOne === 0 && qTwo === 0) continue;
    out.push({ account, qOne, qTwo, qMin: qMinOf(qOne, qTwo, mid) });
  }
  return out;
}

/** One maker's Σ (v − s)²·size per side, exact: a safe-integer part and a bigint part for what overflows it. */
class SideSums {
  private readonly small = [0, 0];
  private readonly big = [0n, 0n];

  add(side: 0 | 1, d: number, size: number): void {
    const term = d * d * size;
    const sum = (this.small[side] as number) + term;
    if (term <= Number.MAX_SAFE_INTEGER && sum <= Number.MAX_SAFE_INTEGER) {
      this.small[side] = sum;
      return;
    }
    this.big[side] = (this.big[side] as bigint) + BigInt(this.small[side] as number) + BigInt(d) * BigInt(d) * BigInt(size);
    this.small[side] = 0;
  }

  total(side: 0 | 1): bigint {
    return (this.big[side] as bigint) + BigInt(this.small[side] as number);
  }
}

/**
 * Equation 5: each maker's Q_min over the sample's total, in fixed point (SHARE_SCALE = the whole sample),
 * floored. All zero when nobody's Q_min is positive.
 */
export function normalise(qMins: readonly number[]): number[] {
  let total = 0n;
  for (const q of qMins) total += BigInt(q);
  if (total === 0n) return qMins.map(() => 0);
  const scale = BigInt(SHARE_SCALE);
  return qMins.map((q) => Number((BigInt(q) * scale) / total));
}

/**
 * Equation 7 and the payout: `pool` (base units) split in proportion to `weights` (the makers' Q_epoch, in the
 * order given), each floored, and the base units the floors leave given one each to the largest remainders
 * (ties to the earlier weight), so the amounts add up to the pool exactly. All zero when the weights are.
 */
export function splitPool(pool: number, weights: readonly number[]): number[] {
  let total = 0n;
  for (const w of weights) total += BigInt(w);
  if (total === 0n || pool <= 0) return weights.map(() => 0);
  const big = BigInt(pool);
  const amounts = weights.map((w) => (big * BigInt(w)) / total);
  const remainders = weights.map((w, i) => ({ i, r: (big * BigInt(w)) % total }));
  let left = big - amounts.reduce((a, b) => a + b, 0n);
  remainders.sort((a, b) => (a.r === b.r ? a.i - b.i : a.r > b.r ? -1 : 1));
  for (const { i } of remainders) {
    if (left === 0n) break;
    amounts[i] = (amounts[i] as bigint) + 1n;
    left -= 1n;
  }
  return amounts.map(Number);
}
