// What the operator API answers, read from the engine: balances and markets with amounts as decimal strings
// (formatUnits: base units → "100.5"), and the schemas fast-json-stringify serialises them with.

import { formatUnits, type Engine } from '../../engine/index.js';
import type { JsonSchema } from '../http/apiTypes.js';
import { arr, bool, int, obj, str } from '../schemas/common.js';

const pair = obj({ free: str('decimal string'), reserved: str('decimal string') });

export const BALANCE_RESPONSE: JsonSchema = obj({ address: str(), balance: pair });

export const ACCOUNT_RESPONSE: JsonSchema = obj({
  address: str(),
  collateral: pair,
  tokens: arr(obj({ tokenId: str(), free: str(), reserved: str() })),
});

export const MARKET_RESPONSE: JsonSchema = obj({
  conditionId: str(),
  tokenIds: arr(str()),
  tickSize: str(),
  minSize: str(),
  makerFeeBps: int(),
  takerFeeBps: int(),
  negRisk: bool(),
  negRiskMarketId: str('The neg-risk event the market is a question of (only then)'),
  questionIndex: int('Its question index in that event (only then)'),
  status: str('active, paused or resolved'),
  winningOutcome: { type: ['integer', 'null'] },
}, { optional: ['negRiskMarketId', 'questionIndex'] });

export const NEG_RISK_EVENT_RESPONSE: JsonSchema = obj({
  negRiskMarketId: str(),
  questions: arr(obj({ questionIndex: int(), conditionId: str(), tokenIds: arr(str()), status: str(), winningOutcome: { type: ['integer', 'null'] } })),
  winner: { type: ['string', 'null'], description: 'The condition id of the question that resolved YES' },
  paidAhead: str('Collateral conversions paid ahead, backed by the burned NO tokens (decimal string)'),
});

export const SIGNERS_RESPONSE: JsonSchema = obj({ maker: str(), signers: arr(str()) });

export interface BalanceView {
  readonly address: string;
  readonly balance: { readonly free: string; readonly reserved: string };
}

/** Collateral of an address; an address the engine has never seen holds nothing. */
export function balanceView(engine: Engine, address: string): BalanceView {
  const b = engine.balances(address);
  return { address, balance: { free: formatUnits(b?.free ?? 0), reserved: formatUnits(b?.reserved ?? 0) } };
}

/** Collateral and every non-zero token holding (by token id) of an address. */
export function accountView(engine: Engine, address: string): object {
  const b = engine.balances(address);
  const tokens = [...(b?.tokens ?? new Map<string, { free: number; reserved: number }>())]
    .filter(([, h]) => h.free !== 0 || h.reserved !== 0)
    .sort(([a], [z]) => (a < z ? -1 : a > z ? 1 : 0))
    .map(([tokenId, h]) => ({ tokenId, free: formatUnits(h.free), reserved: formatUnits(h.reserved) }));
  return { address, collateral: { free: formatUnits(b?.free ?? 0), reserved: formatUnits(b?.reserved ?? 0) }, tokens };
}

/** A market as the engine holds it, or undefined when it is not listed. */
export function marketView(engine: Engine, conditionId: string): object | undefined {
  const m = engine.market(conditionId);
  if (m === undefined) return undefined;
  const p = m.params;
  return {
    conditionId: m.conditionId, tokenIds: [...m.tokenIds], tickSize: formatUnits(p.tickSize), minSize: formatUnits(p.minSize),
    makerFeeBps: p.makerFeeBps, takerFeeBps: p.takerFeeBps, negRisk: p.negRisk,
    ...(m.negRiskMarketId === null ? {} : { negRiskMarketId: m.negRiskMarketId, questionIndex: m.questionIndex }),
    status: m.status, winningOutcome: m.winningOutcome,
  };
}

/** A neg-risk event as the engine holds it, or undefined when no market has joined it. */
export function negRiskEventView(engine: Engine, id: string): object | undefined {
  const event = engine.negRiskEvent(id);
  if (event === undefined) return undefined;
  return {
    negRiskMarketId: event.id,
    questions: event.questions.map((m) => ({ questionIndex: m.questionIndex, conditionId: m.conditionId, tokenIds: [...m.tokenIds], status: m.status, winningOutcome: m.winningOutcome })),
    winner: event.winner()?.conditionId ?? null,
    paidAhead: formatUnits(event.unbacked),
  };
}

export function signersView(engine: Engine, maker: string): object {
  return { maker, signers: engine.signersOf(maker) };
}
