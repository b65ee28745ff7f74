// API keys (upstream-conventions §1.2). The credentials of an (address, nonce) are derived from the server's
// master secret (auth/credentials.ts); the log records only which address owns which key, so keys survive
// restarts and no secret is ever written down.
//
// - POST /auth/api-key (L1): creates the key of the signed (address, nonce) through the log. A slot that
//   already has a key, live or deleted, answers 400 `Could not create api key` (the SDK then derives).
// - GET /auth/derive-api-key (L1): the live key of the slot; a free slot is created first (so derive alone
//   signs a wallet in, as clients expect); a deleted one answers 400 `Could not derive api key!`.
// - GET /auth/api-keys (L2): `{apiKeys: [uuid, ...]}`, the address's live keys, oldest first (never secrets).
// - DELETE /auth/api-key (L2): retires the calling key for good; answers the text `OK`.
// - GET /auth/ban-status/closed-only (L2 or a read-only key): `{closed_only: false}` (no closed-only mode exists here).
// Read-only and builder keys: accessKeyRoutes.ts.

import type { ApiCredentials } from '../../auth/index.js';
import { ApiError } from '../http/apiErrors.js';
import { ok, type ApiRequest, type RouteDef } from '../http/apiTypes.js';
import { requireL1, requireL2, requireReader } from './authenticate.js';
import { refusalOf } from './engineReplies.js';
import type { TradingDeps } from './tradingDeps.js';

const credentialsSchema = {
  type: 'object',
  properties: { apiKey: { type: 'string' }, secret: { type: 'string' }, passphrase: { type: 'string' } },
  required: ['apiKey', 'secret', 'passphrase'],
} as const;

const AUTH_ERRORS = ['unauthorized', 'rate_limited', 'unavailable'] as const;

async function createSlot(deps: TradingDeps, address: string, nonce: string, credentials: ApiCredentials): Promise<'created' | 'taken'> {
  const events = await deps.host.submit({ type: 'CreateApiKey', address: address.toLowerCase(), nonce, apiKey: credentials.apiKey });
  if (events.some((e) => e.type === 'ApiKeyCreated')) return 'created';
  const refusal = refusalOf(events);
  if (refusal !== undefined && refusal.message === 'Could not create api key') return 'taken';
  throw refusal ?? new Error('CreateApiKey produced neither ApiKeyCreated nor a refusal');
}

export function apiKeyRoutes(deps: TradingDeps): RouteDef[] {
  const create = async (req: ApiRequest<unknown, unknown>) => {
    const who = requireL1(req, deps);
    const slot = deps.registry.slot(who.address, BigInt(who.nonce));
    if (slot.state !== 'free' || (await createSlot(deps, who.address, who.nonce, slot.credentials)) === 'taken') throw new ApiError('api_key_create_failed');
    return ok(slot.credentials);
  };

  const derive = async (req: ApiRequest<unknown, unknown>) => {
    const who = requireL1(req, deps);
    const slot = deps.registry.slot(who.address, BigInt(who.nonce));
    if (slot.state === 'closed') throw new ApiError('api_key_derive_failed');
    if (slot.state === 'free') await createSlot(deps, who.address, who.nonce, slot.credentials);
    // A concurrent create of the same slot is fine: the key is the same derivation.
    if (deps.registry.slot(who.address, BigInt(who.nonce)).state !== 'live') throw new ApiError('api_key_derive_failed');
    return ok(slot.credentials);
  };

  return [
    {
      method: 'POST', path: '/auth/api-key', surface: 'clob', summary: 'Create the API key of the L1-signed (address, nonce)',
      response: credentialsSchema, errors: ['api_key_create_failed', ...AUTH_ERRORS], handler: create,
    },
    {
      method: 'GET', path: '/auth/derive-api-key', surface: 'clob', summary: 'The API key of the L1-signed (address, nonce); created when new',
      response: credentialsSchema, errors: ['api_key_derive_failed', ...AUTH_ERRORS], handler: derive,
    },
    {
      method: 'GET', path: '/auth/api-keys', surface: 'clob', summary: "The caller's live API keys",
      response: { type: 'object', properties: { apiKeys: { type: 'array', items: { type: 'string' } } }, required: ['apiKeys'] },
      errors: [...AUTH_ERRORS, 'readonly_key_refused'],
      handler: (req) => ok({ apiKeys: deps.registry.keysOf(requireL2(req, deps).account) }),
    },
    {
      method: 'DELETE', path: '/auth/api-key', surface: 'clob', summary: 'Delete the calling API key for good',
      response: { type: 'string' }, errors: ['engine_rejected_not_found', 'readonly_key_refused', ...AUTH_ERRORS],
      handler: async (req) => {
        const caller = requireL2(req, deps);
        const refusal = refusalOf(await deps.host.submit({ type: 'DeleteApiKey', apiKey: caller.apiKey, address: caller.account }));
        if (refusal !== undefined) throw refusal;
        return ok('OK');
      },
    },
    {
      method: 'GET', path: '/auth/ban-status/closed-only', surface: 'clob', summary: 'Whether the caller is in closed-only mode (never, here)',
      response: { type: 'object', properties: { closed_only: { type: 'boolean' } }, required: ['closed_only'] },
      errors: AUTH_ERRORS,
      handler: (req) => {
        requireReader(req, deps);
        return ok({ closed_only: false });
      },
    },
  ];
}
