// A notification as GET /notifications shows it: upstream's `{id, type, owner, payload, timestamp}` (its client
// types `Notification {type, owner, payload}`; its docs add `id` and `timestamp`, Unix seconds). Upstream does
// not document the payloads; ours use the CLOB's own names and units (condition id as `market`, token id as
// `asset_id`, sizes and prices as decimal strings, the outcome's label from the catalog):
//
// - 1 ORDER_CANCELLATION: order_id, market, asset_id, question, outcome, outcome_index, side, price,
//   original_size, size_matched, size_cancelled (what the cancel released), reason (`user`,
//   `market_resolved`, `unfilled`: a FAK/FOK rest, `heartbeat`: the heartbeat session expired, or any later).
// - 2 ORDER_FILL: trade_id, order_id, market, asset_id, question, outcome, outcome_index, side, price, size,
//   fee_rate_bps, trader_side (TAKER or MAKER), size_remaining (open after the fill), transaction_hash.
// - 4 MARKET_RESOLVED: market, question, winning_asset_id, winning_outcome, winning_outcome_index, positions
//   ([{asset_id, outcome, outcome_index, size}] the account held at the resolution, sizes in shares).

import { formatUnits } from '../../engine/index.js';
import { FALLBACK_METADATA, type MarketMetadata } from '../readModel/metadata.js';
import { transactionHashOf } from '../readModel/wire.js';
import { MARKET_RESOLVED, ORDER_CANCELLATION, type Notification } from './notificationState.js';

export interface NotificationWire {
  id: number;
  type: number;
  owner: string;
  timestamp: number;
  payload: Record<string, unknown>;
}

const label = (m: MarketMetadata, outcome: number): string => (outcome === 0 || outcome === 1 ? m.outcomes[outcome] : '');

/** `tokens`: the market's outcome 0 and 1 token ids (the engine's), for a resolution's positions. */
export function notificationWire(n: Notification, metadata: MarketMetadata | undefined, tokens: readonly [string, string] | undefined): NotificationWire {
  const m = metadata ?? FALLBACK_METADATA;
  const base = { id: n.id, type: n.type, owner: n.owner, timestamp: Math.floor(n.time / 1000) };
  if (n.type === ORDER_CANCELLATION) {
    return {
      ...base,
      payload: {
        order_id: n.orderId, market: n.conditionId, asset_id: n.tokenId, question: m.title, outcome: label(m, n.outcome), outcome_index: n.outcome,
        side: n.side, price: formatUnits(n.price), original_size: formatUnits(n.originalSize), size_matched: formatUnits(Math.max(0, n.originalSize - n.remaining)),
        size_cancelled: formatUnits(n.remaining), reason: n.reason,
      },
    };
  }
  if (n.type === MARKET_RESOLVED) {
    const positions = [0, 1]
      .filter((i) => (n.held[i] as number) > 0)
      .map((i) => ({ asset_id: tokens?.[i] ?? '', outcome: label(m, i), outcome_index: i, size: formatUnits(n.held[i] as number) }));
    return {
      ...base,
      payload: {
        market: n.conditionId, question: m.title, winning_asset_id: n.winningTokenId, winning_outcome: label(m, n.winningOutcome),
        winning_outcome_index: n.winningOutcome, positions,
      },
    };
  }
  return {
    ...base,
    payload: {
      trade_id: n.tradeId, order_id: n.orderId, market: n.conditionId, asset_id: n.tokenId, question: m.title, outcome: label(m, n.outcome),
      outcome_index: n.outcome, side: n.side, price: formatUnits(n.price), size: formatUnits(n.size), fee_rate_bps: String(n.feeBps),
      trader_side: n.role, size_remaining: formatUnits(n.remaining), transaction_hash: transactionHashOf(n.tradeId),
    },
  };
}
