// API key ownership: create the key of an (address, nonce) slot, delete it. The key itself is computed
// outside the engine (auth/credentials.ts) and arrives on the command; the engine checks shapes, keeps every
// slot to one key for ever, and emits the fact. Refusals:
//   CreateApiKey: API_KEY_EXISTS when the slot already has a key, live or deleted (a deleted slot never
//                 reopens: its key would be derived again, with the same secret), or when the key is known.
//   DeleteApiKey: API_KEY_NOT_FOUND when the key is not a live key of that address (unknown, deleted, or
//                 another address's: the answer does not tell these apart).
// Malformed fields are INVALID_COMMAND.

import type { CreateApiKey, DeleteApiKey } from './commands.js';
import type { EngineState } from './state.js';

const ADDRESS = /^0x[0-9a-f]{40}$/;
const NONCE = /^(0|[1-9][0-9]{0,77})$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UINT256_LIMIT = 2n ** 256n;

/** A lower-case `0x` address: one spelling per account, so one (address, nonce) slot per key. */
export function isApiKeyAddress(value: unknown): value is string {
  return typeof value === 'string' && ADDRESS.test(value);
}

/** A canonical decimal uint256 (the ClobAuth nonce), kept as text because it may exceed 2^53. */
export function isNonce(value: unknown): value is string {
  return typeof value === 'string' && NONCE.test(value) && BigInt(value) < UINT256_LIMIT;
}

export function isApiKey(value: unknown): value is string {
  return typeof value === 'string' && UUID_V4.test(value);
}

function accountOf(cmd: { readonly address?: unknown }): { account: string } {
  return { account: typeof cmd.address === 'string' ? cmd.address : '' };
}

export function createApiKey(state: EngineState, cmd: CreateApiKey): void {
  const where = accountOf(cmd);
  if (!isApiKeyAddress(cmd.address)) return state.reject('CreateApiKey', 'INVALID_COMMAND', where, { detail: 'address must be lower-case 0x + 40 hex' });
  if (!isNonce(cmd.nonce)) return state.reject('CreateApiKey', 'INVALID_COMMAND', where, { detail: 'nonce must be a canonical decimal uint256 string' });
  if (!isApiKey(cmd.apiKey)) return state.reject('CreateApiKey', 'INVALID_COMMAND', where, { detail: 'apiKey must be a lower-case UUID v4' });
  const keys = state.apiKeys;
  if (keys.keyOfSlot(cmd.address, cmd.nonce) !== undefined || keys.known(cmd.apiKey)) return state.reject('CreateApiKey', 'API_KEY_EXISTS', where);
  keys.add(cmd.apiKey, { address: cmd.address, nonce: cmd.nonce });
  state.emit({ type: 'ApiKeyCreated', address: cmd.address, nonce: cmd.nonce, apiKey: cmd.apiKey });
}

export function deleteApiKey(state: EngineState, cmd: DeleteApiKey): void {
  const where = accountOf(cmd);
  if (!isApiKeyAddress(cmd.address)) return state.reject('DeleteApiKey', 'INVALID_COMMAND', where, { detail: 'address must be lower-case 0x + 40 hex' });
  if (typeof cmd.apiKey !== 'string') return state.reject('DeleteApiKey', 'INVALID_COMMAND', where, { detail: 'apiKey is required' });
  const owner = state.apiKeys.live.get(cmd.apiKey);
  if (owner === undefined || owner.address !== cmd.address) return state.reject('DeleteApiKey', 'API_KEY_NOT_FOUND', where);
  state.apiKeys.remove(cmd.apiKey);
  state.emit({ type: 'ApiKeyDeleted', address: owner.address, nonce: owner.nonce, apiKey: cmd.apiKey });
}
