// Running totals per account, for the leaderboards (readModel/leaderboard.ts), in integers:
//   cash     collateral in minus collateral out through trading: sells (after fees), merges, redemptions
//            and conversions in, buys, splits out. It equals Σ (realized_pnl − cost) over the account's
//            positions (projections/builders/positions.ts), so an account's PnL is cash + the value of what it
//            holds, and cash is a lower bound of it
//   tokens   outcome tokens held, all tokens together: cash + tokens bounds the PnL from above (no token is
//            worth more than 1)
//   volume   collateral of the account's fill sides (Σ usdcSize of its trades, both roles)
// A latest-state table like positions: a row per account changed in a batch, at the batch's last version.
// Deposits and withdrawals are not trading and leave the totals alone; the fee account's fees are not fill
// sides and are not counted (it is no trader).

import type { EventsRecord } from '../../log/eventLog.js';
import type { FillSide } from '../../engine/index.js';
import type { RowSink } from '../rows.js';

export interface AccountTotals {
  readonly account: string;
  cash: number;
  tokens: number;
  volume: number;
  updatedAt: number;
}

export class AccountTotalsBuilder {
  readonly totals = new Map<string, AccountTotals>();
  /** Accounts changed in the current batch, with the log position of their last change. */
  private pending = new Map<AccountTotals, number>();

  restore(t: AccountTotals): void {
    this.totals.set(t.account, t);
  }

  private of(account: string, version: number, at: number): AccountTotals {
    let t = this.totals.get(account);
    if (t === undefined) {
      t = { account, cash: 0, tokens: 0, volume: 0, updatedAt: at };
      this.totals.set(account, t);
    }
    t.updatedAt = at;
    this.pending.set(t, version);
    return t;
  }

  private fillSide(s: FillSide, size: number, at: number, version: number): void {
    const t = this.of(s.account, version, at);
    t.volume += s.amount;
    if (s.side === 'BUY') {
      t.cash -= s.amount;
      t.tokens += size - s.fee;
    } else {
      t.cash += s.amount - s.fee;
      t.tokens -= size;
    }
  }

  apply(record: EventsRecord): void {
    const version = record.pos;
    for (const e of record.events) {
      switch (e.type) {
        case 'TradeExecuted':
          this.fillSide(e.taker, e.size, e.time, version);
          this.fillSide(e.maker, e.size, e.time, version);
          break;
        case 'PositionSplit': {
          const t = this.of(e.account, version, e.time);
          t.cash -= e.amount;
          t.tokens += 2 * e.amount;
          break;
        }
        case 'PositionsMerged': {
          const t = this.of(e.account, version, e.time);
          t.cash += e.amount;
          t.tokens -= 2 * e.amount;
          break;
        }
        case 'PositionRedeemed': {
          const t = this.of(e.account, version, e.time);
          t.cash += e.payout;
          t.tokens -= e.burned[0] + e.burned[1];
          break;
        }
        case 'PositionsConverted': {
          const t = this.of(e.account, version, e.time);
          t.cash += e.payout;
          t.tokens += e.amount * (e.yesTokenIds.length - e.noTokenIds.length);
          break;
        }
        default:
          break;
      }
    }
  }

  /** Moves the batch's rows into `out`: each changed account once, as it stands at the end of the batch. */
  flush(out: RowSink): void {
    for (const [t, version] of this.pending) {
      out.row('account_totals').string(t.account).int(t.cash).int(t.tokens).int(t.volume).time(t.updatedAt).int(version).end();
    }
    this.pending = new Map();
  }
}
