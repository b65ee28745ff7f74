// Fills and ledger movements: one `fills` row per fill (natural key fill_id), two `fill_sides` rows per fill
// (taker and maker, ordered by account for per-user reads), one `ledger_events` row per deposit, withdrawal,
// split, merge or redeem. Stateless: each row comes from one event.

import type { LogRecord } from '../../log/eventLog.js';
import type { FillSide, TradeExecuted } from '../../engine/index.js';
import { chTime, type RowSink } from '../rows.js';

function sideRow(e: TradeExecuted, pos: number, role: 'taker' | 'maker', s: FillSide) {
  return {
    fill_id: e.tradeId, role, pos, time: chTime(e.time), account: s.account, owner: s.owner, order_id: s.orderId,
    condition_id: e.conditionId, token_id: s.tokenId, outcome: s.outcome, side: s.side, price: s.price, size: e.size,
    amount: s.amount, fee: s.fee, fee_bps: s.feeBps, kind: e.kind,
  };
}

/**
 * `builderOf` answers for orders open before this record; orders accepted in the record carry their builder
 * on their OrderAccepted event.
 */
export function projectFills(record: LogRecord, out: RowSink, builderOf: (orderId: string) => string): void {
  const acceptedHere = new Map<string, string>();
  for (const e of record.events) if (e.type === 'OrderAccepted') acceptedHere.set(e.orderId, e.builder ?? '');
  const builder = (orderId: string): string => acceptedHere.get(orderId) ?? builderOf(orderId);
  let bucket = 0;
  for (const e of record.events) {
    switch (e.type) {
      case 'TradeExecuted': {
        const t = e.taker;
        const m = e.maker;
        out.add('fills', {
          fill_id: e.tradeId, pos: record.pos, seq: e.seq, time: chTime(e.time), condition_id: e.conditionId, kind: e.kind,
          size: e.size, price: e.price, bucket_index: bucket++,
          taker_order_id: t.orderId, taker_account: t.account, taker_owner: t.owner, taker_token_id: t.tokenId, taker_outcome: t.outcome,
          taker_side: t.side, taker_price: t.price, taker_amount: t.amount, taker_fee: t.fee, taker_fee_bps: t.feeBps,
          maker_order_id: m.orderId, maker_account: m.account, maker_owner: m.owner, maker_token_id: m.tokenId, maker_outcome: m.outcome,
          maker_side: m.side, maker_price: m.price, maker_amount: m.amount, maker_fee: m.fee, maker_fee_bps: m.feeBps,
          taker_builder: builder(t.orderId), maker_builder: builder(m.orderId),
        });
        out.add('fill_sides', sideRow(e, record.pos, 'taker', t));
        out.add('fill_sides', sideRow(e, record.pos, 'maker', m));
        break;
      }
      case 'CollateralDeposited':
      case 'CollateralWithdrawn':
        out.add('ledger_events', { pos: record.pos, seq: e.seq, time: chTime(e.time), account: e.account, kind: e.type === 'CollateralDeposited' ? 'deposit' : 'withdraw', condition_id: '', amount: e.amount, payout: 0 });
        break;
      case 'PositionSplit':
      case 'PositionsMerged':
        out.add('ledger_events', { pos: record.pos, seq: e.seq, time: chTime(e.time), account: e.account, kind: e.type === 'PositionSplit' ? 'split' : 'merge', condition_id: e.conditionId, amount: e.amount, payout: 0 });
        break;
      case 'PositionRedeemed':
        out.add('ledger_events', { pos: record.pos, seq: e.seq, time: chTime(e.time), account: e.account, kind: 'redeem', condition_id: e.conditionId, amount: e.burned[0] + e.burned[1], payout: e.payout });
        break;
      default:
        break;
    }
  }
}
