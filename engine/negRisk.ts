// Neg-risk events: binary markets linked as the questions of one event (upstream's neg-risk adapter calls the
// event a "market" and gives it a marketId), of which at most one resolves YES. A market joins an event when
// it is listed with the event's id and a free question index (an event exists from its first market on, and
// takes questions until it has a winner, as the adapter's prepareQuestion does). A NO of one question is then
// convertible (negRiskCommands.ts).
//
// Bookkeeping of a conversion, as the adapter does it on chain: the NO tokens given are burned (they stay
// backed by their market's locked collateral but belong to no one: Market.convertedNo); each YES given out
// comes from a full set split with collateral the event pays ahead, whose NO half is burned the same way; and
// the (k − 1) × amount paid to the converter is paid ahead too. What the event paid ahead is `unbacked`. Each
// conversion burns `amount` NO in every question the event has at that time, and pays ahead (questions − 1)
// × amount, so whichever question wins, the burned NO of the others cover what was paid ahead: that is the
// event's solvency invariant (invariants.ts).

import type { Market } from './market.js';
import type { RejectCode } from './rejectReasons.js';
import type { EngineState } from './state.js';

/** The highest question index (the adapter's question ids end in one byte). */
export const MAX_QUESTION_INDEX = 255;

export class NegRiskEvent {
  /** Its questions, ascending by question index. */
  readonly questions: Market[] = [];
  /** Collateral paid out ahead by conversions (see the file header). */
  unbacked = 0;

  constructor(readonly id: string) {}

  question(index: number): Market | undefined {
    return this.questions.find((m) => m.questionIndex === index);
  }

  /** Inserts a market in question order (its questionIndex is set and free). */
  add(market: Market): void {
    let at = this.questions.length;
    while (at > 0 && (this.questions[at - 1] as Market).questionIndex > market.questionIndex) at -= 1;
    this.questions.splice(at, 0, market);
  }

  /** The question that resolved YES, if any. */
  winner(): Market | undefined {
    return this.questions.find((m) => m.status === 'resolved' && m.winningOutcome === 0);
  }
}

export class NegRiskEvents {
  readonly byId = new Map<string, NegRiskEvent>();
  /** Sum of every event's `unbacked` (it bounds collateral sums with deposits: ledgerCommands.ts). */
  unbacked = 0;

  get(id: string): NegRiskEvent | undefined {
    return this.byId.get(id);
  }

  getOrCreate(id: string): NegRiskEvent {
    let event = this.byId.get(id);
    if (event === undefined) {
      event = new NegRiskEvent(id);
      this.byId.set(id, event);
    }
    return event;
  }

  get size(): number {
    return this.byId.size;
  }
}

/** A question index: an integer 0..MAX_QUESTION_INDEX. */
export function isQuestionIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_QUESTION_INDEX;
}

/**
 * The question indices an index set names, ascending, or why it names none: a canonical decimal uint256
 * (no sign, no leading zeros) with at least one bit set and none above MAX_QUESTION_INDEX.
 */
export function indicesOf(indexSet: unknown): number[] | string {
  if (typeof indexSet !== 'string' || !/^(0|[1-9]\d{0,77})$/.test(indexSet)) return 'indexSet must be a decimal uint256 string (bit i names question i)';
  let bits = BigInt(indexSet);
  if (bits === 0n) return 'indexSet is empty: name at least one question';
  if (bits >> BigInt(MAX_QUESTION_INDEX + 1) !== 0n) return `indexSet names a question above ${MAX_QUESTION_INDEX}`;
  const out: number[] = [];
  for (let i = 0; bits !== 0n; i++, bits >>= 1n) if ((bits & 1n) === 1n) out.push(i);
  return out;
}

/** Why a market cannot join the event `id` as question `index` (checked fields), or undefined when it can. */
export function joinRefusal(state: EngineState, id: string, index: number): { code: RejectCode; values: Record<string, string | number> } | undefined {
  const event = state.negRisk.get(id);
  if (event === undefined) return undefined;
  const winner = event.winner();
  if (winner !== undefined) return { code: 'NEG_RISK_DETERMINED', values: { negRiskMarketId: id, conditionId: winner.conditionId } };
  const taken = event.question(index);
  if (taken !== undefined) return { code: 'QUESTION_INDEX_TAKEN', values: { negRiskMarketId: id, questionIndex: index, conditionId: taken.conditionId } };
  return undefined;
}

/** Makes `market` question `index` of the event `id` (created with its first question); joinRefusal said it may. */
export function joinEvent(state: EngineState, market: Market, id: string, index: number): void {
  market.negRiskMarketId = id;
  market.questionIndex = index;
  state.negRisk.getOrCreate(id).add(market);
}
