// Fills and ledger movements: one `fills` row per fill (natural key fill_id), one `ledger_events` row per
// deposit, withdrawal, split, merge, redeem, neg-risk conversion ('convert') or liquidity reward ('reward'). ClickHouse derives from each
// fills row its two `fill_sides` rows (taker and maker, ordered by account for per-user reads) and its two
// 'fill' order_events rows (projections/schema.ts, migration 2). Stateless: each row comes from one event and
// what the orders builder tells of the fill's two orders.

import type { EventsRecord } from '../../log/eventLog.js';
import type { FillSide, TradeExecuted } from '../../engine/index.js';
import type { RowSink, RowWriter } from '../rows.js';
import type { FillOrders } from './orders.js';

function side(row: RowWriter, s: FillSide): RowWriter {
  return row.string(s.orderId).string(s.account).string(s.owner).string(s.tokenId).int(s.outcome).string(s.side).int(s.price).int(s.amount).int(s.fee).int(s.feeBps);
}

/** One fills row (columns.ts order). */
function fillRow(out: RowSink, e: TradeExecuted, pos: number, bucket: number, orders: FillOrders): void {
  const row = out.row('fills').string(e.tradeId).int(pos).int(e.seq).time(e.time).string(e.conditionId).string(e.kind).int(e.size).int(e.price).int(bucket);
  side(row, e.taker);
  side(row, e.maker);
  row.string(orders.takerBuilder).string(orders.makerBuilder).int(orders.takerRemaining).int(orders.makerRemaining).end();
}

function ledgerRow(out: RowSink, pos: number, seq: number, ms: number, account: string, kind: string, conditionId: string, amount: number, payout: number): void {
  out.row('ledger_events').int(pos).int(seq).time(ms).string(account).string(kind).string(conditionId).int(amount).int(payout).end();
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
        fillRow(out, e, record.pos, bucket, orders);
        bucket += 1;
        break;
      }
      case 'CollateralDeposited':
      case 'CollateralWithdrawn':
        ledgerRow(out, record.pos, e.seq, e.time, e.account, e.type === 'CollateralDeposited' ? 'deposit' : 'withdraw', '', e.amount, 0);
        break;
      case 'PositionSplit':
      case 'PositionsMerged':
        ledgerRow(out, record.pos, e.seq, e.time, e.account, e.type === 'PositionSplit' ? 'split' : 'merge', e.conditionId, e.amount, 0);
        break;
      case 'PositionRedeemed':
        ledgerRow(out, record.pos, e.seq, e.time, e.account, 'redeem', e.conditionId, e.burned[0] + e.burned[1], e.payout);
        break;
      case 'RewardPaid':
        // A liquidity reward credited (engine/rewards/): amount = payout = the collateral received.
        ledgerRow(out, record.pos, e.seq, e.time, e.account, 'reward', e.conditionId, e.amount, e.amount);
        break;
      case 'PositionsConverted':
        // One row per conversion: the first question converted (lowest index) names it, so it belongs to a
        // market of the event; amount = NO tokens given of each question named, payout = collateral received.
        ledgerRow(out, record.pos, e.seq, e.time, e.account, 'convert', e.noConditionIds[0] ?? '', e.amount, e.payout);
        break;
      default:
        break;
    }
  }
}
