// The published equations of the liquidity rewards program as pure functions (engine/rewards/rewardEquations.ts):
// upstream's own worked example (docs.polymarket.com, Liquidity Rewards, steps 2 and 3), the size cutoff of the
// midpoint, Q_min's two-sided rule inside and outside [0.10, 0.90], normalisation and the exact pool split.

import t from 'tap';
import { ASK, BID } from '../../engine/book/orderBook.js';
import { adjustedMidpoint, cutoffPrice, makerScores, normalise, qMinOf, splitPool, type RestingQuote } from '../../engine/rewards/rewardEquations.js';
import { dayOfText, dayText } from '../../engine/rewards/rewardTerms.js';

const shares = (n: number): number => n * 1_000_000;
const cents = (n: number): number => Math.round(n * 10_000);
const TERMS = { dailyRate: 1, maxSpread: cents(3), minSize: 0 };
const MID = 500_000;

function quote(bookSide: 0 | 1, price: number, size: number, account = '0xa'): RestingQuote {
  return { account, bookSide, bookPrice: Math.round(price * 1_000_000), remaining: shares(size) };
}

t.test("upstream's worked example: mid 0.50, v = 3 cents", async (t) => {
  // Step 2: 100 bid on m @0.49, 200 bid on m @0.48, 100 ask on m' @0.51 (m' = NO: it rests as a bid at 0.49).
  // Q_one = (2/3)²·100 + (1/3)²·200 + (2/3)²·100 = 111.11… shares.
  const one = makerScores([quote(BID, 0.49, 100), quote(BID, 0.48, 200), quote(BID, 1 - 0.51, 100)], MID, TERMS);
  t.same(one, [{ account: '0xa', qOne: 111_111_111, qTwo: 0, qMin: 37_037_037 }], 'Q_one in base units of score, floored; one-sided: Q_min = Q_one / 3');
  // Step 3's arithmetic: orders 1.5, 2 and 0.5 cents from the midpoint on the other side of the book (equation 3:
  // asks on m and bids on m'; the page's step 3 lists a bid on m and an ask on m', which equation 3 puts in
  // Q_one: docs/rewards.md follows the equations). (1.5/3)²·100 + (1/3)²·100 + (2.5/3)²·200 = 175 shares.
  const two = makerScores([quote(ASK, 0.515, 100), quote(ASK, 0.52, 100), quote(ASK, 0.505, 200)], MID, TERMS);
  t.same(two, [{ account: '0xa', qOne: 0, qTwo: 175_000_000, qMin: 58_333_333 }]);
  const both = makerScores([quote(BID, 0.49, 100), quote(BID, 0.48, 200), quote(BID, 0.49, 100), quote(ASK, 0.515, 100), quote(ASK, 0.52, 100), quote(ASK, 0.505, 200)], MID, TERMS);
  t.same(both, [{ account: '0xa', qOne: 111_111_111, qTwo: 175_000_000, qMin: 111_111_111 }], 'both sides: Q_min = min(Q_one, Q_two)');
});

t.test('an order scores only below v from the midpoint and from the minimum size up', async (t) => {
  const terms = { dailyRate: 1, maxSpread: cents(3), minSize: shares(10) };
  t.same(makerScores([quote(BID, 0.47, 100)], MID, terms), [], 'exactly v away: S = 0');
  t.same(makerScores([quote(BID, 0.49, 9.99)], MID, terms), [], 'under the minimum size');
  t.same(makerScores([quote(BID, 0.49, 10)], MID, terms), [{ account: '0xa', qOne: 4_444_444, qTwo: 0, qMin: 1_481_481 }], 'the minimum size itself scores');
  t.same(makerScores([quote(BID, 0.51, 9)], MID, { ...terms, minSize: 0 }), [{ account: '0xa', qOne: 9_000_000, qTwo: 0, qMin: 3_000_000 }], 'a bid through the midpoint scores as at it (s = 0)');
});

t.test('sums past 2^53 stay exact', async (t) => {
  // 10^15 base units (the largest order) 0.5 cents from the midpoint with v = 50 cents: (v − s)²·size ≈ 2.45·10^26.
  const terms = { dailyRate: 1, maxSpread: 500_000, minSize: 0 };
  const huge = [quote(BID, 0.495, 1e9), quote(BID, 0.49, 1e9), quote(BID, 0.3, 0.01), quote(ASK, 0.51, 123.45)];
  const exact = (d: number, size: number): bigint => BigInt(d) * BigInt(d) * BigInt(size);
  const v2 = 500_000n * 500_000n;
  const one = (exact(495_000, 1e15) + exact(490_000, 1e15) + exact(300_000, 10_000)) / v2;
  const two = exact(490_000, 123_450_000) / v2;
  t.same(makerScores(huge, MID, terms), [{ account: '0xa', qOne: Number(one), qTwo: Number(two), qMin: Math.max(Number(two), Math.floor(Number(one) / 3)) }]);
});

t.test('Q_min: single-sided at 1/c inside [0.10, 0.90], two-sided only outside', async (t) => {
  t.equal(qMinOf(90, 30, 500_000), 30, 'min(Q_one, Q_two) when it is larger than max/3');
  t.equal(qMinOf(90, 10, 500_000), 30, 'max(Q_one, Q_two)/3 when larger');
  t.equal(qMinOf(90, 0, 100_000), 30, '0.10 is inside the range');
  t.equal(qMinOf(90, 0, 900_000), 30, '0.90 is inside the range');
  t.equal(qMinOf(90, 0, 99_950), 0, 'below 0.10: one-sided scores nothing');
  t.equal(qMinOf(90, 0, 900_050), 0, 'above 0.90: one-sided scores nothing');
  t.equal(qMinOf(90, 10, 950_000), 10, 'above 0.90: min(Q_one, Q_two)');
  t.equal(qMinOf(10, 10, 500_000), 10);
});

t.test('the size-cutoff-adjusted midpoint', async (t) => {
  const level = (p: number, size: number) => ({ price: Math.round(p * 1e6), size: shares(size), orders: 1 });
  t.equal(cutoffPrice([level(0.49, 5), level(0.48, 3), level(0.47, 100)], shares(10)), 470_000, 'the level where the depth from the best reaches the cutoff');
  t.equal(cutoffPrice([level(0.49, 5), level(0.48, 5)], shares(10)), 480_000, 'reached exactly');
  t.equal(cutoffPrice([level(0.49, 5)], shares(10)), undefined, 'a side thinner than the cutoff has no price');
  t.equal(cutoffPrice([level(0.49, 5)], 0), 490_000, 'no cutoff: the best level');
  t.equal(adjustedMidpoint([level(0.49, 100)], [level(0.50, 5), level(0.51, 100)], shares(10)), 500_000, 'a 5-share ask at 0.50 does not move it (the raw midpoint is 0.495)');
  t.equal(adjustedMidpoint([level(0.49, 100)], [level(0.52, 100)], 0), 505_000, 'halves of a tick are whole micro-units');
  t.equal(adjustedMidpoint([], [level(0.52, 100)], 0), undefined);
});

t.test('normalisation and the exact split of a pool', async (t) => {
  t.same(normalise([40, 10]), [800_000_000_000, 200_000_000_000]);
  t.same(normalise([1, 1, 1]), [333_333_333_333, 333_333_333_333, 333_333_333_333], 'floored');
  t.same(normalise([0, 0]), [0, 0]);
  t.same(splitPool(10_000_000, [1152, 216, 72]), [8_000_000, 1_500_000, 500_000]);
  t.same(splitPool(100, [1, 1, 1]), [34, 33, 33], 'the unit left by the floors goes to the earliest of equal remainders');
  t.same(splitPool(10, [1, 2, 4]), [1, 3, 6], 'largest remainders first (10/7, 20/7, 40/7)');
  t.same(splitPool(5, [0, 0]), [0, 0]);
  for (let i = 0; i < 200; i++) {
    const weights = Array.from({ length: 1 + (i % 7) }, (_, j) => ((i * 7919 + j * 104_729) % 1_000_003) * 1_000_000);
    const pool = (i * 999_983) % 1_000_000_007;
    const total = splitPool(pool, weights).reduce((a, b) => a + b, 0);
    if (total !== (weights.some((w) => w > 0) ? pool : 0)) t.fail(`split ${pool} by ${weights.join(',')} adds up to ${total}`);
  }
});

t.test('UTC days', async (t) => {
  t.equal(dayText(0), '1970-01-01');
  t.equal(dayText(19_676), '2023-11-15');
  t.equal(dayText(11_016), '2000-02-29');
  t.equal(dayOfText('2023-11-15'), 19_676);
  t.equal(dayOfText('2000-02-29'), 11_016);
  t.equal(dayOfText('2023-02-29'), undefined, 'not a date');
  t.equal(dayOfText('2023-1-01'), undefined);
  for (let d = -1000; d < 60_000; d += 37) if (dayOfText(dayText(d)) !== d) t.fail(`day ${d}`);
});
