// The invariants of ../shared/reliability.md as engine API. Each finding is a sentence naming what is
// broken; an empty list means the state is sound. Property tests call this after every command.
//
// 1. No crossed book once matching finishes.
// 2. Every open order: 0 < remaining <= size, whole lots, price on the finest tick, in its account's set.
// 3. Full sets: per market, the outcome-0 and outcome-1 tokens held (free + reserved) both equal the
//    collateral locked (before resolution); after resolution the winning tokens equal it.
// 4. Cash: free + reserved collateral over all accounts + locked collateral = deposits - withdrawals.
// 5. No negative or non-integer balance anywhere.
// 6. Reservations: an account's reserved collateral is the cost of its open BUY orders at their limits,
//    and its reserved tokens the open quantity of its SELL orders.
// 7. Book bookkeeping: level sizes equal the sum of their orders, and the book's orders are the live ones.
// 9. A resolved market has no open orders.
// 10. API keys: every key, live or deleted, holds its own (address, nonce) slot; live keys are indexed
//     under their address; no key is both live and deleted.

import { ASK, BID } from './book/orderBook.js';
import type { EngineState } from './state.js';
import { LOT, MIN_TICK, PRICE_ONE, cost } from './units.js';

function isBalance(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

export function findViolations(state: EngineState): string[] {
  const problems: string[] = [];
  const tokenTotals = new Map<string, number>();
  const expectedReserved = new Map<string, number>();
  const expectedTokenReserved = new Map<string, number>();
  let liveInBooks = 0;

  for (const market of state.markets.values()) {
    const book = market.book;
    const bestBid = book.best(BID);
    const bestAsk = book.best(ASK);
    if (bestBid !== undefined && bestAsk !== undefined && bestBid.bookPrice >= bestAsk.bookPrice) {
      problems.push(`market ${market.conditionId}: crossed book, bid ${bestBid.bookPrice} >= ask ${bestAsk.bookPrice}`);
    }
    if (market.status === 'resolved' && book.size !== 0) problems.push(`market ${market.conditionId}: resolved with ${book.size} open orders`);
    if (!isBalance(market.locked)) problems.push(`market ${market.conditionId}: locked collateral ${market.locked}`);
    for (const side of [BID, ASK] as const) {
      const orders = book.orders(side);
      liveInBooks += orders.length;
      const levelSums = new Map<number, number>();
      for (const o of orders) {
        if (o.bookSide !== side) problems.push(`order ${o.id}: on the wrong side of the book`);
        if (!(o.remaining > 0 && o.remaining <= o.size) || o.remaining % LOT !== 0) problems.push(`order ${o.id}: remaining ${o.remaining} of ${o.size}`);
        if (o.bookPrice % MIN_TICK !== 0 || o.bookPrice <= 0 || o.bookPrice >= PRICE_ONE) problems.push(`order ${o.id}: book price ${o.bookPrice}`);
        if (o.bookPrice !== (o.outcome === 0 ? o.ownPrice : PRICE_ONE - o.ownPrice)) problems.push(`order ${o.id}: book price is not the mirror of its own price`);
        if (state.live.get(o.id) !== o) problems.push(`order ${o.id}: in the book but not live`);
        if (!o.account.orders.has(o)) problems.push(`order ${o.id}: missing from its account's open orders`);
        levelSums.set(o.bookPrice, (levelSums.get(o.bookPrice) ?? 0) + o.remaining);
        const address = o.account.address;
        if (o.side === 'BUY') expectedReserved.set(address, (expectedReserved.get(address) ?? 0) + cost(o.remaining, o.ownPrice));
        else {
          const key = `${address} ${o.tokenId}`;
          expectedTokenReserved.set(key, (expectedTokenReserved.get(key) ?? 0) + o.remaining);
        }
      }
      for (const level of book.levels(side)) {
        if (levelSums.get(level.price) !== level.size) problems.push(`market ${market.conditionId}: level ${level.price} says ${level.size}, orders add up to ${levelSums.get(level.price) ?? 0}`);
      }
    }
  }
  if (liveInBooks !== state.live.size()) problems.push(`${state.live.size()} live orders but ${liveInBooks} in books`);

  let collateral = 0;
  for (const account of state.ledger.accounts.values()) {
    const who = account.address;
    if (!isBalance(account.free) || !isBalance(account.reserved)) problems.push(`account ${who}: collateral free ${account.free} reserved ${account.reserved}`);
    collateral += account.free + account.reserved;
    if (account.reserved !== (expectedReserved.get(who) ?? 0)) problems.push(`account ${who}: reserved ${account.reserved}, open BUY orders need ${expectedReserved.get(who) ?? 0}`);
    for (const [tokenId, holding] of account.holdings) {
      if (!isBalance(holding.free) || !isBalance(holding.reserved)) problems.push(`account ${who}: token ${tokenId} free ${holding.free} reserved ${holding.reserved}`);
      const need = expectedTokenReserved.get(`${who} ${tokenId}`) ?? 0;
      if (holding.reserved !== need) problems.push(`account ${who}: token ${tokenId} reserved ${holding.reserved}, open SELL orders need ${need}`);
      tokenTotals.set(tokenId, (tokenTotals.get(tokenId) ?? 0) + holding.free + holding.reserved);
    }
    for (const o of account.orders) if (state.live.get(o.id) !== o) problems.push(`account ${who}: lists order ${o.id} that is not live`);
  }

  let locked = 0;
  for (const market of state.markets.values()) {
    locked += market.locked;
    const [yes, no] = market.tokenIds.map((t) => tokenTotals.get(t) ?? 0) as [number, number];
    if (market.status !== 'resolved') {
      if (yes !== market.locked || no !== market.locked) problems.push(`market ${market.conditionId}: tokens ${yes}/${no} but ${market.locked} collateral locked`);
    } else {
      const winning = market.winningOutcome === 0 ? yes : no;
      if (winning !== market.locked) problems.push(`market ${market.conditionId}: ${winning} winning tokens but ${market.locked} collateral locked`);
    }
  }
  const net = state.ledger.deposits - state.ledger.withdrawals;
  if (collateral + locked !== net) problems.push(`cash: accounts ${collateral} + locked ${locked} != deposits - withdrawals ${net}`);
  problems.push(...state.apiKeys.problems());
  problems.push(...state.accessKeys.problems());
  problems.push(...state.signers.problems());
  return problems;
}
