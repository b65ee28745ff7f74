// The answer to a placed order (upstream-conventions §2.4), from the events of its PlaceOrder command:
// - status `matched` when it filled at placement (fully or partly; a partly filled GTC/GTD rests), `live`
//   when it rests without a fill. (No matching delay exists here, so never `delayed`.)
// - makingAmount / takingAmount: what it gave and got at placement, before fees, as decimals (a BUY makes
//   collateral and takes shares; a SELL the reverse); "0" when nothing filled. Fees are in the trades.
// - tradeIDs: the fills it took part in as taker, readable at once with GET /data/trades?id=;
//   transactionsHashes: their settlement references (the trades' transaction_hash).

import { formatUnits, type EngineEvent } from '../../engine/index.js';
import { transactionHashOf } from '../../projections/readModel/index.js';
import type { ApiError } from '../http/apiErrors.js';
import { refusalOf } from './engineReplies.js';

export interface OrderResponse {
  success: boolean;
  errorMsg: string;
  orderID: string;
  status: '' | 'live' | 'matched';
  makingAmount: string;
  takingAmount: string;
  transactionsHashes: string[];
  tradeIDs: string[];
}

export const ORDER_RESPONSE_SCHEMA = {
  type: 'object',
  properties: {
    success: { type: 'boolean' },
    errorMsg: { type: 'string' },
    orderID: { type: 'string' },
    status: { type: 'string' },
    makingAmount: { type: 'string' },
    takingAmount: { type: 'string' },
    transactionsHashes: { type: 'array', items: { type: 'string' } },
    tradeIDs: { type: 'array', items: { type: 'string' } },
  },
  required: ['success', 'errorMsg', 'orderID', 'status', 'makingAmount', 'takingAmount', 'transactionsHashes', 'tradeIDs'],
} as const;

/** The response of an accepted order, or the engine's refusal as an ApiError. */
export function placementResult(orderId: string, events: readonly EngineEvent[]): OrderResponse | ApiError {
  const refusal = refusalOf(events);
  if (refusal !== undefined) return refusal;
  let making = 0;
  let taking = 0;
  const tradeIDs: string[] = [];
  for (const e of events) {
    if (e.type !== 'TradeExecuted' || e.taker.orderId !== orderId) continue;
    tradeIDs.push(e.tradeId);
    if (e.taker.side === 'BUY') {
      making += e.taker.amount;
      taking += e.size;
    } else {
      making += e.size;
      taking += e.taker.amount;
    }
  }
  return {
    success: true,
    errorMsg: '',
    orderID: orderId,
    status: tradeIDs.length > 0 ? 'matched' : 'live',
    makingAmount: formatUnits(making),
    takingAmount: formatUnits(taking),
    transactionsHashes: tradeIDs.map(transactionHashOf),
    tradeIDs,
  };
}

/** A batch item that failed (HTTP 200 for the batch; the item carries the message). */
export function failedItem(orderId: string, error: ApiError): OrderResponse {
  return { success: false, errorMsg: error.message, orderID: orderId, status: '', makingAmount: '', takingAmount: '', transactionsHashes: [], tradeIDs: [] };
}
