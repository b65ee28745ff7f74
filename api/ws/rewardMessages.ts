// The user channel's message for a liquidity reward credited to the receiver's account (engine/rewards/,
// RewardPaid). Upstream pays rewards on chain at midnight UTC and has no user-channel event for them; this
// venue credits them in its ledger, so the account's API keys hear of it as of a conversion: `amount` in
// USDC as a decimal string, `date` the UTC day earned, `transaction_hash` as GET /activity gives a ledger
// event's (the same REWARD row), `timestamp` ms as a string.

import { formatUnits, type RewardPaid } from '../../engine/index.js';

export function rewardEvent(e: RewardPaid, transactionHash: string): Record<string, unknown> {
  return {
    event_type: 'reward',
    type: 'REWARD',
    market: e.conditionId,
    date: e.day,
    amount: formatUnits(e.amount),
    maker_address: e.account,
    transaction_hash: transactionHash,
    timestamp: String(e.time),
  };
}
