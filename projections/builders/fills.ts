// Fills and ledger movements: one `fills` row per fill (natural key fill_id), one `ledger_events` row per
// deposit, withdrawal, split, merge, redeem, neg-risk conversion ('convert') or liquidity reward ('reward'). ClickHouse derives from each
// fills row its two `fill_sides` rows (taker and maker, ordered by account for per-user reads) and its two
// 'fill' order_events rows (projections/schema.ts, migration 2). Stateless: each row comes from one event and
// what the orders builder tells of the fill's two orders.

import type { EventsRecord } from '../../log/eventLog.js';
import type { FillSide, TradeExecuted } from '../../engine/index.js';
import type { RowSink } from '../rows.js';
import { text, time } from '../tsv.js';
import type { FillOrders } from './orders.js';

function side(s: FillSide): string {
  return `${text(s.orderId)}\t${text(s.account)}\t${text(s.owner)}\t${text(s.tokenId)}\t${s.outcome}\t${s.side}\t${s.price}\t${s.amount}\t${s.fee}\t${s.feeBps}`;
}

/** One fills line (columns.ts order). */
function fillLine(e: TradeExecuted, pos: number, bucket: number, orders: FillOrders): string {
  return `${text(e.tradeId)}\t${pos}\t${e.seq}\t${time(e.time)}\t${text(e.conditionId)}\t${e.kind}\t${e.size}\t${e.price}\t${bucket}\t${side(e.taker)}\t${side(e.maker)}\t${text(orders.takerBuilder)}\t${text(orders.makerBuilder)}\t${orders.takerRemaining}\t${orders.makerRemaining}\n`;
}

function ledgerLine(pos: number, seq: number, ms: number, account: string, kind: string, conditionId: string, amount: number, payout: number): string {
  return `${pos}\t${seq}\t${time(ms)}\t${text(account)}\t${kind}\t${text(conditionId)}\t${amount}\t${payout}\n`;
}

/**
 * `fillOrders` holds, for the record's TradeExecuted events in order, their orders as the orders builder
 * left them right after each fill (OrdersBuilder.apply fills it for the same record).
 */
export function projectFills(record: EventsRecord, out: RowSink, fillOrders: readonly FillOrders[]): void {
  let bucket = 0;
  for (const e of record.events) {
    switch (e.type) {
      case 'TradeExecuted': {
        const orders = fillOrders[bucket];
        if (orders === undefined) throw new Error(`fill ${e.tradeId} at position ${record.pos}: no order state from the orders builder`);
        out.add('fills', fillLine(e, record.pos, bucket, orders));
        bucket += 1;
        break;
      }
      case 'CollateralDeposited':
      case 'CollateralWithdrawn':
        out.add('ledger_events', ledgerLine(record.pos, e.seq, e.time, e.account, e.type === 'CollateralDeposited' ? 'deposit' : 'withdraw', '', e.amount, 0));
        break;
      case 'PositionSplit':
      case 'PositionsMerged':
        out.add('ledger_events', ledgerLine(record.pos, e.seq, e.time, e.account, e.type === 'PositionSplit' ? 'split' : 'merge', e.conditionId, e.amount, 0));
        break;
      case 'PositionRedeemed':
        out.add('ledger_events', ledgerLine(record.pos, e.seq, e.time, e.account, 'redeem', e.conditionId, e.burned[0] + e.burned[1], e.payout));
        break;
      case 'RewardPaid':
        // A liquidity reward credited (engine/rewards/): amount = payout = the collateral received.
        out.add('ledger_events', ledgerLine(record.pos, e.seq, e.time, e.account, 'reward', e.conditionId, e.amount, e.amount));
        break;
      case 'PositionsConverted':
        // One row per conversion: the first question converted (lowest index) names it, so it belongs to a
        // market of the event; amount = NO tokens given of each question named, payout = collateral received.
        out.add('ledger_events', ledgerLine(record.pos, e.seq, e.time, e.account, 'convert', e.noConditionIds[0] ?? '', e.amount, e.payout));
        break;
      default:
        break;
    }
  }
}
