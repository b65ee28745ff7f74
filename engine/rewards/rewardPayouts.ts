// The payout of a UTC day (equation 7 and the $1 minimum): each market's pool for the day, ⌊Σ rate / 1,440⌋
// over its samples (a whole day at one rate pays exactly that rate), is split by the makers' Q_epoch with
// splitPool (so the amounts add up to the pool), and every amount of at least $1 is credited to the maker's
// free collateral as new collateral into the exchange, counted with deposits (the operator funds the pool,
// as it funds a deposit). Amounts under $1 are withheld: not paid, not carried over. One RewardsDistributed
// per market and day, then a RewardPaid per maker paid, in account order, markets in condition id order.
//
// At most once per market and day: a day's accruals exist only while engine time is in that day and are
// dropped in the same step that pays them, which is part of applying one command (in its record, appended
// before any reply and replayed from the log after a crash), so no restart can pay a day twice or skip it.

import type { EngineState } from '../state.js';
import { MAX_BALANCE } from '../units.js';
import { splitPool } from './rewardEquations.js';
import { MIN_PAYOUT, SAMPLES_PER_DAY, dayText } from './rewardTerms.js';

/** Pays the accruals of the day under way and forgets them. */
export function closeRewardDay(state: EngineState): void {
  const rewards = state.rewards;
  if (rewards.day === -1) return;
  const day = dayText(rewards.day);
  for (const [conditionId, rateMinutes, samples, scores] of rewards.accrualEntries()) {
    const pool = Math.floor(rateMinutes / SAMPLES_PER_DAY);
    const amounts = splitPool(pool, scores.map(([, score]) => score));
    const earnings: [string, number][] = [];
    const payable: [string, number][] = [];
    let paid = 0;
    scores.forEach(([account], i) => {
      const amount = amounts[i] as number;
      if (amount === 0) return;
      earnings.push([account, amount]);
      const total = state.ledger.deposits - state.ledger.withdrawals + state.negRisk.unbacked + paid + amount;
      if (amount >= MIN_PAYOUT && total <= MAX_BALANCE) {
        payable.push([account, amount]);
        paid += amount;
      }
    });
    // A pool nobody earned (no maker scored all day) is not distributed: nothing to record.
    if (earnings.length === 0) continue;
    state.emit({ type: 'RewardsDistributed', conditionId, day, pool, samples, paid, withheld: pool - paid, earnings });
    for (const [address, amount] of payable) {
      const account = state.ledger.getOrCreate(address);
      account.free += amount;
      state.ledger.deposits += amount;
      state.emit({ type: 'RewardPaid', account: address, conditionId, day, amount });
    }
  }
  rewards.accrual.clear();
  rewards.day = -1;
}
