// The user channel's events in upstream's shapes (upstream-conventions §4.2), with the values GET /data/order/{id}
// and GET /data/trades give: sizes and prices as decimal strings, `created_at` and `match_time` Unix seconds as
// strings, `timestamp` ms as a string. A trade is the REST trade (the top level describes the taker order,
// `maker_orders` the resting order it matched) with `trader_side` from the receiver's point of view; fills
// settle inside the exchange, so its status is CONFIRMED from the start, as GET /data/trades says.

import { formatUnits, type FillSide, type PositionsConverted, type TradeExecuted } from '../../engine/index.js';
import type { TrackedOrder } from './userOrders.js';

export type OrderEventType = 'PLACEMENT' | 'UPDATE' | 'CANCELLATION';

export function orderEvent(o: TrackedOrder, type: OrderEventType, outcomeLabel: string, timestamp: number): Record<string, unknown> {
  return {
    event_type: 'order',
    type,
    id: o.id,
    owner: o.owner,
    order_owner: o.owner,
    market: o.conditionId,
    asset_id: o.tokenId,
    side: o.side,
    original_size: formatUnits(o.size),
    size_matched: formatUnits(o.matched),
    price: formatUnits(o.price),
    associate_trades: [...o.trades],
    outcome: outcomeLabel,
    created_at: String(Math.floor(o.createdAt / 1000)),
    expiration: String(o.expiration),
    order_type: o.orderType,
    status: o.status,
    maker_address: o.account,
    timestamp: String(timestamp),
  };
}

function makerOrder(m: FillSide, size: number, outcomeLabel: string): Record<string, unknown> {
  return {
    order_id: m.orderId,
    maker_address: m.account,
    owner: m.owner,
    matched_amount: formatUnits(size),
    fee_rate_bps: String(m.feeBps),
    price: formatUnits(m.price),
    asset_id: m.tokenId,
    outcome: outcomeLabel,
    side: m.side,
  };
}

export function tradeEvent(
  e: TradeExecuted,
  bucketIndex: number,
  traderSide: 'TAKER' | 'MAKER',
  labels: readonly [string, string],
  transactionHash: string,
): Record<string, unknown> {
  const seconds = String(Math.floor(e.time / 1000));
  const receiver = traderSide === 'TAKER' ? e.taker : e.maker;
  return {
    event_type: 'trade',
    type: 'TRADE',
    id: e.tradeId,
    taker_order_id: e.taker.orderId,
    market: e.conditionId,
    asset_id: e.taker.tokenId,
    side: e.taker.side,
    size: formatUnits(e.size),
    fee_rate_bps: String(e.taker.feeBps),
    price: formatUnits(e.taker.price),
    status: 'CONFIRMED',
    match_time: seconds,
    matchtime: seconds,
    last_update: seconds,
    outcome: labels[e.taker.outcome],
    bucket_index: bucketIndex,
    owner: e.taker.owner,
    trade_owner: receiver.owner,
    maker_address: e.taker.account,
    transaction_hash: transactionHash,
    trader_side: traderSide,
    maker_orders: [makerOrder(e.maker, e.size, labels[e.maker.outcome])],
    timestamp: String(e.time),
  };
}

/**
 * A neg-risk conversion of the receiver's account (no upstream counterpart: upstream converts on chain, where
 * the adapter's PositionsConverted event tells it). `converted`: the NO tokens given, `amount` each; `received`:
 * the YES tokens received, `amount` each; `payout`: collateral received. Sizes as decimal strings of shares and
 * USDC; `transaction_hash` as /activity gives a ledger event's. Each entry's `outcome` is the token's label.
 */
export function conversionEvent(e: PositionsConverted, labelOf: (conditionId: string, outcome: 0 | 1) => string, transactionHash: string): Record<string, unknown> {
  return {
    event_type: 'conversion',
    type: 'CONVERSION',
    neg_risk_market_id: e.negRiskMarketId,
    index_set: e.indexSet,
    amount: formatUnits(e.amount),
    payout: formatUnits(e.payout),
    converted: e.noTokenIds.map((asset, i) => ({ market: e.noConditionIds[i] ?? '', asset_id: asset, outcome: labelOf(e.noConditionIds[i] ?? '', 1) })),
    received: e.yesTokenIds.map((asset, i) => ({ market: e.yesConditionIds[i] ?? '', asset_id: asset, outcome: labelOf(e.yesConditionIds[i] ?? '', 0) })),
    maker_address: e.account,
    transaction_hash: transactionHash,
    timestamp: String(e.time),
  };
}
