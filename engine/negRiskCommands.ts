// The commands of neg-risk events (negRisk.ts): converting NO positions, as the neg-risk adapter's
// convertPositions does, and resolving an event by its winner.
//
// ConvertPositions {account, negRiskMarketId, indexSet, amount}: of the event's N questions, the k named by
// indexSet give `amount` NO each, the N − k others give `amount` YES each to the account, with (k − 1) ×
// `amount` collateral. Refused, with nothing changed: an unknown event (NEG_RISK_NOT_FOUND, also for a
// market's condition id or a market outside any event), one with fewer than two questions
// (NO_CONVERTIBLE_POSITIONS), an empty set or one naming an index that is not a question of the event
// (INVALID_INDEX_SET), an amount that is not a positive whole number of base units, an event with a resolved
// question (NEG_RISK_RESOLVED: its tokens redeem instead), too few free NO tokens (NOT_ENOUGH_BALANCE), and
// a conversion that would take total collateral past the engine's limit (BALANCE_LIMIT). No fee is charged
// (the adapter's feeBips, 0 on upstream's events). A paused question converts, as it splits and merges.

import type { ConvertPositions, JoinNegRiskEvent, ResolveNegRiskEvent } from './commands.js';
import type { EngineState } from './state.js';
import type { Market } from './market.js';
import { canTransition } from './market.js';
import { settle } from './marketCommands.js';
import { indicesOf, isQuestionIndex, joinEvent, joinRefusal } from './negRisk.js';
import { MAX_BALANCE } from './units.js';
import { isAmount, isId } from './commandChecks.js';

export function convertPositions(state: EngineState, cmd: ConvertPositions): void {
  const id = typeof cmd.negRiskMarketId === 'string' ? cmd.negRiskMarketId : '';
  const where = { account: typeof cmd.account === 'string' ? cmd.account : '', conditionId: id };
  if (!isId(cmd.account)) return state.reject('ConvertPositions', 'INVALID_COMMAND', where, { detail: 'account is required' });
  const event = isId(cmd.negRiskMarketId) ? state.negRisk.get(cmd.negRiskMarketId) : undefined;
  if (event === undefined) return state.reject('ConvertPositions', 'NEG_RISK_NOT_FOUND', where, { negRiskMarketId: id });
  const n = event.questions.length;
  if (n <= 1) return state.reject('ConvertPositions', 'NO_CONVERTIBLE_POSITIONS', where, { negRiskMarketId: id });
  const indices = indicesOf(cmd.indexSet);
  if (typeof indices === 'string') return state.reject('ConvertPositions', 'INVALID_INDEX_SET', where, { detail: indices });
  const named: Market[] = [];
  for (const index of indices) {
    const market = event.question(index);
    if (market === undefined) return state.reject('ConvertPositions', 'INVALID_INDEX_SET', where, { detail: `question ${index} is not a market of neg risk market ${id}` });
    named.push(market);
  }
  const amount = cmd.amount;
  if (!isAmount(amount, MAX_BALANCE)) return state.reject('ConvertPositions', 'INVALID_AMOUNT', where, { detail: 'a positive whole number of base units' });
  if (event.questions.some((m) => m.status === 'resolved')) return state.reject('ConvertPositions', 'NEG_RISK_RESOLVED', where, { negRiskMarketId: id });
  const account = state.ledger.get(cmd.account);
  if (account === undefined || named.some((m) => account.freeTokens(m.tokenIds[1]) < amount)) return state.reject('ConvertPositions', 'NOT_ENOUGH_BALANCE', where);
  // What the event pays ahead, (n − 1) × amount, counts towards total collateral, which bounds every sum.
  const ahead = (n - 1) * amount;
  if (state.ledger.deposits - state.ledger.withdrawals + state.negRisk.unbacked + ahead > MAX_BALANCE) return state.reject('ConvertPositions', 'BALANCE_LIMIT', where);

  const k = named.length;
  const others = event.questions.filter((m) => !named.includes(m));
  for (const market of named) {
    account.holding(market.tokenIds[1]).free -= amount;
    market.convertedNo += amount;
  }
  for (const market of others) {
    // A full set split with collateral paid ahead: the YES to the account, the NO burned.
    account.holding(market.tokenIds[0]).free += amount;
    market.locked += amount;
    market.convertedNo += amount;
  }
  const payout = (k - 1) * amount;
  account.free += payout;
  event.unbacked += ahead;
  state.negRisk.unbacked += ahead;
  state.emit({
    type: 'PositionsConverted',
    account: account.address,
    negRiskMarketId: event.id,
    indexSet: cmd.indexSet,
    amount,
    payout,
    noConditionIds: named.map((m) => m.conditionId),
    noTokenIds: named.map((m) => m.tokenIds[1]),
    yesConditionIds: others.map((m) => m.conditionId),
    yesTokenIds: others.map((m) => m.tokenIds[0]),
  });
}

/**
 * A listed market joins an event as ListMarket with the event's fields would have listed it (markets listed
 * before events existed). Refused: an unknown market (MARKET_NOT_FOUND), one already in an event or with a
 * malformed event id or index (INVALID_COMMAND), one not negRisk (INVALID_MARKET_PARAMS), a resolved one
 * (MARKET_CLOSED), and what ListMarket refuses of the event (NEG_RISK_DETERMINED, QUESTION_INDEX_TAKEN). Its
 * positions and orders stay as they are: it has burned nothing, as a question added to an open event.
 */
export function joinNegRiskEvent(state: EngineState, cmd: JoinNegRiskEvent): void {
  const market = isId(cmd.conditionId) ? state.markets.get(cmd.conditionId) : undefined;
  const where = { conditionId: market?.conditionId ?? '' };
  if (market === undefined) return state.reject('JoinNegRiskEvent', 'MARKET_NOT_FOUND', where);
  if (!isId(cmd.negRiskMarketId) || !isQuestionIndex(cmd.questionIndex)) {
    return state.reject('JoinNegRiskEvent', 'INVALID_COMMAND', where, { detail: 'negRiskMarketId and a questionIndex from 0 to 255 are required' });
  }
  if (market.negRiskMarketId !== null) {
    return state.reject('JoinNegRiskEvent', 'INVALID_COMMAND', where, { detail: `market ${market.conditionId} is already question ${market.questionIndex} of neg risk market ${market.negRiskMarketId}` });
  }
  if (!market.params.negRisk) return state.reject('JoinNegRiskEvent', 'INVALID_MARKET_PARAMS', where, { detail: 'a question of a neg-risk event must be negRisk' });
  if (market.status === 'resolved') return state.reject('JoinNegRiskEvent', 'MARKET_CLOSED', where);
  const refusal = joinRefusal(state, cmd.negRiskMarketId, cmd.questionIndex);
  if (refusal !== undefined) return state.reject('JoinNegRiskEvent', refusal.code, where, refusal.values);
  joinEvent(state, market, cmd.negRiskMarketId, cmd.questionIndex);
  state.emit({ type: 'MarketJoinedNegRiskEvent', conditionId: market.conditionId, negRiskMarketId: cmd.negRiskMarketId, questionIndex: cmd.questionIndex });
}

/**
 * Resolves the event by its winner: the winner YES (unless it already resolved so), then each other question
 * not yet resolved NO, by question index. Refused: an unknown event, a winner that is not one of its
 * questions (INVALID_COMMAND), a winner already resolved NO (MARKET_CLOSED), an event whose winner is another
 * question (NEG_RISK_DETERMINED), and an event with nothing left to resolve (INVALID_TRANSITION).
 */
export function resolveNegRiskEvent(state: EngineState, cmd: ResolveNegRiskEvent): void {
  const id = typeof cmd.negRiskMarketId === 'string' ? cmd.negRiskMarketId : '';
  const event = isId(cmd.negRiskMarketId) ? state.negRisk.get(cmd.negRiskMarketId) : undefined;
  if (event === undefined) return state.reject('ResolveNegRiskEvent', 'NEG_RISK_NOT_FOUND', { conditionId: id }, { negRiskMarketId: id });
  const winner = event.questions.find((m) => m.conditionId === cmd.winningConditionId);
  const where = { conditionId: winner?.conditionId ?? '' };
  if (winner === undefined) return state.reject('ResolveNegRiskEvent', 'INVALID_COMMAND', where, { detail: `winningConditionId is not a question of neg risk market ${id}` });
  const decided = event.winner();
  if (decided !== undefined && decided !== winner) return state.reject('ResolveNegRiskEvent', 'NEG_RISK_DETERMINED', where, { negRiskMarketId: id, conditionId: decided.conditionId });
  if (winner.status === 'resolved' && winner.winningOutcome === 1) return state.reject('ResolveNegRiskEvent', 'MARKET_CLOSED', where);
  const open = event.questions.filter((m) => canTransition(m.status, 'resolved'));
  if (open.length === 0) return state.reject('ResolveNegRiskEvent', 'INVALID_TRANSITION', where, { conditionId: winner.conditionId, from: 'resolved', to: 'resolved' });
  if (open.includes(winner)) settle(state, winner, 0);
  for (const market of open) if (market !== winner) settle(state, market, 1);
}
