// GET /balance-allowance and GET /balance-allowance/update (L2; upstream-conventions §2.9, the official
// client's getBalanceAllowance / updateBalanceAllowance), answered live from the engine (no projection).
//
// - `balance`: what the caller can still commit, in base units (6 decimals): free collateral for
//   asset_type=COLLATERAL, the free amount of `token_id` for CONDITIONAL; what open orders reserve is not
//   included. An account or token the engine has never seen holds "0".
// - `allowances`: there is no chain: collateral and tokens never leave the exchange's ledger, so nothing is
//   ever approved or spent by a contract. Both exchange addresses (the verifying contracts of orders, from
//   the configuration) show the largest uint256, so client-side allowance checks pass.
// - `signature_type` (the client always sends it) is checked (0 to 3) and otherwise unused: the balance is
//   the one of the caller's own address.
// - /update has nothing to refresh (the engine's balances are always current); it answers the same object.
//   It changes nothing, so it is a read: both answer L2 headers or a read-only key (authenticate.ts).

import { badRequest } from '../http/apiErrors.js';
import { ok, type ApiRequest, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { obj, str } from '../schemas/common.js';
import { answering, anyCase } from '../schemas/formats.js';
import { tokenId, tokenIdOf } from '../clob/clobInputs.js';
import { given } from './accountInputs.js';
import { requireReader, type Reader } from './authenticate.js';
import type { TradingDeps } from './tradingDeps.js';

/** 2^256 − 1: an allowance that never runs out. */
export const MAX_ALLOWANCE = ((1n << 256n) - 1n).toString();

const ANSWER = obj({
  balance: str('Base units (6 decimals), free of open-order reservations.'),
  allowances: { type: 'object', additionalProperties: { type: 'string' }, description: 'Exchange address → allowance (base units).' },
});

/** The query (checked after authentication): every rule balanceOf applies. */
const QUERY: JsonSchema = {
  type: 'object',
  properties: {
    signature_type: answering({ type: 'string', pattern: '^[0-3]$', maxLength: 1, description: '0 (EOA), 1 (POLY_PROXY), 2 (POLY_GNOSIS_SAFE) or 3 (POLY_1271); accepted and unused.' }, { code: 'bad_request', detail: 'signature_type: must be 0, 1, 2 or 3' }),
    asset_type: answering({ type: 'string', pattern: anyCase(['COLLATERAL', 'CONDITIONAL']), maxLength: 11, description: 'COLLATERAL or CONDITIONAL, any letter case.' }, { code: 'bad_request', detail: 'asset_type: must be COLLATERAL or CONDITIONAL' }),
    token_id: tokenId('Token id (decimal); required for CONDITIONAL.'),
  },
  required: ['asset_type'],
  // CONDITIONAL needs a token id.
  dependentSchemas: {
    asset_type: answering(
      { anyOf: [{ properties: { asset_type: { not: { pattern: anyCase(['CONDITIONAL']) } } } }, { properties: { token_id: { minLength: 1 } }, required: ['token_id'] }] },
      'invalid_token_id',
    ),
  },
};

const ERRORS = ['bad_request', 'invalid_token_id', 'unauthorized', 'rate_limited', 'unavailable'] as const;

function balanceOf(deps: TradingDeps, caller: Reader, q: Readonly<Record<string, unknown>>): number {
  const assetType = given(q, 'asset_type')?.toUpperCase();
  const signatureType = given(q, 'signature_type');
  if (signatureType !== undefined && !/^[0-3]$/.test(signatureType)) throw badRequest('signature_type: must be 0, 1, 2 or 3');
  const balances = deps.host.engine.balances(caller.account);
  if (assetType === 'COLLATERAL') return balances?.free ?? 0;
  if (assetType === 'CONDITIONAL') {
    const tokenId = tokenIdOf(given(q, 'token_id'));
    return balances?.tokens.get(tokenId)?.free ?? 0;
  }
  throw badRequest('asset_type: must be COLLATERAL or CONDITIONAL');
}

export function balanceRoutes(deps: TradingDeps): RouteDef[] {
  const { exchangeAddress, negRiskExchangeAddress } = deps.settings;
  const allowances = { [exchangeAddress]: MAX_ALLOWANCE, [negRiskExchangeAddress]: MAX_ALLOWANCE };
  const handler = (req: ApiRequest) => {
    const caller = requireReader(req, deps);
    return ok({ balance: String(balanceOf(deps, caller, req.query)), allowances });
  };
  return [
    {
      method: 'GET', path: '/balance-allowance', surface: 'clob', engineState: true, summary: "The caller's free collateral or token balance and the exchanges' allowances",
      query: QUERY, response: ANSWER, errors: ERRORS, guard: (r) => void requireReader(r, deps), handler,
    },
    {
      method: 'GET', path: '/balance-allowance/update', surface: 'clob', engineState: true, summary: 'As GET /balance-allowance (balances are always current: nothing to refresh)',
      query: QUERY, response: ANSWER, errors: ERRORS, guard: (r) => void requireReader(r, deps), handler,
    },
  ];
}
