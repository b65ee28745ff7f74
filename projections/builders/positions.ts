// Positions per (address, token) on an average-cost basis, in integers:
//   size          tokens held (free + reserved)
//   cost          collateral paid for what is held (base units); avgPrice = cost / size
//   total_bought  tokens ever acquired
//   total_cost    collateral ever paid for them (total_cost / total_bought: the average buy price, which
//                 /closed-positions shows once the position is closed and cost is 0)
//   realized_pnl  collateral realised by sells, merges and redemptions, minus the cost of what left
// A buy adds its collateral to cost (a buyer's fee, paid in tokens, raises the average price); a sell,
// merge or redemption removes cost pro rata. Split and merge count as a trade at 0.5 on each side (one unit
// of collateral for one of each outcome); a neg-risk conversion moves the cost of the NO given to the YES
// received, less the collateral received (convert()). Fees collected by the fee account enter it at zero cost.

import type { EventsRecord } from '../../log/eventLog.js';
import type { FillSide, Outcome } from '../../engine/index.js';
import type { RowSink } from '../rows.js';
import type { MarketsBuilder } from './markets.js';
import { mulDiv } from '../mulDiv.js';

export interface PositionState {
  account: string;
  tokenId: string;
  conditionId: string;
  outcome: Outcome;
  size: number;
  cost: number;
  totalBought: number;
  /** Collateral ever paid for what was bought (cost before anything left). */
  totalCost: number;
  realizedPnl: number;
  updatedAt: number;
}


/** Share i of `total` split into `parts` integers (floored; the last takes the remainder). */
function evenShare(total: number, parts: number, i: number): number {
  const base = Math.floor(total / parts);
  return i === parts - 1 ? total - base * (parts - 1) : base;
}

export class PositionsBuilder {
  /** Positions by account, then token (two maps: no key string built and hashed per lookup). */
  readonly positions = new Map<string, Map<string, PositionState>>();
  /**
   * Positions changed in the current batch, with the log position of their last change (the row's version);
   * their row is written at flush from the state as it then stands, which is their state after that change.
   */
  private pending = new Map<PositionState, number>();

  constructor(
    private readonly markets: MarketsBuilder,
    private readonly feeAccount: string,
    /** Called with each position when it is first created or restored (the in-memory read model's holder index). */
    private readonly onNew?: (p: PositionState) => void,
  ) {}

  private tokensOf(account: string): Map<string, PositionState> {
    let tokens = this.positions.get(account);
    if (tokens === undefined) {
      tokens = new Map();
      this.positions.set(account, tokens);
    }
    return tokens;
  }

  restore(p: PositionState): void {
    this.tokensOf(p.account).set(p.tokenId, p);
    this.onNew?.(p);
  }

  private position(account: string, tokenId: string, version: number): PositionState {
    const tokens = this.tokensOf(account);
    let p = tokens.get(tokenId);
    if (p === undefined) {
      const ref = this.markets.byToken.get(tokenId);
      p = { account, tokenId, conditionId: ref?.market.conditionId ?? '', outcome: ref?.outcome ?? 0, size: 0, cost: 0, totalBought: 0, totalCost: 0, realizedPnl: 0, updatedAt: 0 };
      tokens.set(tokenId, p);
      this.onNew?.(p);
    }
    this.pending.set(p, version);
    return p;
  }

  private buy(p: PositionState, tokens: number, paid: number, time: number): void {
    p.size += tokens;
    p.cost += paid;
    p.totalBought += tokens;
    p.totalCost += paid;
    p.updatedAt = time;
  }

  private sell(p: PositionState, tokens: number, proceeds: number, time: number): void {
    const costOut = p.size === 0 ? 0 : mulDiv(p.cost, Math.min(tokens, p.size), p.size);
    p.realizedPnl += proceeds - costOut;
    p.cost -= costOut;
    p.size -= tokens;
    p.updatedAt = time;
  }

  /** One side of a fill of `size` tokens. */
  private fillSide(s: FillSide, size: number, time: number, version: number): void {
    const p = this.position(s.account, s.tokenId, version);
    if (s.side === 'BUY') {
      this.buy(p, size - s.fee, s.amount, time);
      if (s.fee > 0) this.buy(this.position(this.feeAccount, s.tokenId, version), s.fee, 0, time);
    } else {
      this.sell(p, size, s.amount - s.fee, time);
    }
  }

  /**
   * A neg-risk conversion, priced as upstream's PnL subgraph does: the NO tokens given leave at their average
   * cost (nothing realised), and the YES tokens received are bought for what that cost exceeds the collateral
   * received, shared evenly. When the collateral received exceeds the cost given up (or no YES comes back),
   * the difference is realised on the NO positions instead, shared evenly.
   */
  private convert(account: string, noTokenIds: readonly string[], yesTokenIds: readonly string[], amount: number, payout: number, time: number, version: number): void {
    const given = noTokenIds.map((tokenId) => this.position(account, tokenId, version));
    const costs = given.map((p) => (p.size === 0 ? 0 : mulDiv(p.cost, Math.min(amount, p.size), p.size)));
    const costGiven = costs.reduce((a, b) => a + b, 0);
    const yesCost = yesTokenIds.length === 0 ? 0 : Math.max(0, costGiven - payout);
    const realized = payout + yesCost - costGiven;
    given.forEach((p, i) => this.sell(p, amount, (costs[i] as number) + evenShare(realized, given.length, i), time));
    yesTokenIds.forEach((tokenId, i) => this.buy(this.position(account, tokenId, version), amount, evenShare(yesCost, yesTokenIds.length, i), time));
  }

  apply(record: EventsRecord): void {
    const version = record.pos;
    for (const e of record.events) {
      switch (e.type) {
        case 'TradeExecuted':
          this.fillSide(e.taker, e.size, e.time, version);
          this.fillSide(e.maker, e.size, e.time, version);
          break;
        case 'PositionSplit':
        case 'PositionsMerged': {
          const m = this.markets.markets.get(e.conditionId);
          if (m === undefined) break;
          const half = Math.floor(e.amount / 2);
          const shares: [number, number] = [half, e.amount - half];
          m.tokens.forEach((tokenId, i) => {
            const p = this.position(e.account, tokenId, version);
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
            this.sell(this.position(e.account, tokenId, version), burned, i === e.winningOutcome ? burned : 0, e.time);
          });
          break;
        }
        case 'PositionsConverted':
          this.convert(e.account, e.noTokenIds, e.yesTokenIds, e.amount, e.payout, e.time, version);
          break;
        default:
          break;
      }
    }
  }

  /** The positions the batch so far has changed (until discardPending or the rows are taken). */
  changed(): IterableIterator<PositionState> {
    return this.pending.keys();
  }

  /** Forgets the batch's changed positions (a reader that keeps the state and writes no rows). */
  discardPending(): void {
    if (this.pending.size > 0) this.pending = new Map();
  }

  /** Moves the batch's position rows into `out`: each changed position once, as it stands at the end of the batch. */
  flush(out: RowSink): void {
    for (const [p, version] of this.pending) {
      out
        .row('positions')
        .string(p.account).string(p.tokenId).string(p.conditionId).int(p.outcome).int(p.size).int(p.cost).int(p.totalBought).int(p.realizedPnl).time(p.updatedAt).int(version).int(p.totalCost)
        .end();
    }
    this.pending = new Map();
  }
}
