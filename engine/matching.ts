// Matching and settlement. A taker trades against the best resting order on the other side while their
// prices cross; each fill prints at the resting order's price, so the taker keeps any improvement.
// Three kinds of fill follow from the mirrored book:
//   normal: a BUY and a SELL of the same token; the tokens change hands.
//   mint:   a BUY of each outcome; their collateral (which adds up to one unit per share) becomes a full set.
//   merge:  a SELL of each outcome; a full set is burned and its collateral paid out.
// Fees are charged on proceeds: a buyer pays in the tokens it receives, a seller in the collateral it
// receives, each at its role's rate (taker or maker), to the fee account. Settlement is exact integer
// arithmetic: quantities are whole lots and prices multiples of the finest tick.

import type { FillSide, MatchKind } from './events.js';
import { EVENT_VERSION } from './events.js';
import { crosses, opposite } from './book/orderBook.js';
import type { Order } from './order.js';
import type { EngineState } from './state.js';
import { PRICE_ONE, cost, feeOf } from './units.js';

/** Settles one side of a fill of `qty` at book price `bookPrice` and lowers the order's open quantity. */
function settleSide(state: EngineState, order: Order, qty: number, bookPrice: number, feeBps: number): FillSide {
  const price = order.outcome === 0 ? bookPrice : PRICE_ONE - bookPrice;
  const amount = cost(qty, price);
  const account = order.account;
  let fee: number;
  order.remaining -= qty;
  if (order.side === 'BUY') {
    // The reservation was taken at the order's own limit; what the fill did not need goes back to free.
    const released = cost(qty, order.ownPrice);
    account.reserved -= released;
    account.free += released - amount;
    fee = feeOf(qty, feeBps);
    order.tokenHolding().free += qty - fee;
    if (fee !== 0) state.feeAccount.holding(order.tokenId).free += fee;
  } else {
    order.tokenHolding().reserved -= qty;
    fee = feeOf(amount, feeBps);
    account.free += amount - fee;
    state.feeAccount.free += fee;
  }
  return {
    orderId: order.id,
    account: account.address,
    owner: order.owner,
    tokenId: order.tokenId,
    outcome: order.outcome,
    side: order.side,
    price,
    amount,
    fee,
    feeBps,
    remaining: order.remaining,
  };
}

function fill(state: EngineState, taker: Order, maker: Order, qty: number): void {
  const market = taker.market;
  const bookPrice = maker.bookPrice;
  const kind: MatchKind = taker.side !== maker.side ? 'normal' : taker.side === 'BUY' ? 'mint' : 'merge';
  const takerSide = settleSide(state, taker, qty, bookPrice, market.params.takerFeeBps);
  const makerSide = settleSide(state, maker, qty, bookPrice, market.params.makerFeeBps);
  if (kind === 'mint') market.locked += qty;
  else if (kind === 'merge') market.locked -= qty;
  const last = market.lastTrade;
  if (last === null) market.lastTrade = { price: bookPrice, takerOutcome: taker.outcome, takerSide: taker.side };
  else {
    last.price = bookPrice;
    last.takerOutcome = taker.outcome;
    last.takerSide = taker.side;
  }
  const seq = state.advance();
  state.push({
    v: EVENT_VERSION,
    seq,
    time: state.now,
    type: 'TradeExecuted',
    tradeId: state.tradeIds.idFor(seq),
    conditionId: market.conditionId,
    kind,
    size: qty,
    price: bookPrice,
    taker: takerSide,
    maker: makerSide,
  });
}

/** Trades `taker` against the book until it is filled or the best resting price no longer crosses. */
export function match(state: EngineState, taker: Order): void {
  const book = taker.market.book;
  const restingSide = opposite(taker.bookSide);
  while (taker.remaining > 0) {
    const maker = book.best(restingSide);
    if (maker === undefined || !crosses(taker.bookSide, taker.bookPrice, maker.bookPrice)) return;
    const qty = taker.remaining < maker.remaining ? taker.remaining : maker.remaining;
    fill(state, taker, maker, qty);
    book.reduce(maker, qty);
    if (maker.remaining === 0) {
      book.remove(maker);
      state.finish(maker, 'MATCHED');
    }
  }
}

/** Returns an order's open reservation to free balance (cancel, expiry, an unfilled FAK remainder). */
export function releaseReservation(order: Order): void {
  const account = order.account;
  if (order.side === 'BUY') {
    const amount = cost(order.remaining, order.ownPrice);
    account.reserved -= amount;
    account.free += amount;
  } else {
    const holding = order.tokenHolding();
    holding.reserved -= order.remaining;
    holding.free += order.remaining;
  }
}
