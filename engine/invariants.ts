// The invariants of ../shared/reliability.md as engine API. Each finding is a sentence naming what is
// broken; an empty list means the state is sound. Property tests call this after every command.
//
// 1. No crossed book once matching finishes.
// 2. Every open order: 0 < remaining <= size, whole lots, price on the finest tick, in its account's set.
// 3. Full sets: per market, the outcome-0 tokens held (free + reserved) and the outcome-1 tokens held plus
//    those burned by neg-risk conversions both equal the collateral locked (before resolution); after
//    resolution the winning tokens (with the burned ones when outcome 1 won) equal it.
// 4. Cash: free + reserved collateral over all accounts + locked collateral = deposits - withdrawals + what
//    neg-risk conversions paid ahead.
// 8. Neg-risk events: each question is in its event once, at its index; at most one question resolved YES;
//    whichever question wins, the burned NO tokens of the others cover what the event paid ahead (sum of
//    burned minus the largest burned >= paid ahead); the events' paid-ahead amounts add up to the total.
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
    const [yes, held] = market.tokenIds.map((t) => tokenTotals.get(t) ?? 0) as [number, number];
    const burned = market.convertedNo;
    const worthless = market.status === 'resolved' && market.winningOutcome === 0;
    if (!isBalance(burned) || (burned > market.locked && !worthless)) problems.push(`market ${market.conditionId}: ${burned} burned NO tokens with ${market.locked} collateral locked`);
    if (market.negRiskMarketId === null && burned !== 0) problems.push(`market ${market.conditionId}: burned NO tokens outside a neg-risk event`);
    const no = held + burned;
    if (market.status !== 'resolved') {
      if (yes !== market.locked || no !== market.locked) problems.push(`market ${market.conditionId}: tokens ${yes}/${held}+${burned} burned but ${market.locked} collateral locked`);
    } else {
      const winning = market.winningOutcome === 0 ? yes : no;
      if (winning !== market.locked) problems.push(`market ${market.conditionId}: ${winning} winning tokens but ${market.locked} collateral locked`);
    }
  }
  problems.push(...negRiskProblems(state));
  const net = state.ledger.deposits - state.ledger.withdrawals;
  const ahead = state.negRisk.unbacked;
  if (collateral + locked !== net + ahead) problems.push(`cash: accounts ${collateral} + locked ${locked} != deposits - withdrawals ${net} + paid ahead by conversions ${ahead}`);
  problems.push(...state.apiKeys.problems());
  problems.push(...state.accessKeys.problems());
  problems.push(...state.signers.problems());
  return problems;
}

function negRiskProblems(state: EngineState): string[] {
  const problems: string[] = [];
  let ahead = 0;
  let questions = 0;
  for (const event of state.negRisk.byId.values()) {
    ahead += event.unbacked;
    questions += event.questions.length;
    let burned = 0;
    let most = 0;
    let winners = 0;
    event.questions.forEach((m, i) => {
      if (m.negRiskMarketId !== event.id || state.markets.get(m.conditionId) !== m) problems.push(`neg risk market ${event.id}: lists market ${m.conditionId} of another event`);
      if (i > 0 && (event.questions[i - 1] as typeof m).questionIndex >= m.questionIndex) problems.push(`neg risk market ${event.id}: questions out of index order at ${m.questionIndex}`);
      burned += m.convertedNo;
      most = Math.max(most, m.convertedNo);
      if (m.status === 'resolved' && m.winningOutcome === 0) winners += 1;
    });
    if (winners > 1) problems.push(`neg risk market ${event.id}: ${winners} questions resolved YES`);
    if (!isBalance(event.unbacked) || event.unbacked > burned - most) problems.push(`neg risk market ${event.id}: paid ahead ${event.unbacked}, burned NO tokens cover ${burned - most}`);
  }
  let inEvents = 0;
  for (const market of state.markets.values()) if (market.negRiskMarketId !== null) inEvents += 1;
  if (inEvents !== questions) problems.push(`${inEvents} markets in neg-risk events but the events list ${questions}`);
  if (ahead !== state.negRisk.unbacked) problems.push(`neg-risk events paid ahead ${ahead} but the total says ${state.negRisk.unbacked}`);
  return problems;
}
