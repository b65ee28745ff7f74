// Split, merge and redeem of the caller's own positions (L2), through the engine's Split / Merge / Redeem
// commands (engine/ledgerCommands.ts), so each is in the log before it is answered:
//
// - POST /split  {market: <condition id>, amount: "<base units>"}: collateral into one of each outcome token.
// - POST /merge  {market, amount}: one of each outcome token back into collateral.
// - POST /redeem {market}: after resolution, every token of the market held for its payout (1 per winning
//   token, 0 per losing one).
//
// Each carries its signed request (Caller.request): the engine applies one signed request at most once, so a
// captured request sent again is refused with REQUEST_REPLAYED (400) instead of splitting, merging or
// redeeming twice; two identical operations need two signatures (the SDKs sign each call anew, and a new
// second or body gives a new signature).
//
// The body is checked after authentication (a request that fails authentication is refused before its body
// is looked at: the routes' guard), against SPLIT_BODY / REDEEM_BODY, which state every rule below. `amount` is a whole number of base units (6 decimals), as a decimal string
// (a JSON integer is accepted too). The answer is `{success: true, market, amount | payout, balance, tokens}`:
// the caller's free collateral and free balance of each of the market's tokens (base units) as the engine
// holds them when the reply leaves; a refusal is the engine's message with its status (refusalOf).

import { ApiError, badRequest } from '../http/apiErrors.js';
import { ok, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { bool, obj, str } from '../schemas/common.js';
import { anchored, answering, conditionId, positiveDigitsAtMost } from '../schemas/formats.js';
import { MAX_BALANCE } from '../../engine/index.js';
import { conditionIdOf } from '../clob/clobInputs.js';
import { requireL2, type Caller } from './authenticate.js';
import { refusalOf } from './engineReplies.js';
import { jsonBody } from './jsonBody.js';
import type { TradingDeps } from './tradingDeps.js';
import { durableState } from '../../host/commandGateway.js';

const ANSWER = obj(
  {
    success: bool(),
    market: str('Condition id.'),
    amount: str('Base units split or merged.'),
    payout: str('Collateral paid out by a redeem (base units).'),
    balance: str("The caller's free collateral (base units)."),
    tokens: { type: 'object', additionalProperties: { type: 'string' }, description: "Token id → the caller's free balance (base units)." },
  },
  { optional: ['amount', 'payout'] },
);

const ERRORS = ['invalid_payload', 'invalid_market', 'bad_request', 'engine_rejected', 'engine_rejected_not_found', 'unauthorized', 'readonly_key_refused', 'rate_limited', 'unavailable'] as const;

const AMOUNT_RULE = { code: 'bad_request', detail: 'amount: must be a positive whole number of base units (6 decimals) as a decimal string' } as const;
const market = (): JsonSchema => conditionId('The market: its condition id (0x + 64 hex digits).');
/** POST /split and /merge. */
const SPLIT_BODY: JsonSchema = answering(
  {
    type: 'object',
    properties: {
      market: market(),
      amount: answering(
        { anyOf: [{ type: 'string', pattern: anchored(positiveDigitsAtMost(BigInt(MAX_BALANCE), 16)) }, { type: 'integer', minimum: 1, maximum: MAX_BALANCE }], description: `Base units (6 decimals), 1 to ${MAX_BALANCE}: a decimal string of at most 16 digits, or a JSON integer.` },
        AMOUNT_RULE,
      ),
    },
    required: ['market', 'amount'],
  },
  'invalid_payload',
);
/** POST /redeem. */
const REDEEM_BODY: JsonSchema = answering({ type: 'object', properties: { market: market() }, required: ['market'] }, 'invalid_payload');

interface FullSetBody {
  readonly conditionId: string;
  readonly amount?: number;
}

function bodyOf(raw: string, withAmount: boolean): FullSetBody {
  const body = jsonBody(raw, () => new ApiError('invalid_payload'));
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('invalid_payload');
  const b = body as Readonly<Record<string, unknown>>;
  const market = conditionIdOf(b.market);
  if (!withAmount) return { conditionId: market };
  const a = b.amount;
  const text = typeof a === 'number' && Number.isSafeInteger(a) ? String(a) : a;
  if (typeof text !== 'string' || !/^\d{1,16}$/.test(text) || Number(text) <= 0 || Number(text) > MAX_BALANCE) {
    throw badRequest('amount: must be a positive whole number of base units (6 decimals) as a decimal string');
  }
  return { conditionId: market, amount: Number(text) };
}

/** The engine's spelling of a condition id (listed ids are lower-case; a mixed-case one is tried as given too). */
function engineConditionId(deps: TradingDeps, conditionId: string): string {
  return deps.host.engine.market(conditionId)?.conditionId ?? conditionId.toLowerCase();
}

function balancesAfter(deps: TradingDeps, caller: Caller, conditionId: string): { balance: string; tokens: Record<string, string> } {
  const balances = deps.host.engine.balances(caller.account);
  const market = deps.host.engine.market(conditionId);
  const tokens: Record<string, string> = {};
  for (const tokenId of market?.tokenIds ?? []) tokens[tokenId] = String(balances?.tokens.get(tokenId)?.free ?? 0);
  return { balance: String(balances?.free ?? 0), tokens };
}

export function fullSetRoutes(deps: TradingDeps): RouteDef[] {
  const route = (kind: 'Split' | 'Merge' | 'Redeem', path: string, summary: string): RouteDef => ({
    method: 'POST', path, surface: 'clob', summary, response: ANSWER, errors: ERRORS,
    guard: (r) => void requireL2(r, deps), body: kind === 'Redeem' ? REDEEM_BODY : SPLIT_BODY,
    handler: async (req) => {
      const caller = requireL2(req, deps);
      const body = bodyOf(req.rawBody, kind !== 'Redeem');
      const conditionId = engineConditionId(deps, body.conditionId);
      const events = await deps.host.submit(
        kind === 'Redeem'
          ? { type: kind, account: caller.account, conditionId, request: caller.request }
          : { type: kind, account: caller.account, conditionId, amount: body.amount ?? 0, request: caller.request },
      );
      const refusal = refusalOf(events);
      if (refusal !== undefined) throw refusal;
      // The balances answered are read at a durable state: a later batch may be in flight by now.
      await durableState(deps.host);
      const redeemed = events.find((e) => e.type === 'PositionRedeemed');
      const result = kind === 'Redeem' ? { payout: String(redeemed?.type === 'PositionRedeemed' ? redeemed.payout : 0) } : { amount: String(body.amount) };
      return ok({ success: true, market: conditionId, ...result, ...balancesAfter(deps, caller, conditionId) });
    },
  });
  return [
    route('Split', '/split', 'Split collateral into one of each outcome token of a market. Body {market: <condition id>, amount: "<base units>"}'),
    route('Merge', '/merge', 'Merge one of each outcome token back into collateral. Body {market: <condition id>, amount: "<base units>"}'),
    route('Redeem', '/redeem', "Redeem the caller's tokens of a resolved market for their payout. Body {market: <condition id>}"),
  ];
}
