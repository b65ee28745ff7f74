// What the API asks of the rewards program, answered from the engine's state by the sampler's own rules:
// whether an order scores now, the makers' shares of a sample taken now, and the day's earnings so far.

import type { EngineState } from '../state.js';
import type { Order } from '../order.js';
import { makerScores, normalise, quoteScores, type MakerScore } from './rewardEquations.js';
import { midpointOf, quotesInBand } from './rewardSampler.js';
import { splitPool } from './rewardEquations.js';
import { SAMPLES_PER_DAY, SHARE_SCALE, type RewardTerms } from './rewardTerms.js';

/** A market's program now: its terms and the size-cutoff-adjusted midpoint (undefined when the book is too thin). */
export interface RewardsNow {
  readonly terms: RewardTerms;
  readonly midpoint: number | undefined;
}

export function rewardsNow(state: EngineState, conditionId: string): RewardsNow | undefined {
  const terms = state.rewards.terms.get(conditionId);
  const market = state.markets.get(conditionId);
  if (terms === undefined || market === undefined) return undefined;
  return { terms, midpoint: market.status === 'active' ? midpointOf(market, terms) : undefined };
}

/**
 * True when a sample taken now would score the order: it rests in an open rewarded market with at least the
 * minimum size and less than the max spread from the adjusted midpoint (its S(v,s)·size is positive).
 */
export function orderScoring(state: EngineState, order: Order): boolean {
  const now = rewardsNow(state, order.market.conditionId);
  if (now === undefined || now.midpoint === undefined) return false;
  return quoteScores({ account: order.account.address, bookSide: order.bookSide, bookPrice: order.bookPrice, remaining: order.remaining }, now.midpoint, now.terms);
}

/** A sample of a market taken now: its midpoint and each maker's scores with its share (0..1), by account. */
export interface SampleNow {
  readonly midpoint: number;
  readonly makers: readonly (MakerScore & { readonly share: number })[];
}

/** The sample the sampler would take of a rewarded, open market now; undefined without a program or a midpoint. */
export function sampleNow(state: EngineState, conditionId: string): SampleNow | undefined {
  const now = rewardsNow(state, conditionId);
  const market = state.markets.get(conditionId);
  if (now === undefined || now.midpoint === undefined || market === undefined) return undefined;
  const makers = makerScores(quotesInBand(market.book, now.midpoint, now.terms), now.midpoint, now.terms);
  const shares = normalise(makers.map((m) => m.qMin));
  return { midpoint: now.midpoint, makers: makers.map((m, i) => ({ ...m, share: (shares[i] as number) / SHARE_SCALE })) };
}

/** Each maker's share of a sample taken now, as a fraction of 1 (makers with a positive share only). */
export function sharesNow(state: EngineState, conditionId: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of sampleNow(state, conditionId)?.makers ?? []) if (m.share > 0) out.set(m.account, m.share);
  return out;
}

/** The day under way in a market: its UTC day, samples, pool so far and each maker's earnings so far (base units). */
export interface DaySoFar {
  readonly day: number;
  readonly samples: number;
  readonly pool: number;
  readonly earnings: ReadonlyMap<string, number>;
}

/** The day's pool so far split as it would be paid now (splitPool over Q_epoch so far). */
export function daySoFar(state: EngineState, conditionId: string): DaySoFar | undefined {
  const rewards = state.rewards;
  const accrual = rewards.accrual.get(conditionId);
  if (accrual === undefined || rewards.day === -1) return undefined;
  const pool = Math.floor(accrual.rateMinutes / SAMPLES_PER_DAY);
  const scores = [...accrual.scores].sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const amounts = splitPool(pool, scores.map(([, s]) => s));
  const earnings = new Map<string, number>();
  scores.forEach(([account], i) => earnings.set(account, amounts[i] as number));
  return { day: rewards.day, samples: accrual.samples, pool, earnings };
}

/** An account's earnings so far in the day under way, by market (markets where it earned nothing left out). */
export function earningsSoFar(state: EngineState, account: string): { readonly day: number; readonly byMarket: Map<string, number> } | undefined {
  const rewards = state.rewards;
  if (rewards.day === -1) return undefined;
  const byMarket = new Map<string, number>();
  for (const conditionId of [...rewards.accrual.keys()].sort()) {
    const amount = daySoFar(state, conditionId)?.earnings.get(account) ?? 0;
    if (amount > 0) byMarket.set(conditionId, amount);
  }
  return { day: rewards.day, byMarket };
}
