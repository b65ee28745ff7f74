// Collateral in and out, and the conditional-token operations on full sets: split (collateral into one of
// each outcome), merge (one of each back into collateral) and redeem (after resolution: winning tokens for
// one unit each, losing ones for nothing).

import type { Deposit, Merge, Redeem, Split, Withdraw } from './commands.js';
import type { EngineState } from './state.js';
import type { Market } from './market.js';
import { MAX_BALANCE } from './units.js';
import { isAmount, isId } from './commandChecks.js';

export function deposit(state: EngineState, cmd: Deposit): void {
  const where = { account: typeof cmd.account === 'string' ? cmd.account : '' };
  if (!isId(cmd.account)) return state.reject('Deposit', 'INVALID_COMMAND', where, { detail: 'account is required' });
  if (!isAmount(cmd.amount, MAX_BALANCE)) return state.reject('Deposit', 'INVALID_AMOUNT', where, { detail: 'a positive whole number of base units' });
  // Total collateral in the system (with what neg-risk conversions paid ahead) bounds every balance and sum
  // the engine computes.
  if (state.ledger.deposits - state.ledger.withdrawals + state.negRisk.unbacked + cmd.amount > MAX_BALANCE) return state.reject('Deposit', 'BALANCE_LIMIT', where);
  const account = state.ledger.getOrCreate(cmd.account);
  account.free += cmd.amount;
  state.ledger.deposits += cmd.amount;
  state.emit({ type: 'CollateralDeposited', account: cmd.account, amount: cmd.amount });
}

export function withdraw(state: EngineState, cmd: Withdraw): void {
  const where = { account: typeof cmd.account === 'string' ? cmd.account : '' };
  if (!isAmount(cmd.amount, MAX_BALANCE)) return state.reject('Withdraw', 'INVALID_AMOUNT', where, { detail: 'a positive whole number of base units' });
  const account = isId(cmd.account) ? state.ledger.get(cmd.account) : undefined;
  if (account === undefined || account.free < cmd.amount) return state.reject('Withdraw', 'NOT_ENOUGH_BALANCE', where);
  account.free -= cmd.amount;
  state.ledger.withdrawals += cmd.amount;
  state.emit({ type: 'CollateralWithdrawn', account: account.address, amount: cmd.amount });
}

/** The market a full-set command names, or undefined after emitting the refusal. */
function marketFor(state: EngineState, cmd: Split | Merge | Redeem): Market | undefined {
  const where = { account: typeof cmd.account === 'string' ? cmd.account : '', conditionId: typeof cmd.conditionId === 'string' ? cmd.conditionId : '' };
  const market = isId(cmd.conditionId) ? state.markets.get(cmd.conditionId) : undefined;
  if (market === undefined) {
    state.reject(cmd.type, 'MARKET_NOT_FOUND', where);
    return undefined;
  }
  if (cmd.type === 'Redeem' ? market.status !== 'resolved' : market.status === 'resolved') {
    state.reject(cmd.type, cmd.type === 'Redeem' ? 'MARKET_NOT_RESOLVED' : 'MARKET_CLOSED', where, where);
    return undefined;
  }
  return market;
}

export function split(state: EngineState, cmd: Split): void {
  const market = marketFor(state, cmd);
  if (market === undefined) return;
  const where = { account: String(cmd.account), conditionId: market.conditionId };
  if (!isAmount(cmd.amount, MAX_BALANCE)) return state.reject('Split', 'INVALID_AMOUNT', where, { detail: 'a positive whole number of base units' });
  const account = isId(cmd.account) ? state.ledger.get(cmd.account) : undefined;
  if (account === undefined || account.free < cmd.amount) return state.reject('Split', 'NOT_ENOUGH_BALANCE', where);
  account.free -= cmd.amount;
  account.holding(market.tokenIds[0]).free += cmd.amount;
  account.holding(market.tokenIds[1]).free += cmd.amount;
  market.locked += cmd.amount;
  state.emit({ type: 'PositionSplit', account: account.address, conditionId: market.conditionId, amount: cmd.amount });
}

export function merge(state: EngineState, cmd: Merge): void {
  const market = marketFor(state, cmd);
  if (market === undefined) return;
  const where = { account: String(cmd.account), conditionId: market.conditionId };
  if (!isAmount(cmd.amount, MAX_BALANCE)) return state.reject('Merge', 'INVALID_AMOUNT', where, { detail: 'a positive whole number of base units' });
  const account = isId(cmd.account) ? state.ledger.get(cmd.account) : undefined;
  const [yes, no] = market.tokenIds;
  if (account === undefined || account.freeTokens(yes) < cmd.amount || account.freeTokens(no) < cmd.amount) {
    return state.reject('Merge', 'NOT_ENOUGH_BALANCE', where);
  }
  account.holding(yes).free -= cmd.amount;
  account.holding(no).free -= cmd.amount;
  account.free += cmd.amount;
  market.locked -= cmd.amount;
  state.emit({ type: 'PositionsMerged', account: account.address, conditionId: market.conditionId, amount: cmd.amount });
}

export function redeem(state: EngineState, cmd: Redeem): void {
  const market = marketFor(state, cmd);
  if (market === undefined) return;
  const account = isId(cmd.account) ? state.ledger.get(cmd.account) : undefined;
  const held: [number, number] = [account?.freeTokens(market.tokenIds[0]) ?? 0, account?.freeTokens(market.tokenIds[1]) ?? 0];
  if (account === undefined || held[0] + held[1] === 0) {
    return state.reject('Redeem', 'NOTHING_TO_REDEEM', { account: String(cmd.account), conditionId: market.conditionId }, { conditionId: market.conditionId });
  }
  // Resolution cancelled every order of the market, so nothing of it is reserved.
  const winner = market.winningOutcome ?? 0;
  const payout = held[winner];
  account.holding(market.tokenIds[0]).free = 0;
  account.holding(market.tokenIds[1]).free = 0;
  account.free += payout;
  market.locked -= payout;
  state.emit({ type: 'PositionRedeemed', account: account.address, conditionId: market.conditionId, winningOutcome: winner, payout, burned: held });
}
