// The liquidity rewards tables for analysts: `reward_samples`, one row per maker of each RewardsSampled (the
// scores of equations 1 to 5: Q_one, Q_two, Q_min and the normalised share, with the adjusted midpoint and
// how many identical minutes the row stands for), and `reward_earnings`, one row per maker of each
// RewardsDistributed (a market's day: the maker's amount, whether it was paid, the day's pool). The payouts
// themselves are `ledger_events` rows of kind 'reward' (builders/fills.ts), where GET /activity reads REWARD.
// Stateless: each row comes from one event of one record.

import type { EventsRecord } from '../../log/eventLog.js';
import type { RowSink } from '../rows.js';

export function projectRewards(record: EventsRecord, out: RowSink): void {
  for (const e of record.events) {
    if (e.type === 'RewardsSampled') {
      for (const [account, qOne, qTwo, qMin, share] of e.makers) {
        out.row('reward_samples').string(e.conditionId).int(record.pos).int(e.seq).time(e.at).int(e.samples).int(e.midpoint).string(account).int(qOne).int(qTwo).int(qMin).int(share).end();
      }
    } else if (e.type === 'RewardsDistributed') {
      const paid = new Set<string>();
      for (const p of record.events) if (p.type === 'RewardPaid' && p.conditionId === e.conditionId && p.day === e.day) paid.add(p.account);
      for (const [account, amount] of e.earnings) {
        out.row('reward_earnings').string(e.conditionId).string(e.day).int(record.pos).int(e.seq).time(e.time).string(account).int(amount).bool(paid.has(account)).int(e.pool).int(e.samples).end();
      }
    }
  }
}
