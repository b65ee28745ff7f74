// The hand-off of the catalog's liquidity rewards to the engine: a catalog market that names a pool
// (`clobRewards` with a `rewardsDailyRate` above 0, as upstream's Gamma does) with `rewardsMaxSpread` (cents)
// and `rewardsMinSize` (shares) becomes the engine's program for that market (SetMarketRewards), and follows
// the catalog's terms when they change. Only markets the engine trades (listed, not resolved) and the
// catalog shows open. The catalog never ends a program: one without a pool leaves the engine's as it is, so
// a program the operator set on it (api/operator/rewardsOperatorRoutes.ts) stays; the operator's change to a
// market the catalog rewards lasts until the catalog hands its terms off again (at start and after a sync).
// Idempotent: terms equal to the engine's submit nothing.
//
// Units: the daily rate is the sum of the pool's rates (USDC a day; every asset counts as the collateral),
// to base units; the max spread in cents to micro-units (× 10,000); the minimum size in shares to base units,
// each rounded to an integer.

import type { EngineEvent } from '../../engine/index.js';
import { boolOf, isObject, numberOf, textOf, type GammaObject } from '../upstream/gammaValues.js';
import type { CommandSink } from './handOffMarkets.js';

/** What the rewards hand-off reads of the engine (engine/engine.ts). */
export interface EngineRewardsView {
  market(conditionId: string): { readonly status: string } | undefined;
  rewardTerms(): ReadonlyMap<string, { readonly dailyRate: number; readonly maxSpread: number; readonly minSize: number }>;
}

export interface RewardsHandOffReport {
  readonly set: number;
  readonly rejected: readonly { conditionId: string; command: string; message: string }[];
}

/** The engine terms a catalog market names, or undefined when it names no pool. */
export function rewardTermsOf(market: GammaObject): { conditionId: string; dailyRate: number; maxSpread: number; minSize: number } | undefined {
  const conditionId = (textOf(market.conditionId) ?? '').toLowerCase();
  const pools = Array.isArray(market.clobRewards) ? market.clobRewards.filter(isObject) : [];
  const rate = pools.reduce((n, p) => n + Math.max(0, numberOf(p.rewardsDailyRate ?? p.rewards_daily_rate) ?? 0), 0);
  const spread = numberOf(market.rewardsMaxSpread) ?? 0;
  const min = numberOf(market.rewardsMinSize) ?? 0;
  const dailyRate = Math.round(rate * 1_000_000);
  const maxSpread = Math.round(spread * 10_000);
  if (conditionId === '' || dailyRate <= 0 || maxSpread <= 0 || boolOf(market.closed) === true) return undefined;
  return { conditionId, dailyRate, maxSpread, minSize: Math.max(0, Math.round(min * 1_000_000)) };
}

export async function handOffRewards(host: CommandSink, engine: EngineRewardsView, markets: readonly unknown[]): Promise<RewardsHandOffReport> {
  const rejected: { conditionId: string; command: string; message: string }[] = [];
  const wanted = new Map<string, ReturnType<typeof rewardTermsOf> & object>();
  for (const m of markets) {
    if (!isObject(m)) continue;
    const terms = rewardTermsOf(m);
    if (terms !== undefined) wanted.set(terms.conditionId, terms);
  }
  const submissions: Promise<readonly EngineEvent[]>[] = [];
  const ids: string[] = [];
  for (const terms of wanted.values()) {
    const market = engine.market(terms.conditionId);
    if (market === undefined || market.status === 'resolved') continue;
    const now = engine.rewardTerms().get(terms.conditionId);
    if (now !== undefined && now.dailyRate === terms.dailyRate && now.maxSpread === terms.maxSpread && now.minSize === terms.minSize) continue;
    ids.push(terms.conditionId);
    submissions.push(host.submit({ type: 'SetMarketRewards', ...terms }));
  }
  let set = 0;
  (await Promise.all(submissions)).forEach((events, i) => {
    const refusal = events.find((e) => e.type === 'CommandRejected');
    if (refusal === undefined) set += 1;
    else rejected.push({ conditionId: ids[i] as string, command: 'SetMarketRewards', message: refusal.type === 'CommandRejected' ? refusal.message : '' });
  });
  return { set, rejected };
}
