// Order scoring (the official client's isOrderScoring and areOrdersScoring; upstream's "Get order scoring
// status"): whether a sample taken now would score the order, by the sampler's own rule
// (engine/rewards/rewardQueries.ts orderScoring): the order rests in an open market with a rewards program,
// with at least its minimum size, less than its max spread from the size-cutoff-adjusted midpoint.
//
// - GET /order-scoring?order_id= → {scoring}. POST /orders-scoring, body the order ids as a JSON array (what
//   the client sends) or {"orderIds": [...]} (upstream's older document) → {<id>: scoring}, each id once.
// - L2 headers or a read-only key (a read: it changes nothing). Only the caller's own open orders can score:
//   an unknown, finished or another account's order answers false (no order is disclosed).
// - A malformed id is 400 `Invalid orderID`; at most 1,000 ids a call (`Payload exceeds the limit`).

import { ApiError } from '../http/apiErrors.js';
import { ok, type ApiRequest, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { answering, orderId } from '../schemas/formats.js';
import { orderIdOf } from '../trading/accountInputs.js';
import { requireReader } from '../trading/authenticate.js';
import type { TradingDeps } from '../trading/tradingDeps.js';
import { SCORING, SCORING_MAP } from './rewardViews.js';

export const MAX_SCORING_IDS = 1_000;

const ERRORS = ['invalid_order_id', 'unauthorized', 'rate_limited', 'unavailable'] as const;

const IDS: JsonSchema = { type: 'array', items: orderId(), maxItems: MAX_SCORING_IDS };
const BODY: JsonSchema = answering(
  { anyOf: [IDS, { type: 'object', properties: { orderIds: IDS }, required: ['orderIds'] }], description: `The order ids (at most ${MAX_SCORING_IDS}, each 0x + 64 hex digits): a JSON array, or {"orderIds": [...]}.` },
  'invalid_payload',
);

function scoring(deps: TradingDeps, account: string, id: string): boolean {
  const engine = deps.host.engine;
  return engine.order(id)?.account.address === account && engine.orderScoring(id);
}

/** The ids of a POST /orders-scoring body, each checked; 400 for anything else. */
function idsOf(body: unknown): string[] {
  const list = Array.isArray(body) ? body : typeof body === 'object' && body !== null ? (body as { orderIds?: unknown }).orderIds : undefined;
  if (!Array.isArray(list)) throw new ApiError('invalid_payload');
  if (list.length > MAX_SCORING_IDS) throw new ApiError('payload_too_many');
  return list.map(orderIdOf);
}

export function scoringRoutes(deps: TradingDeps): RouteDef[] {
  return [
    {
      method: 'GET', path: '/order-scoring', surface: 'clob', engineState: true, summary: "Whether one of the caller's orders scores for liquidity rewards now",
      query: { type: 'object', properties: { order_id: orderId() }, required: ['order_id'] },
      guard: (r) => void requireReader(r, deps), response: SCORING, errors: ERRORS,
      handler: (req: ApiRequest) => {
        const caller = requireReader(req, deps);
        return ok({ scoring: scoring(deps, caller.account, orderIdOf(req.query.order_id)) });
      },
    },
    {
      method: 'POST', path: '/orders-scoring', surface: 'clob', engineState: true, summary: "Whether each of the caller's orders scores for liquidity rewards now",
      body: BODY, guard: (r) => void requireReader(r, deps), response: SCORING_MAP, errors: [...ERRORS, 'invalid_payload', 'payload_too_many'],
      handler: (req: ApiRequest) => {
        const caller = requireReader(req, deps);
        const out: Record<string, boolean> = {};
        for (const id of idsOf(req.body)) out[id] = scoring(deps, caller.account, id);
        return ok(out);
      },
    },
  ];
}
