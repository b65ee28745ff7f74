// Positions per (address, token) on an average-cost basis, in integers:
//   size          tokens held (free + reserved)
//   cost          collateral paid for what is held (base units); avgPrice = cost / size
//   total_bought  tokens ever acquired
//   realized_pnl  collateral realised by sells, merges and redemptions, minus the cost of what left
// A buy adds its collateral to cost (a buyer's fee, paid in tokens, raises the average price); a sell,
// merge or redemption removes cost pro rata. Split and merge count as a trade at 0.5 on each side (one unit
// of collateral for one of each outcome). Fees collected by the fee account enter it at zero cost.

import type { LogRecord } from '../../log/eventLog.js';
import type { Outcome } from '../../engine/index.js';
import { chTime, type Row, type RowSink } from '../rows.js';
import type { MarketsBuilder } from './markets.js';

export interface PositionState {
  account: string;
  tokenId: string;
  conditionId: string;
  outcome: Outcome;
  size: number;
  cost: number;
  totalBought: number;
  realizedPnl: number;
  updatedAt: number;
}

/** floor(a × b / c) exactly for safe integers whose product may pass 2^53. */
function mulDiv(a: number, b: number, c: number): number {
  return Number((BigInt(a) * BigInt(b)) / BigInt(c));
}

export class PositionsBuilder {
  readonly positions = new Map<string, PositionState>();
  /** The latest row of each position changed in the current batch (one row per position per batch). */
  private pending = new Map<string, Row>();

  constructor(
    private readonly markets: MarketsBuilder,
    private readonly feeAccount: string,
  ) {}

  restore(p: PositionState): void {
    this.positions.set(`${p.account}\u0000${p.tokenId}`, p);
  }

  private position(account: string, tokenId: string, touched: Map<string, PositionState>): PositionState {
    const key = `${account}\u0000${tokenId}`;
    let p = this.positions.get(key);
    if (p === undefined) {
      const ref = this.markets.byToken.get(tokenId);
      p = { account, tokenId, conditionId: ref?.market.conditionId ?? '', outcome: ref?.outcome ?? 0, size: 0, cost: 0, totalBought: 0, realizedPnl: 0, updatedAt: 0 };
      this.positions.set(key, p);
    }
    touched.set(key, p);
    return p;
  }

  private buy(p: PositionState, tokens: number, paid: number, time: number): void {
    p.size += tokens;
    p.cost += paid;
    p.totalBought += tokens;
    p.updatedAt = time;
  }

  private sell(p: PositionState, tokens: number, proceeds: number, time: number): void {
    const costOut = p.size === 0 ? 0 : mulDiv(p.cost, Math.min(tokens, p.size), p.size);
    p.realizedPnl += proceeds - costOut;
    p.cost -= costOut;
    p.size -= tokens;
    p.updatedAt = time;
  }

  apply(record: LogRecord): void {
    const touched = new Map<string, PositionState>();
    for (const e of record.events) {
      switch (e.type) {
        case 'TradeExecuted':
          for (const s of [e.taker, e.maker]) {
            const p = this.position(s.account, s.tokenId, touched);
            if (s.side === 'BUY') {
              this.buy(p, e.size - s.fee, s.amount, e.time);
              if (s.fee > 0) this.buy(this.position(this.feeAccount, s.tokenId, touched), s.fee, 0, e.time);
            } else {
              this.sell(p, e.size, s.amount - s.fee, e.time);
            }
          }
          break;
        case 'PositionSplit':
        case 'PositionsMerged': {
          const m = this.markets.markets.get(e.conditionId);
          if (m === undefined) break;
          const half = Math.floor(e.amount / 2);
          const shares: [number, number] = [half, e.amount - half];
          m.tokens.forEach((tokenId, i) => {
            const p = this.position(e.account, tokenId, touched);
            if (e.type === 'PositionSplit') this.buy(p, e.amount, shares[i] as number, e.time);
            else this.sell(p, e.amount, shares[i] as number, e.time);
          });
          break;
        }
        case 'PositionRedeemed': {
          const m = this.markets.markets.get(e.conditionId);
          if (m === undefined) break;
          m.tokens.forEach((tokenId, i) => {
            const burned = e.burned[i] as number;
            if (burned === 0) return;
            this.sell(this.position(e.account, tokenId, touched), burned, i === e.winningOutcome ? burned : 0, e.time);
          });
          break;
        }
        default:
          break;
      }
    }
    for (const [key, p] of touched) {
      this.pending.set(key, {
        account: p.account, token_id: p.tokenId, condition_id: p.conditionId, outcome: p.outcome, size: p.size, cost: p.cost,
        total_bought: p.totalBought, realized_pnl: p.realizedPnl, updated_at: chTime(p.updatedAt), version: record.pos,
      });
    }
  }

  /** Moves the batch's position rows into `out`: each changed position once, as it stands at the end of the batch. */
  flush(out: RowSink): void {
    for (const row of this.pending.values()) out.add('positions', row);
    this.pending = new Map();
  }
}
