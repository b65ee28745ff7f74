// What the engine needs of a catalog market, read from its upstream (Gamma-shaped) object.
//
// - Only markets with an order book (`enableOrderBook: true`) and exactly two distinct token ids
//   (`clobTokenIds`, outcome 0 then outcome 1) trade here.
// - tickSize: `orderPriceMinTickSize` (0.01 → 10_000 price units); default 0.01. A tick the engine cannot
//   use (not a multiple of 0.0001 dividing 1) keeps the market off the engine.
// - minSize: `orderMinSize` in shares (5 → 5_000_000 base units), rounded up to whole lots of 0.01 share;
//   default 5 shares.
// - makerFeeBps / takerFeeBps: `makerBaseFee` / `takerBaseFee`, which the upstream gives in basis points
//   (the CLOB's maker_base_fee/taker_base_fee); 0 when absent; clamped to 0..10000.
// - negRisk: `negRisk`.
// - the neg-risk event: a negRisk market whose `negRiskMarketID` is 0x + 64 hex ending in 00 and whose
//   `questionID` is that id with its question index in the last byte (upstream's NegRiskIdLib) is listed as
//   that question of that event (ids lower-cased); otherwise it is listed on its own.
// - outcome: a closed market whose `outcomePrices` are exactly ["1","0"] resolved to outcome 0, ["0","1"]
//   to outcome 1; closed with any other prices it is closed but not (yet) decisively resolved.

import { isValidTick, LOT, MAX_ORDER_AMOUNT, PRICE_ONE, UNIT, type MarketParams, type Outcome } from '../../engine/index.js';
import { boolOf, numberOf, stringArrayOf, textOf, type GammaObject } from '../upstream/gammaValues.js';

export const DEFAULT_TICK = 10_000;
export const DEFAULT_MIN_SIZE = 5 * UNIT;

export type UpstreamOutcome = { readonly kind: 'open' } | { readonly kind: 'closed' } | { readonly kind: 'resolved'; readonly winningOutcome: Outcome };

export interface EngineTerms {
  readonly conditionId: string;
  readonly tokenIds: readonly [string, string];
  readonly params: MarketParams;
  readonly outcome: UpstreamOutcome;
  /** The neg-risk event the market is a question of, when the catalog says so. */
  readonly negRiskEvent?: { readonly negRiskMarketId: string; readonly questionIndex: number };
}

/** The neg-risk event and question index of a negRisk market, from its negRiskMarketID and questionID. */
export function negRiskEventOf(market: GammaObject): EngineTerms['negRiskEvent'] {
  if (boolOf(market.negRisk) !== true) return undefined;
  const id = (textOf(market.negRiskMarketID) ?? '').toLowerCase();
  const question = (textOf(market.questionID) ?? '').toLowerCase();
  if (!/^0x[0-9a-f]{62}00$/.test(id) || !/^0x[0-9a-f]{64}$/.test(question) || question.slice(0, 64) !== id.slice(0, 64)) return undefined;
  return { negRiskMarketId: id, questionIndex: parseInt(question.slice(64), 16) };
}

export type TermsResult = { readonly ok: true; readonly terms: EngineTerms } | { readonly ok: false; readonly reason: string };

function bps(value: unknown): number {
  const n = numberOf(value);
  return n === undefined ? 0 : Math.min(10_000, Math.max(0, Math.round(n)));
}

export function outcomeOf(market: GammaObject): UpstreamOutcome {
  if (boolOf(market.closed) !== true) return { kind: 'open' };
  const prices = (stringArrayOf(market.outcomePrices) ?? []).map(Number);
  if (prices.length === 2 && prices[0] === 1 && prices[1] === 0) return { kind: 'resolved', winningOutcome: 0 };
  if (prices.length === 2 && prices[0] === 0 && prices[1] === 1) return { kind: 'resolved', winningOutcome: 1 };
  return { kind: 'closed' };
}

export function engineTermsOf(market: GammaObject): TermsResult {
  if (boolOf(market.enableOrderBook) !== true) return { ok: false, reason: 'no order book' };
  const conditionId = textOf(market.conditionId) ?? '';
  if (!/^0x[0-9a-fA-F]{64}$/.test(conditionId)) return { ok: false, reason: 'no condition id' };
  const tokens = stringArrayOf(market.clobTokenIds) ?? [];
  const [t0, t1] = tokens;
  if (tokens.length !== 2 || t0 === undefined || t1 === undefined || t0 === t1 || !/^\d{1,78}$/.test(t0) || !/^\d{1,78}$/.test(t1)) {
    return { ok: false, reason: 'not a binary market with two token ids' };
  }
  const tickNumber = numberOf(market.orderPriceMinTickSize);
  const tickSize = tickNumber === undefined ? DEFAULT_TICK : Math.round(tickNumber * PRICE_ONE);
  if (!isValidTick(tickSize)) return { ok: false, reason: `tick size ${String(market.orderPriceMinTickSize)} is not supported` };
  const minNumber = numberOf(market.orderMinSize);
  const rawMin = minNumber === undefined ? DEFAULT_MIN_SIZE : Math.round(minNumber * UNIT);
  const minSize = Math.min(MAX_ORDER_AMOUNT, Math.max(LOT, Math.ceil(rawMin / LOT) * LOT));
  return {
    ok: true,
    terms: {
      conditionId,
      tokenIds: [t0, t1],
      params: { tickSize, minSize, makerFeeBps: bps(market.makerBaseFee), takerFeeBps: bps(market.takerBaseFee), negRisk: boolOf(market.negRisk) === true },
      outcome: outcomeOf(market),
      ...(negRiskEventOf(market) === undefined ? {} : { negRiskEvent: negRiskEventOf(market) }),
    },
  };
}
