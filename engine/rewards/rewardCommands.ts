// The operator's commands of the rewards program: SetMarketRewards and EndMarketRewards. Refused, with nothing
// changed: an unknown market (MARKET_NOT_FOUND), a resolved one (MARKET_CLOSED), terms out of range
// (INVALID_COMMAND: a daily rate of 1 base unit to MAX_DAILY_RATE, a max spread of 1 to 500,000 micro-units
// (50 cents), a minimum size of 0 to MAX_ORDER_AMOUNT base units), ending a market without a program
// (REWARDS_NOT_FOUND). Setting terms equal to those in force still records MarketRewardsSet: an operator's
// call is in the log either way. The first program starts the sampling clock at the next minute.

import type { EndMarketRewards, SetMarketRewards } from '../commands.js';
import type { EngineState } from '../state.js';
import { isId } from '../commandChecks.js';
import { MAX_ORDER_AMOUNT, PRICE_ONE } from '../units.js';
import { MAX_DAILY_RATE, SAMPLE_MS } from './rewardTerms.js';

const MAX_SPREAD = PRICE_ONE / 2;

function isInteger(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

export function setMarketRewards(state: EngineState, cmd: SetMarketRewards): void {
  const where = { conditionId: typeof cmd.conditionId === 'string' ? cmd.conditionId : '' };
  const market = isId(cmd.conditionId) ? state.markets.get(cmd.conditionId) : undefined;
  if (market === undefined) return state.reject('SetMarketRewards', 'MARKET_NOT_FOUND', where);
  if (market.status === 'resolved') return state.reject('SetMarketRewards', 'MARKET_CLOSED', where);
  if (!isInteger(cmd.dailyRate, 1, MAX_DAILY_RATE)) return state.reject('SetMarketRewards', 'INVALID_COMMAND', where, { detail: `dailyRate must be an integer of 1 to ${MAX_DAILY_RATE} base units` });
  if (!isInteger(cmd.maxSpread, 1, MAX_SPREAD)) return state.reject('SetMarketRewards', 'INVALID_COMMAND', where, { detail: `maxSpread must be an integer of 1 to ${MAX_SPREAD} micro-units` });
  if (!isInteger(cmd.minSize, 0, MAX_ORDER_AMOUNT)) return state.reject('SetMarketRewards', 'INVALID_COMMAND', where, { detail: `minSize must be an integer of 0 to ${MAX_ORDER_AMOUNT} base units` });
  const rewards = state.rewards;
  const since = rewards.terms.get(market.conditionId)?.since ?? state.now;
  rewards.terms.set(market.conditionId, { dailyRate: cmd.dailyRate, maxSpread: cmd.maxSpread, minSize: cmd.minSize, since });
  // The next minute on the clock (a pending day close, due earlier or at the same time, stays first).
  const next = (Math.floor(state.now / SAMPLE_MS) + 1) * SAMPLE_MS;
  if (next < rewards.nextSampleAt) rewards.nextSampleAt = next;
  state.emit({ type: 'MarketRewardsSet', conditionId: market.conditionId, dailyRate: cmd.dailyRate, maxSpread: cmd.maxSpread, minSize: cmd.minSize });
}

export function endMarketRewards(state: EngineState, cmd: EndMarketRewards): void {
  const where = { conditionId: typeof cmd.conditionId === 'string' ? cmd.conditionId : '' };
  if (!isId(cmd.conditionId) || !state.markets.has(cmd.conditionId)) return state.reject('EndMarketRewards', 'MARKET_NOT_FOUND', where);
  if (!state.rewards.terms.delete(cmd.conditionId)) return state.reject('EndMarketRewards', 'REWARDS_NOT_FOUND', where, where);
  state.emit({ type: 'MarketRewardsEnded', conditionId: cmd.conditionId, reason: 'operator' });
}
