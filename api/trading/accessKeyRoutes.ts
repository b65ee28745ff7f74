// Read-only and builder API keys (the official clients' createReadonlyApiKey, getReadonlyApiKeys,
// deleteReadonlyApiKey, validateReadonlyApiKey, createBuilderApiKey, getBuilderApiKeys, revokeBuilderApiKey).
// Keys are random UUID v4 made here and recorded through the log (CreateAccessKey / RevokeAccessKey), so they
// survive restarts and reach every API node's replica; a builder key's secret and passphrase are derived from
// the master secret (auth/credentials.ts), never written down. Managing keys needs L2 headers: a read-only
// key is refused on all of these (authenticate.ts), listings included, so that it can never learn or mint
// another credential.
//
// - POST /auth/readonly-api-key (L2): `{apiKey}`, a new read-only key of the caller's address.
// - GET /auth/readonly-api-keys (L2): `[key, ...]`, the address's live read-only keys, oldest first.
// - DELETE /auth/readonly-api-key (L2) `{"key": ...}`: `true`; the key stops working at once.
// - GET /auth/validate-readonly-api-key?address&key (none): `{valid}`, whether key is a live read-only key
//   of address.
// - POST /auth/builder-api-key (L2): `{key, secret, passphrase, builderCode}`.
// - GET /auth/builder-api-key (L2): `[{key, createdAt, revokedAt: null, builderCode}]`, live keys only
//   (a revoked key is forgotten).
// - DELETE /auth/builder-api-key (L2, optionally with builder headers): with valid builder headers of one of
//   the caller's keys, revokes that key (upstream: "the builder API key used to authenticate the current
//   request"); with L2 headers only (what the V2 client sends), revokes every live builder key of the caller.
//   Answers the text `OK`.
// At most MAX_ACCESS_KEYS live keys of each kind per address (the engine refuses more: 400). A create is applied
// at most once per signed request: sent again unchanged it is `request replayed: …` (400), as split is.

import { randomUUID } from 'node:crypto';
import { MAX_ACCESS_KEYS, type AccessKeyKind, type EngineEvent } from '../../engine/index.js';
import { ApiError, badRequest } from '../http/apiErrors.js';
import { ok, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { arr, bool, obj, str } from '../schemas/common.js';
import { ADDRESS_PATTERN, answering } from '../schemas/formats.js';
import { given } from './accountInputs.js';
import { builderOf, requireL2, type Caller } from './authenticate.js';
import { builderCodeOfAddress } from './builderCodes.js';
import { refusalOf } from './engineReplies.js';
import { jsonBody } from './jsonBody.js';
import type { TradingDeps } from './tradingDeps.js';

const AUTH_ERRORS = ['unauthorized', 'readonly_key_refused', 'rate_limited', 'unavailable'] as const;

const BUILDER_CODE = str('bytes32 builder code of the key owner (its address left-padded with zeros): orders attributed to this builder carry it, and GET /builder/trades?builder_code= finds their trades.');

function failedOn(events: readonly EngineEvent[], created: EngineEvent['type']): void {
  if (events.some((e) => e.type === created)) return;
  throw refusalOf(events) ?? new Error(`the engine answered neither ${created} nor a refusal`);
}

const KEY_REQUIRED = { code: 'bad_request', detail: 'key: the read-only API key to delete is required' } as const;
/** DELETE /auth/readonly-api-key (checked after authentication). */
const DELETE_BODY: JsonSchema = answering(
  { type: 'object', properties: { key: answering({ type: 'string', minLength: 1, maxLength: 100, description: 'The read-only API key.' }, KEY_REQUIRED) }, required: ['key'] },
  { code: 'bad_request', detail: 'the body must be {"key": "<read-only API key>"}' },
);
const BOTH_REQUIRED = { code: 'bad_request', detail: 'address and key are required' } as const;
/** GET /auth/validate-readonly-api-key. */
const VALIDATE_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    address: answering({ type: 'string', pattern: ADDRESS_PATTERN, maxLength: 42, description: "The key owner's address: 0x + 40 hex digits, any case." }, BOTH_REQUIRED, { pattern: { code: 'bad_request', detail: 'address: must be an address (0x + 40 hex digits)' } }),
    key: answering({ type: 'string', minLength: 1, maxLength: 100, description: 'The read-only API key.' }, BOTH_REQUIRED),
  },
  required: ['address', 'key'],
};

export function accessKeyRoutes(deps: TradingDeps): RouteDef[] {
  /** Stamped with the signed request, so that a replay of it is refused instead of answered with another key. */
  const create = async (kind: AccessKeyKind, caller: Caller): Promise<string> => {
    const key = randomUUID();
    failedOn(await deps.host.submit({ type: 'CreateAccessKey', kind, address: caller.account, key, request: caller.request }), 'AccessKeyCreated');
    return key;
  };
  /** `gone`: a key already revoked (a concurrent request) is fine, not a 404. */
  const revoke = async (kind: AccessKeyKind, address: string, key: string, gone: 'fine' | 'refused' = 'refused'): Promise<void> => {
    const events = await deps.host.submit({ type: 'RevokeAccessKey', kind, address, key });
    if (gone === 'fine' && events.some((e) => e.type === 'CommandRejected' && e.code === 'ACCESS_KEY_NOT_FOUND')) return;
    failedOn(events, 'AccessKeyRevoked');
  };
  const builderItem = (address: string) => (k: { key: string; createdAt: number }) => ({
    key: k.key, createdAt: new Date(k.createdAt).toISOString(), revokedAt: null, builderCode: builderCodeOfAddress(address),
  });

  return [
    {
      method: 'POST', path: '/auth/readonly-api-key', surface: 'clob', summary: `Create a read-only API key of the caller's address (at most ${MAX_ACCESS_KEYS} live)`,
      response: obj({ apiKey: str('The read-only key: send it as POLY_READONLY_API_KEY with POLY_ADDRESS on private reads.') }),
      errors: ['engine_rejected', ...AUTH_ERRORS],
      handler: async (req) => ok({ apiKey: await create('readonly', requireL2(req, deps)) }),
    },
    {
      method: 'GET', path: '/auth/readonly-api-keys', surface: 'clob', summary: "The caller's live read-only API keys, oldest first",
      response: arr(str()), errors: AUTH_ERRORS,
      handler: (req) => ok(deps.registry.accessKeysOf('readonly', requireL2(req, deps).account).map((k) => k.key)),
    },
    {
      method: 'DELETE', path: '/auth/readonly-api-key', surface: 'clob', summary: 'Delete one of the caller\'s read-only API keys. Body {"key": "<read-only key>"}',
      response: bool('true once the key no longer works.'), errors: ['bad_request', 'engine_rejected', 'engine_rejected_not_found', ...AUTH_ERRORS],
      guard: (r) => void requireL2(r, deps), body: DELETE_BODY,
      handler: async (req) => {
        const caller = requireL2(req, deps);
        const body = jsonBody(req.rawBody, () => badRequest('the body must be {"key": "<read-only API key>"}'));
        const key = body !== null && typeof body === 'object' ? (body as { key?: unknown }).key : undefined;
        if (typeof key !== 'string' || key === '') throw badRequest('key: the read-only API key to delete is required');
        await revoke('readonly', caller.account, key.toLowerCase());
        return ok(true);
      },
    },
    {
      method: 'GET', path: '/auth/validate-readonly-api-key', surface: 'clob', summary: 'Whether key is a live read-only API key of address (no authentication)',
      query: VALIDATE_QUERY,
      response: obj({ valid: bool() }), errors: ['bad_request', 'rate_limited'],
      handler: (req) => {
        const address = given(req.query, 'address');
        const key = given(req.query, 'key');
        if (address === undefined || key === undefined) throw badRequest('address and key are required');
        return ok({ valid: deps.registry.readonlyOwner(key) === address.toLowerCase() });
      },
    },
    {
      method: 'POST', path: '/auth/builder-api-key', surface: 'clob', summary: `Create a builder API key of the caller's address (at most ${MAX_ACCESS_KEYS} live), for builder-signing-sdk headers`,
      response: obj({ key: str(), secret: str(), passphrase: str(), builderCode: BUILDER_CODE }),
      errors: ['engine_rejected', ...AUTH_ERRORS],
      handler: async (req) => {
        const caller = requireL2(req, deps);
        const key = await create('builder', caller);
        return ok({ key, ...deps.registry.builderSecrets(key), builderCode: builderCodeOfAddress(caller.account) });
      },
    },
    {
      method: 'GET', path: '/auth/builder-api-key', surface: 'clob', summary: "The caller's live builder API keys, oldest first (never their secrets)",
      response: arr(obj({ key: str(), createdAt: str('ISO 8601.'), revokedAt: { type: ['string', 'null'], description: 'Always null: revoked keys are not listed.' }, builderCode: BUILDER_CODE })),
      errors: AUTH_ERRORS,
      handler: (req) => {
        const caller = requireL2(req, deps);
        return ok(deps.registry.accessKeysOf('builder', caller.account).map(builderItem(caller.account)));
      },
    },
    {
      method: 'DELETE', path: '/auth/builder-api-key', surface: 'clob',
      summary: "Revoke the builder API key of the request's builder headers; with L2 headers only, every builder API key of the caller",
      response: { type: 'string' }, errors: ['engine_rejected_not_found', ...AUTH_ERRORS],
      handler: async (req) => {
        const caller = requireL2(req, deps);
        const builder = builderOf(req, deps);
        if (builder !== undefined && builder.address !== caller.account) {
          throw new ApiError('unauthorized', { detail: 'Unauthorized/Invalid builder api key: the builder API key belongs to another address than the L2 API key' });
        }
        const keys = builder !== undefined ? [builder.key] : deps.registry.accessKeysOf('builder', caller.account).map((k) => k.key);
        await Promise.all(keys.map((key) => revoke('builder', caller.account, key, builder === undefined ? 'fine' : 'refused')));
        return ok('OK');
      },
    },
  ];
}
