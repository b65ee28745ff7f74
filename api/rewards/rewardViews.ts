// The rewards endpoints' objects in upstream's shapes (docs.polymarket.com API reference, Rewards; the official
// client's types MarketReward, UserEarning, TotalUserEarning, UserRewardsEarning, RewardsPercentages), from
// the engine's programs and the catalog index, with their JSON schemas.
//
// Numbers as upstream gives them: rewards_max_spread in cents, rewards_min_size in shares, rates and earnings
// in USDC (floats at this edge only), prices 0..1. Every program pays the exchange's collateral
// (`asset_address` the USDC.e address upstream's reward configurations show, asset_rate 1). A program is
// open-ended: start_date the UTC day it was set, end_date 2500-12-31 and total_rewards 0, as upstream shows an
// open-ended configuration; total_days counts the days between.

import { PRICE_ONE, UNIT, dayOf, dayOfText, dayText, type Engine, type RewardProgram } from '../../engine/index.js';
import type { Market } from '../../engine/market.js';
import type { IndexedMarket } from '../../catalog/marketIndex.js';
import type { JsonSchema } from '../http/apiTypes.js';
import { arr, bool, int, num, obj, str } from '../schemas/common.js';
import { marksOf } from '../clob/bookView.js';

/** The collateral rewards are paid in (Polygon USDC.e, as upstream's reward configurations name it). */
export const REWARD_ASSET = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';
/** The end date of an open-ended program, as upstream shows it. */
export const OPEN_END = '2500-12-31';

const usdc = (units: number): number => units / UNIT;
const price = (micro: number): number => micro / PRICE_ONE;

export interface RewardConfigWire {
  id: number;
  asset_address: string;
  start_date: string;
  end_date: string;
  rate_per_day: number;
  total_rewards: number;
  total_days?: number;
}

export function rewardConfig(program: RewardProgram, id: number, withDays: boolean): RewardConfigWire {
  const start = dayOf(program.since);
  const config: RewardConfigWire = { id, asset_address: REWARD_ASSET, start_date: dayText(start), end_date: OPEN_END, rate_per_day: usdc(program.dailyRate), total_rewards: 0 };
  if (withDays) config.total_days = (dayOfText(OPEN_END) as number) - start + 1;
  return config;
}

/** The market's tokens with their marks (api/clob/bookView.ts marksOf: upstream's displayed price), 0 when none. */
export function rewardTokens(engine: Engine, market: Market, info: IndexedMarket | undefined): { token_id: string; outcome: string; price: number }[] {
  const marks = marksOf(engine, market);
  const labels = info?.outcomes ?? ['Yes', 'No'];
  return market.tokenIds.map((tokenId, i) => ({ token_id: tokenId, outcome: labels[i] as string, price: marks === undefined ? 0 : price(marks[i] as number) }));
}

/** Competitiveness: the total Q_min of a sample taken now, in shares (0 when nobody scores). */
export function competitiveness(engine: Engine, conditionId: string): number {
  const sample = engine.rewardSampleNow(conditionId);
  return sample === undefined ? 0 : usdc(sample.makers.reduce((n, m) => n + m.qMin, 0));
}

/** /rewards/markets/current's item. */
export function currentReward(conditionId: string, program: RewardProgram): Record<string, unknown> {
  return {
    condition_id: conditionId,
    rewards_max_spread: program.maxSpread / 10_000,
    rewards_min_size: usdc(program.minSize),
    rewards_config: [rewardConfig(program, 0, false)],
    native_daily_rate: usdc(program.dailyRate),
    total_daily_rate: usdc(program.dailyRate),
  };
}

/** /rewards/markets/{condition_id}'s item: the market with its program. */
export function marketReward(engine: Engine, market: Market, program: RewardProgram, info: IndexedMarket | undefined): Record<string, unknown> {
  return {
    condition_id: market.conditionId,
    question: info?.question ?? '',
    market_slug: info?.slug ?? '',
    event_slug: info?.event?.slug ?? '',
    image: info?.image ?? '',
    rewards_max_spread: program.maxSpread / 10_000,
    rewards_min_size: usdc(program.minSize),
    market_competitiveness: competitiveness(engine, market.conditionId),
    tokens: rewardTokens(engine, market, info),
    rewards_config: [rewardConfig(program, 0, true)],
  };
}

/** A day's date as upstream writes it in earnings: midnight UTC. */
export const earningDate = (day: number): string => `${dayText(day)}T00:00:00Z`;

export function userEarning(day: number, conditionId: string, maker: string, amount: number): Record<string, unknown> {
  return { date: earningDate(day), condition_id: conditionId, asset_address: REWARD_ASSET, maker_address: maker, earnings: usdc(amount), asset_rate: 1 };
}

// ---- Schemas ----

const TOKEN = obj({ token_id: str(), outcome: str(), price: num('The mark: the midpoint, else the last trade; 0 when none.') });
const CONFIG = obj(
  {
    id: int(), asset_address: str('The collateral rewards are paid in.'), start_date: str('YYYY-MM-DD, the UTC day the program was set.'),
    end_date: str('2500-12-31: programs are open-ended.'), rate_per_day: num('USDC a UTC day.'), total_rewards: num('0: open-ended.'),
    total_days: int('Days from start_date to end_date.'),
  },
  { optional: ['total_days'] },
);

export const CURRENT_REWARD: JsonSchema = obj({
  condition_id: str(), rewards_max_spread: num('Cents from the size-cutoff-adjusted midpoint.'), rewards_min_size: num('Shares.'), rewards_config: arr(CONFIG),
  native_daily_rate: num('USDC a day.'), total_daily_rate: num('USDC a day (no sponsors here).'),
});

export const MARKET_REWARD: JsonSchema = obj({
  condition_id: str(), question: str(), market_slug: str(), event_slug: str(), image: str(),
  rewards_max_spread: num('Cents.'), rewards_min_size: num('Shares.'), market_competitiveness: num('Total Q_min of a sample taken now, in shares.'),
  tokens: arr(TOKEN), rewards_config: arr(CONFIG),
});

export const USER_EARNING: JsonSchema = obj({
  date: str('The UTC day, as YYYY-MM-DDT00:00:00Z.'), condition_id: str(), asset_address: str(), maker_address: str(), earnings: num('USDC; the day under way: earned so far.'), asset_rate: num(),
});

export const TOTAL_EARNING: JsonSchema = obj({ date: str(), asset_address: str(), maker_address: str(), earnings: num('USDC.'), asset_rate: num() });

export const USER_REWARDS_MARKET: JsonSchema = obj(
  {
    condition_id: str(), market_id: str('The catalog id.'), event_id: str(), question: str(), market_slug: str(), event_slug: str(), image: str(),
    rewards_max_spread: num('Cents.'), rewards_min_size: num('Shares.'), spread: num('Best ask − best bid now; 0 without both.'),
    market_competitiveness: num(), tokens: arr(TOKEN), rewards_config: arr(CONFIG), maker_address: str(),
    earning_percentage: num("The maker's share of a sample taken now, in percent."),
    earnings: arr(obj({ asset_address: str(), earnings: num('USDC earned on the date.'), asset_rate: num() })),
  },
);

/** A cursor page of upstream's rewards endpoints. */
export function rewardsPage(item: JsonSchema, withTotal = false): JsonSchema {
  return obj(
    { limit: int(), count: int(), ...(withTotal ? { total_count: int() } : {}), next_cursor: str('"LTE=" when no page follows.'), data: arr(item) },
  );
}

export const SCORING: JsonSchema = obj({ scoring: bool('Whether a sample taken now scores the order.') });
export const SCORING_MAP: JsonSchema = { type: 'object', additionalProperties: { type: 'boolean' }, description: 'Order id → whether it scores now.' };
export const PERCENTAGES: JsonSchema = { type: 'object', additionalProperties: { type: 'number' }, description: "Condition id → the caller's share of a sample taken now, in percent." };
