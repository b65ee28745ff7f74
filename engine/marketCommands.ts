// Market lifecycle: list, change trading parameters, pause, resume, resolve. Resolution cancels every open
// order of the market (oldest first) and fixes the winner; winning tokens then redeem one unit each. A market
// listed into a neg-risk event (negRisk.ts) is one of its questions: it stays negRisk, and once one question
// of the event resolved YES no other may, nor may a new one join.

import type { ListMarket, MarketParams, Outcome, PauseMarket, ResolveMarket, ResumeMarket, UpdateMarket } from './commands.js';
import type { MarketStatus } from './events.js';
import { ASK, BID } from './book/orderBook.js';
import { Market, canTransition } from './market.js';
import { cancelOpenOrder } from './orderEntry.js';
import type { EngineState } from './state.js';
import { MAX_ORDER_AMOUNT, LOT, isValidTick } from './units.js';
import { isBps, isId } from './commandChecks.js';
import { isQuestionIndex, joinEvent, joinRefusal } from './negRisk.js';

/** Why a set of parameters is unacceptable, or undefined when it is fine. */
function paramsProblem(params: MarketParams): string | undefined {
  if (!isValidTick(params.tickSize)) return 'tick size must be a multiple of 0.0001 that divides 1 and is below 0.5';
  if (!Number.isSafeInteger(params.minSize) || params.minSize < LOT || params.minSize > MAX_ORDER_AMOUNT || params.minSize % LOT !== 0) {
    return 'minimum size must be a positive whole number of lots (0.01 share)';
  }
  if (!isBps(params.makerFeeBps) || !isBps(params.takerFeeBps)) return 'fees must be whole basis points from 0 to 10000';
  if (typeof params.negRisk !== 'boolean') return 'negRisk must be a boolean';
  return undefined;
}

function paramsOf(source: MarketParams): MarketParams {
  return {
    tickSize: source.tickSize,
    minSize: source.minSize,
    makerFeeBps: source.makerFeeBps,
    takerFeeBps: source.takerFeeBps,
    negRisk: source.negRisk,
  };
}

export function listMarket(state: EngineState, cmd: ListMarket): void {
  const where = { conditionId: typeof cmd.conditionId === 'string' ? cmd.conditionId : '' };
  const tokens = cmd.tokenIds;
  if (!isId(cmd.conditionId) || !Array.isArray(tokens) || tokens.length !== 2 || !isId(tokens[0]) || !isId(tokens[1]) || tokens[0] === tokens[1]) {
    return state.reject('ListMarket', 'INVALID_MARKET_PARAMS', where, { detail: 'a condition id and two distinct token ids are required' });
  }
  const params = paramsOf(cmd);
  const problem = paramsProblem(params);
  if (problem !== undefined) return state.reject('ListMarket', 'INVALID_MARKET_PARAMS', where, { detail: problem });
  const { negRiskMarketId, questionIndex } = cmd;
  const inEvent = negRiskMarketId !== undefined || questionIndex !== undefined;
  if (inEvent) {
    if (!isId(negRiskMarketId) || !isQuestionIndex(questionIndex)) {
      return state.reject('ListMarket', 'INVALID_MARKET_PARAMS', where, { detail: 'a question of a neg-risk event needs negRiskMarketId and a questionIndex from 0 to 255' });
    }
    if (!params.negRisk) return state.reject('ListMarket', 'INVALID_MARKET_PARAMS', where, { detail: 'a question of a neg-risk event must be negRisk' });
  }
  if (state.markets.has(cmd.conditionId)) return state.reject('ListMarket', 'MARKET_EXISTS', where, where);
  for (const tokenId of tokens) {
    if (state.tokens.has(tokenId)) return state.reject('ListMarket', 'TOKEN_IN_USE', where, { tokenId });
  }
  const refusal = inEvent ? joinRefusal(state, negRiskMarketId as string, questionIndex as number) : undefined;
  if (refusal !== undefined) return state.reject('ListMarket', refusal.code, where, refusal.values);
  const tokenIds: [string, string] = [tokens[0], tokens[1]];
  const market = new Market(cmd.conditionId, tokenIds, params, state.bookFactory());
  state.markets.set(cmd.conditionId, market);
  state.tokens.set(tokenIds[0], { market, outcome: 0 });
  state.tokens.set(tokenIds[1], { market, outcome: 1 });
  if (inEvent) {
    joinEvent(state, market, negRiskMarketId as string, questionIndex as number);
    state.emit({ type: 'MarketListed', conditionId: cmd.conditionId, tokenIds, ...params, negRiskMarketId: market.negRiskMarketId as string, questionIndex: market.questionIndex });
  } else {
    state.emit({ type: 'MarketListed', conditionId: cmd.conditionId, tokenIds, ...params });
  }
}

export function updateMarket(state: EngineState, cmd: UpdateMarket): void {
  const market = isId(cmd.conditionId) ? state.markets.get(cmd.conditionId) : undefined;
  const where = { conditionId: market?.conditionId ?? '' };
  if (market === undefined) return state.reject('UpdateMarket', 'MARKET_NOT_FOUND', where);
  if (market.status === 'resolved') return state.reject('UpdateMarket', 'MARKET_CLOSED', where);
  const previous = market.params;
  const next: MarketParams = {
    tickSize: cmd.tickSize ?? previous.tickSize,
    minSize: cmd.minSize ?? previous.minSize,
    makerFeeBps: cmd.makerFeeBps ?? previous.makerFeeBps,
    takerFeeBps: cmd.takerFeeBps ?? previous.takerFeeBps,
    negRisk: cmd.negRisk ?? previous.negRisk,
  };
  const problem = paramsProblem(next) ?? (market.negRiskMarketId !== null && !next.negRisk ? 'a question of a neg-risk event stays negRisk' : undefined);
  if (problem !== undefined) return state.reject('UpdateMarket', 'INVALID_MARKET_PARAMS', where, { detail: problem });
  // Resting orders keep their prices: every price on an old tick is a valid price; only new orders must
  // sit on the new tick.
  market.params = next;
  state.emit({ type: 'MarketUpdated', conditionId: market.conditionId, ...next, previous });
}

function changeStatus(state: EngineState, cmd: PauseMarket | ResumeMarket, to: MarketStatus): void {
  const market = isId(cmd.conditionId) ? state.markets.get(cmd.conditionId) : undefined;
  const where = { conditionId: market?.conditionId ?? '' };
  if (market === undefined) return state.reject(cmd.type, 'MARKET_NOT_FOUND', where);
  const from = market.status;
  if (!canTransition(from, to)) return state.reject(cmd.type, 'INVALID_TRANSITION', where, { conditionId: market.conditionId, from, to });
  market.status = to;
  state.emit({ type: 'MarketStatusChanged', conditionId: market.conditionId, from, to });
}

export function pauseMarket(state: EngineState, cmd: PauseMarket): void {
  changeStatus(state, cmd, 'paused');
}

export function resumeMarket(state: EngineState, cmd: ResumeMarket): void {
  changeStatus(state, cmd, 'active');
}

export function resolveMarket(state: EngineState, cmd: ResolveMarket): void {
  const market = isId(cmd.conditionId) ? state.markets.get(cmd.conditionId) : undefined;
  const where = { conditionId: market?.conditionId ?? '' };
  if (market === undefined) return state.reject('ResolveMarket', 'MARKET_NOT_FOUND', where);
  if (cmd.winningOutcome !== 0 && cmd.winningOutcome !== 1) {
    return state.reject('ResolveMarket', 'INVALID_COMMAND', where, { detail: 'winningOutcome must be 0 or 1' });
  }
  if (!canTransition(market.status, 'resolved')) {
    return state.reject('ResolveMarket', 'INVALID_TRANSITION', where, { conditionId: market.conditionId, from: market.status, to: 'resolved' });
  }
  if (cmd.winningOutcome === 0 && market.negRiskMarketId !== null) {
    const winner = state.negRisk.get(market.negRiskMarketId)?.winner();
    if (winner !== undefined) return state.reject('ResolveMarket', 'NEG_RISK_DETERMINED', where, { negRiskMarketId: market.negRiskMarketId, conditionId: winner.conditionId });
  }
  settle(state, market, cmd.winningOutcome);
}

/** Resolves a market that may be resolved: cancels its open orders (oldest first) and fixes the winner. */
export function settle(state: EngineState, market: Market, winningOutcome: Outcome): void {
  const open = [...market.book.orders(BID), ...market.book.orders(ASK)].sort((a, b) => a.priority - b.priority);
  for (const order of open) cancelOpenOrder(state, order, 'market_resolved');
  const from = market.status;
  market.status = 'resolved';
  market.winningOutcome = winningOutcome;
  state.emit({ type: 'MarketStatusChanged', conditionId: market.conditionId, from, to: 'resolved' });
  state.emit({
    type: 'MarketResolved',
    conditionId: market.conditionId,
    winningOutcome,
    winningTokenId: market.tokenIds[winningOutcome],
  });
}
