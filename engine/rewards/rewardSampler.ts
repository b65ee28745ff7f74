// The sampler: once a minute of engine time, on the minute, every rewarded market that is open (active) is
// sampled from its book as it stands at that minute (equations 1 to 5), and each maker's normalised score is
// added to the day's accrual (equation 6); on the first minute of a new UTC day the previous day is paid
// first (rewardPayouts.ts). Engine time only: the engine samples when a command's time reaches the next
// minute (the host submits AdvanceTime then, so a quiet market is still sampled on time), and a replay of
// the log samples the same books at the same minutes.
//
// Before each sample, time steps to that minute and what falls due by then expires (GTD orders, heartbeat
// sessions), so a sample sees the book of its minute even when the command that reached it came later.
// Minutes during which nothing could change the book (no command came: a quiet spell, or the service was
// down) are the same sample repeated: they are sampled once and counted `samples` times, up to the next
// expiry or the end of the day, whichever is first.
//
// A market paused or not yet trading is not sampled (its pool does not accrue for those minutes); a resolved
// market's program ends at its next sample (MarketRewardsEnded, reason 'resolved').

import { ASK, BID, type OrderBook } from '../book/orderBook.js';
import type { EngineState } from '../state.js';
import type { Market } from '../market.js';
import { expireDue } from '../orderEntry.js';
import { expireHeartbeats } from '../heartbeats.js';
import { adjustedMidpoint, makerScores, normalise, spreadOf, type RestingQuote } from './rewardEquations.js';
import { closeRewardDay } from './rewardPayouts.js';
import { DAY_MS, SAMPLE_MS, dayOf, type RewardTerms } from './rewardTerms.js';

/** The orders of `book` that may score: each side from its best price until the spread reaches v. */
export function quotesInBand(book: OrderBook, mid: number, terms: RewardTerms): RestingQuote[] {
  const out: RestingQuote[] = [];
  for (const side of [BID, ASK] as const) {
    for (const o of book.orders(side)) {
      if (spreadOf(side, o.bookPrice, mid) >= terms.maxSpread) break;
      out.push({ account: o.account.address, bookSide: side, bookPrice: o.bookPrice, remaining: o.remaining });
    }
  }
  return out;
}

/** The size-cutoff-adjusted midpoint of a market's book under its terms, or undefined. */
export function midpointOf(market: Market, terms: RewardTerms): number | undefined {
  return adjustedMidpoint(market.book.levels(BID), market.book.levels(ASK), terms.minSize);
}

/** One sample of a market, counted `samples` times from `at`. */
function sampleMarket(state: EngineState, market: Market, terms: RewardTerms, at: number, samples: number): void {
  const accrual = state.rewards.accrualOf(market.conditionId);
  accrual.rateMinutes += terms.dailyRate * samples;
  accrual.samples += samples;
  const mid = midpointOf(market, terms);
  if (mid === undefined) return;
  const makers = makerScores(quotesInBand(market.book, mid, terms), mid, terms);
  if (makers.length === 0) return;
  const shares = normalise(makers.map((m) => m.qMin));
  makers.forEach((m, i) => {
    const share = shares[i] as number;
    if (share > 0) accrual.scores.set(m.account, (accrual.scores.get(m.account) ?? 0) + share * samples);
  });
  state.emit({
    type: 'RewardsSampled', conditionId: market.conditionId, at, samples, midpoint: mid,
    makers: makers.map((m, i) => [m.account, m.qOne, m.qTwo, m.qMin, shares[i] as number] as const),
  });
}

/** The first engine time after `at` at which something expires on its own (a GTD order, a heartbeat session). */
function nextExpiry(state: EngineState): number {
  const gtd = state.expiry.peekDue(Number.POSITIVE_INFINITY)?.expiresAt ?? Number.POSITIVE_INFINITY;
  const session = state.heartbeats.nextDeadline();
  // A session expires once time is past its deadline; a GTD order once time reaches its expiresAt.
  return Math.min(gtd, session === undefined ? Number.POSITIVE_INFINITY : session + 1);
}

/** Takes every sample due by engine time `time` (the command's), and pays each day that ends by then. */
export function advanceRewards(state: EngineState, time: number): void {
  const rewards = state.rewards;
  while (rewards.nextSampleAt <= time) {
    const at = rewards.nextSampleAt;
    if (at > state.now) {
      state.now = at;
      expireDue(state);
      expireHeartbeats(state);
    }
    const day = dayOf(at);
    if (rewards.day !== -1 && day > rewards.day) closeRewardDay(state);
    if (rewards.terms.size === 0) {
      // With no program left, only the day's payout may remain due: at the next day's first minute.
      rewards.nextSampleAt = rewards.day === -1 ? Number.POSITIVE_INFINITY : (rewards.day + 1) * DAY_MS;
      continue;
    }
    // Identical samples until the command's time, the day's last minute, or the next expiry.
    const until = Math.min(time, (day + 1) * DAY_MS - 1, nextExpiry(state) - 1);
    const samples = Math.max(1, Math.floor((until - at) / SAMPLE_MS) + 1);
    rewards.day = day;
    for (const [conditionId, terms] of [...rewards.terms].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const market = state.markets.get(conditionId);
      if (market === undefined) continue;
      if (market.status === 'resolved') {
        rewards.terms.delete(conditionId);
        state.emit({ type: 'MarketRewardsEnded', conditionId, reason: 'resolved' });
        continue;
      }
      if (market.status === 'active') sampleMarket(state, market, terms, at, samples);
    }
    rewards.nextSampleAt = at + samples * SAMPLE_MS;
  }
}
