// The liquidity rewards tables for analysts: `reward_samples`, one row per maker of each RewardsSampled (the
// scores of equations 1 to 5: Q_one, Q_two, Q_min and the normalised share, with the adjusted midpoint and
// how many identical minutes the row stands for), and `reward_earnings`, one row per maker of each
// RewardsDistributed (a market's day: the maker's amount, whether it was paid, the day's pool). The payouts
// themselves are `ledger_events` rows of kind 'reward' (builders/fills.ts), where GET /activity reads REWARD.
// Stateless: each row comes from one event of one record.

import type { EventsRecord } from '../../log/eventLog.js';
import type { RowSink } from '../rows.js';
import { bool, text, time } from '../tsv.js';

export function projectRewards(record: EventsRecord, out: RowSink): void {
  for (const e of record.events) {
    if (e.type === 'RewardsSampled') {
      for (const [account, qOne, qTwo, qMin, share] of e.makers) {
        out.add('reward_samples', `${text(e.conditionId)}\t${record.pos}\t${e.seq}\t${time(e.at)}\t${e.samples}\t${e.midpoint}\t${text(account)}\t${qOne}\t${qTwo}\t${qMin}\t${share}\n`);
      }
    } else if (e.type === 'RewardsDistributed') {
      const paid = new Set<string>();
      for (const p of record.events) if (p.type === 'RewardPaid' && p.conditionId === e.conditionId && p.day === e.day) paid.add(p.account);
      for (const [account, amount] of e.earnings) {
        out.add('reward_earnings', `${text(e.conditionId)}\t${e.day}\t${record.pos}\t${e.seq}\t${time(e.time)}\t${text(account)}\t${amount}\t${bool(paid.has(account))}\t${e.pool}\t${e.samples}\n`);
      }
    }
  }
}
