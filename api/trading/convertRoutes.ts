// POST /convert (L2): the neg-risk adapter's convertPositions(marketId, indexSet, amount) on the caller's own
// positions, through the engine's ConvertPositions command (engine/negRiskCommands.ts), so it is in the log
// before it is answered.
//
// Body {negRiskMarketId, indexSet, amount}:
// - negRiskMarketId: the event's neg-risk market id (`neg_risk_market_id` of its markets), 0x + 64 hex;
// - indexSet: the questions whose NO tokens are converted, bit i (least significant first) naming question
//   i: a decimal string, a JSON integer, or 0x + hex;
// - amount: base units (6 decimals) of each NO token, as /split takes it.
// Burns `amount` NO of each question named, credits `amount` YES of each other question of the event and
// (k − 1) × `amount` collateral (k questions named). Carries its signed request like /split, so the engine
// applies one signed request at most once (REQUEST_REPLAYED on a copy). The answer is `{success: true,
// negRiskMarketId, indexSet, amount, payout, balance, tokens}`: the caller's free collateral and free balance
// of every token of the event's questions when the reply leaves; a refusal is the engine's message with its
// status (refusalOf).

import { ApiError, badRequest } from '../http/apiErrors.js';
import { ok, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { bool, obj, str } from '../schemas/common.js';
import { anchored, answering, CONDITION_ID_PATTERN, positiveDigitsAtMost } from '../schemas/formats.js';
import { MAX_BALANCE } from '../../engine/index.js';
import { requireL2, type Caller } from './authenticate.js';
import { refusalOf } from './engineReplies.js';
import { jsonBody } from './jsonBody.js';
import type { TradingDeps } from './tradingDeps.js';
import { durableState } from '../../host/commandGateway.js';

const ANSWER = obj({
  success: bool(),
  negRiskMarketId: str('The neg-risk market id of the event.'),
  indexSet: str('The questions converted, as a decimal uint256 (bit i = question i).'),
  amount: str('Base units converted of each NO token named.'),
  payout: str('Collateral received: (k − 1) × amount (base units).'),
  balance: str("The caller's free collateral (base units)."),
  tokens: { type: 'object', additionalProperties: { type: 'string' }, description: "Token id of each of the event's questions → the caller's free balance (base units)." },
});

const ERRORS = ['invalid_payload', 'bad_request', 'engine_rejected', 'engine_rejected_not_found', 'unauthorized', 'readonly_key_refused', 'rate_limited', 'unavailable'] as const;

const MARKET_ID = /^0x[0-9a-fA-F]{64}$/;

/** The body, as bodyOf reads it (the server checks it after authentication: the route's guard). */
const BODY: JsonSchema = answering(
  {
    type: 'object',
    properties: {
      negRiskMarketId: answering({ type: 'string', pattern: CONDITION_ID_PATTERN, maxLength: 66, description: "The event's neg-risk market id: 0x + 64 hex digits." }, { code: 'bad_request', detail: 'negRiskMarketId: must be the neg-risk market id of an event, 0x + 64 hex digits' }),
      indexSet: answering(
        { anyOf: [{ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, { type: 'string', pattern: '^[0-9]{1,78}$' }, { type: 'string', pattern: '^0x[0-9a-fA-F]{1,64}$' }], description: 'The questions converted (bit i = question i): a JSON integer, a decimal string or 0x + hex.' },
        { code: 'bad_request', detail: 'indexSet: must be a non-negative integer (bit i names question i) as a decimal string, a JSON integer or 0x + hex' },
      ),
      amount: answering(
        { anyOf: [{ type: 'string', pattern: anchored(positiveDigitsAtMost(BigInt(MAX_BALANCE), 16)) }, { type: 'integer', minimum: 1, maximum: MAX_BALANCE }], description: `Base units (6 decimals) of each NO token, 1 to ${MAX_BALANCE}: a decimal string of at most 16 digits, or a JSON integer.` },
        { code: 'bad_request', detail: 'amount: must be a positive whole number of base units (6 decimals) as a decimal string' },
      ),
    },
    required: ['negRiskMarketId', 'indexSet', 'amount'],
  },
  'invalid_payload',
);

interface ConvertBody {
  readonly negRiskMarketId: string;
  readonly indexSet: string;
  readonly amount: number;
}

/** An index set as a canonical decimal string: a non-negative JSON integer, a decimal string, or 0x + hex (up to 256 bits). */
export function indexSetOf(value: unknown): string {
  const problem = 'indexSet: must be a non-negative integer (bit i names question i) as a decimal string, a JSON integer or 0x + hex';
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw badRequest(problem);
    return String(value);
  }
  if (typeof value !== 'string') throw badRequest(problem);
  if (/^\d{1,78}$/.test(value)) return BigInt(value).toString();
  if (/^0x[0-9a-fA-F]{1,64}$/.test(value)) return BigInt(value).toString();
  throw badRequest(problem);
}

function bodyOf(raw: string): ConvertBody {
  const body = jsonBody(raw, () => new ApiError('invalid_payload'));
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('invalid_payload');
  const b = body as Readonly<Record<string, unknown>>;
  if (typeof b.negRiskMarketId !== 'string' || !MARKET_ID.test(b.negRiskMarketId)) throw badRequest('negRiskMarketId: must be the neg-risk market id of an event, 0x + 64 hex digits');
  const a = b.amount;
  const text = typeof a === 'number' && Number.isSafeInteger(a) ? String(a) : a;
  if (typeof text !== 'string' || !/^\d{1,16}$/.test(text) || Number(text) <= 0 || Number(text) > MAX_BALANCE) {
    throw badRequest('amount: must be a positive whole number of base units (6 decimals) as a decimal string');
  }
  return { negRiskMarketId: b.negRiskMarketId, indexSet: indexSetOf(b.indexSet), amount: Number(text) };
}

function balancesAfter(deps: TradingDeps, caller: Caller, negRiskMarketId: string): { balance: string; tokens: Record<string, string> } {
  const engine = deps.host.engine;
  const balances = engine.balances(caller.account);
  const tokens: Record<string, string> = {};
  for (const market of engine.negRiskEvent(negRiskMarketId)?.questions ?? []) {
    for (const tokenId of market.tokenIds) tokens[tokenId] = String(balances?.tokens.get(tokenId)?.free ?? 0);
  }
  return { balance: String(balances?.free ?? 0), tokens };
}

export function convertRoutes(deps: TradingDeps): RouteDef[] {
  return [{
    method: 'POST', path: '/convert', surface: 'clob', response: ANSWER, errors: ERRORS,
    guard: (r) => void requireL2(r, deps), body: BODY,
    summary: 'Convert NO positions of a neg-risk event: burns `amount` NO of each question in indexSet, credits `amount` YES of each other question and (k − 1) × amount collateral. Body {negRiskMarketId, indexSet, amount: "<base units>"}',
    handler: async (req) => {
      const caller = requireL2(req, deps);
      const body = bodyOf(req.rawBody);
      // Event ids are listed as the catalog spells them (lower-case upstream); a mixed-case one is tried as given too.
      const engine = deps.host.engine;
      const negRiskMarketId = engine.negRiskEvent(body.negRiskMarketId) === undefined ? body.negRiskMarketId.toLowerCase() : body.negRiskMarketId;
      const events = await deps.host.submit({
        type: 'ConvertPositions', account: caller.account, negRiskMarketId, indexSet: body.indexSet, amount: body.amount, request: caller.request,
      });
      const refusal = refusalOf(events);
      if (refusal !== undefined) throw refusal;
      // The balances answered are read at a durable state: a later batch may be in flight by now.
      await durableState(deps.host);
      const converted = events.find((e) => e.type === 'PositionsConverted');
      const payout = converted?.type === 'PositionsConverted' ? converted.payout : 0;
      return ok({ success: true, negRiskMarketId, indexSet: body.indexSet, amount: String(body.amount), payout: String(payout), ...balancesAfter(deps, caller, negRiskMarketId) });
    },
  }];
}
