// Placing orders: checks in a fixed order (payload, market, duplicate, staleness, market state, order type,
// expiration, amounts and tick, balance, book conditions), then reservation, matching, and resting or
// releasing what is left. A refused order changes nothing but emits OrderRejected.

import type { PlaceOrder } from './commands.js';
import { EVENT_VERSION, type OrderAccepted } from './events.js';
import { ASK, BID, crosses, opposite } from './book/orderBook.js';
import { match, releaseReservation } from './matching.js';
import { Order } from './order.js';
import { isMarketable, orderPrice, orderQty, reservationFor } from './orderTerms.js';
import { rejectMessage, type RejectCode } from './rejectReasons.js';
import type { EngineState } from './state.js';
import type { Holding } from './ledger.js';
import { MAX_ORDER_AMOUNT, PRICE_ONE } from './units.js';
import { isAmount, isId, isTimestamp } from './commandChecks.js';
import { MAX_SIGNED_WINDOW_MS } from './signedRequests.js';

function isOrderType(value: unknown): boolean {
  return value === 'GTC' || value === 'GTD' || value === 'FOK' || value === 'FAK';
}
/** Latest accepted expiration (unix seconds), far beyond any real order, keeps ms arithmetic exact. */
const MAX_EXPIRATION_SEC = 100_000_000_000;

function refuse(state: EngineState, cmd: PlaceOrder, code: RejectCode, values: Readonly<Record<string, string | number>> = {}): void {
  state.push({
    v: EVENT_VERSION,
    seq: state.advance(),
    time: state.now,
    type: 'OrderRejected',
    orderId: typeof cmd.orderId === 'string' ? cmd.orderId : '',
    account: typeof cmd.account === 'string' ? cmd.account : '',
    code,
    message: rejectMessage(code, values),
  });
}

function wellFormed(cmd: PlaceOrder): boolean {
  return (
    isId(cmd.orderId) &&
    isId(cmd.account) &&
    typeof cmd.owner === 'string' &&
    isId(cmd.tokenId) &&
    (cmd.side === 'BUY' || cmd.side === 'SELL') &&
    isOrderType(cmd.orderType) &&
    typeof cmd.postOnly === 'boolean' &&
    isAmount(cmd.makerAmount, MAX_ORDER_AMOUNT) &&
    isAmount(cmd.takerAmount, MAX_ORDER_AMOUNT) &&
    Number.isSafeInteger(cmd.expiration) &&
    cmd.expiration >= 0 &&
    cmd.expiration <= MAX_EXPIRATION_SEC &&
    isTimestamp(cmd.dedupeUntil) &&
    (cmd.signedAt === undefined || (isTimestamp(cmd.signedAt) && cmd.signedAt <= cmd.dedupeUntil && cmd.dedupeUntil - cmd.signedAt <= MAX_SIGNED_WINDOW_MS))
  );
}

/**
 * The at-most-once rule of signed orders, decided at engine time: an order whose refusal window has closed
 * (dedupeUntil <= now), or that was signed at or before any order whose id the engine has since forgotten,
 * can no longer be told apart from a replay of an order already applied, so it is refused. Applies to
 * commands that carry signedAt (every order the API admits); a command of an older log without it is
 * decided as that log's engine decided it.
 */
function stale(state: EngineState, cmd: PlaceOrder): boolean {
  const signedAt = cmd.signedAt;
  return signedAt !== undefined && (cmd.dedupeUntil <= state.now || signedAt <= state.ids.forgottenThrough);
}

export function placeOrder(state: EngineState, cmd: PlaceOrder): void {
  if (!wellFormed(cmd)) return refuse(state, cmd, 'INVALID_ORDER_PAYLOAD');
  const ref = state.tokens.get(cmd.tokenId);
  if (ref === undefined) return refuse(state, cmd, 'MARKET_NOT_FOUND');
  const idHash = state.ids.hashOf(cmd.orderId);
  if (state.ids.known(cmd.orderId, idHash)) return refuse(state, cmd, 'DUPLICATED', { id: cmd.orderId });
  if (stale(state, cmd)) return refuse(state, cmd, 'ORDER_STALE', { id: cmd.orderId });
  const market = ref.market;
  if (market.status === 'paused') return refuse(state, cmd, 'MARKET_NOT_READY');
  if (market.status === 'resolved') return refuse(state, cmd, 'MARKET_CLOSED');
  const marketable = isMarketable(cmd.orderType);
  if (cmd.postOnly && marketable) return refuse(state, cmd, 'POST_ONLY_TYPE');

  let expiresAt = 0;
  if (cmd.orderType === 'GTD') {
    expiresAt = (cmd.expiration - state.config.gtdSecurityMarginSec) * 1000;
    if (cmd.expiration === 0 || expiresAt <= state.now) return refuse(state, cmd, 'INVALID_EXPIRATION');
  } else if (cmd.expiration !== 0) {
    return refuse(state, cmd, 'INVALID_EXPIRATION');
  }

  const price = orderPrice(cmd, market.params);
  if (typeof price !== 'number') return refuse(state, cmd, price.code, price.values);
  const qty = orderQty(cmd);

  const account = state.ledger.get(cmd.account);
  const buy = cmd.side === 'BUY';
  const reserve = reservationFor(cmd.side, qty, price);
  // A SELL reserves tokens: look the holding up once (without creating it) and keep it on the order.
  const holding = account === undefined || buy ? undefined : account.holdings.get(cmd.tokenId);
  const funds = account === undefined ? 0 : buy ? account.free : (holding?.free ?? 0);
  if (account === undefined || funds < reserve) return refuse(state, cmd, 'NOT_ENOUGH_BALANCE');

  const outcome = ref.outcome;
  const bookSide = outcome === 0 ? (buy ? BID : ASK) : buy ? ASK : BID;
  const bookPrice = outcome === 0 ? price : PRICE_ONE - price;
  const book = market.book;
  const restingSide = opposite(bookSide);
  const best = book.best(restingSide);
  const wouldCross = best !== undefined && crosses(bookSide, bookPrice, best.bookPrice);
  if (cmd.postOnly && wouldCross) return refuse(state, cmd, 'POST_ONLY_CROSSES');
  if (cmd.orderType === 'FOK' && book.available(restingSide, bookPrice, qty) < qty) return refuse(state, cmd, 'FOK_NOT_FILLED');
  if (cmd.orderType === 'FAK' && !wouldCross) return refuse(state, cmd, 'FAK_NO_MATCH');

  // Accepted: reserve, announce, match, then rest or release the remainder.
  const order = new Order(
    cmd.orderId, account, cmd.owner, market, outcome, cmd.side, price, bookSide, qty,
    cmd.orderType, cmd.postOnly, cmd.expiration, expiresAt, state.nextSeq(), cmd.dedupeUntil, idHash, cmd.signedAt ?? -1,
  );
  if (buy) {
    account.free -= reserve;
    account.reserved += reserve;
  } else {
    // funds >= reserve > 0, so the holding exists.
    const held = holding as Holding;
    held.free -= reserve;
    held.reserved += reserve;
    order.holding = held;
  }
  const accepted: OrderAccepted = {
    v: EVENT_VERSION,
    seq: state.advance(),
    time: state.now,
    type: 'OrderAccepted',
    orderId: order.id,
    account: account.address,
    owner: order.owner,
    conditionId: market.conditionId,
    tokenId: order.tokenId,
    outcome,
    side: order.side,
    price,
    size: qty,
    makerAmount: cmd.makerAmount,
    takerAmount: cmd.takerAmount,
    orderType: cmd.orderType,
    postOnly: cmd.postOnly,
    expiration: cmd.expiration,
  };
  // Only orders that carry a builder code get the key, so events equal their JSON round trip.
  if (typeof cmd.builder === 'string' && cmd.builder.length > 0) (accepted as { builder?: string }).builder = cmd.builder;
  state.push(accepted);
  if (wouldCross) match(state, order);

  if (order.remaining === 0) {
    state.finish(order, 'MATCHED');
  } else if (marketable) {
    releaseReservation(order);
    state.push({
      v: EVENT_VERSION,
      seq: state.advance(),
      time: state.now,
      type: 'OrderCancelled',
      orderId: order.id,
      account: account.address,
      conditionId: market.conditionId,
      tokenId: order.tokenId,
      remaining: order.remaining,
      reason: 'unfilled',
    });
    state.finish(order, 'CANCELED');
  } else {
    book.add(order);
    state.ids.open(order); // not known: checked above
    account.orders.add(order);
    if (expiresAt !== 0) state.expiry.push(order);
  }
}

/** Takes an open order off the book and frees its reservation. */
export function cancelOpenOrder(state: EngineState, order: Order, reason: 'user' | 'market_resolved' | 'heartbeat'): void {
  order.market.book.remove(order);
  releaseReservation(order);
  state.push({
    v: EVENT_VERSION,
    seq: state.advance(),
    time: state.now,
    type: 'OrderCancelled',
    orderId: order.id,
    account: order.account.address,
    conditionId: order.market.conditionId,
    tokenId: order.tokenId,
    remaining: order.remaining,
    reason,
  });
  state.finish(order, reason === 'market_resolved' ? 'CANCELED_MARKET_RESOLVED' : 'CANCELED');
}

const DONE_REASON: Record<'MATCHED' | 'CANCELED' | 'EXPIRED' | 'CANCELED_MARKET_RESOLVED', RejectCode> = {
  MATCHED: 'ORDER_ALREADY_MATCHED',
  CANCELED: 'ORDER_ALREADY_CANCELED',
  CANCELED_MARKET_RESOLVED: 'ORDER_ALREADY_CANCELED',
  EXPIRED: 'ORDER_ALREADY_EXPIRED',
};

/** Cancels one order of `account`; an order that is not open, or is another account's, is reported. */
export function cancelById(state: EngineState, orderId: string, account: string): void {
  const held = state.ids.lookup(orderId);
  if (typeof held === 'object' && held.account.address === account) return cancelOpenOrder(state, held, 'user');
  const code: RejectCode = typeof held === 'string' ? DONE_REASON[held] : 'ORDER_NOT_FOUND';
  state.emit({ type: 'CancelRejected', orderId, account, code, message: rejectMessage(code) });
}

/** Cancels every open order of `account` that `select` picks, oldest first. */
export function cancelWhere(state: EngineState, account: string, select: (order: Order) => boolean): void {
  const owner = state.ledger.get(account);
  if (owner === undefined) return;
  const chosen = [...owner.orders].filter(select).sort((a, b) => a.priority - b.priority);
  for (const order of chosen) cancelOpenOrder(state, order, 'user');
}

/** Removes GTD orders whose time has come, earliest first. */
export function expireDue(state: EngineState): void {
  for (let order = state.expiry.peekDue(state.now); order !== undefined; order = state.expiry.peekDue(state.now)) {
    state.expiry.pop();
    if (state.live.get(order.id) !== order) continue;
    order.market.book.remove(order);
    releaseReservation(order);
    state.emit({
      type: 'OrderExpired',
      orderId: order.id,
      account: order.account.address,
      conditionId: order.market.conditionId,
      tokenId: order.tokenId,
      remaining: order.remaining,
    });
    state.finish(order, 'EXPIRED');
  }
}
