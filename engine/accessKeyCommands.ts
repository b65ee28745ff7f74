// Read-only and builder API keys (see accessKeyTable.ts): create one for an address, revoke one. The key is a
// random UUID made by the API and arrives on the command; the engine checks shapes, bounds what an address
// holds, and emits the fact. Refusals:
//   CreateAccessKey: ACCESS_KEY_LIMIT when the address already holds MAX_ACCESS_KEYS live keys of that kind;
//                    ACCESS_KEY_EXISTS when the key is already a live key (of either kind) or an L2 API key.
//   RevokeAccessKey: ACCESS_KEY_NOT_FOUND when the key is not a live key of that kind and address (unknown,
//                    revoked, another kind or another address's: the answer does not tell these apart).
// Malformed fields are INVALID_COMMAND.

import type { CreateAccessKey, RevokeAccessKey } from './commands.js';
import { ACCESS_KEY_KINDS, MAX_ACCESS_KEYS, type AccessKeyKind } from './accessKeyTable.js';
import { isApiKey } from './apiKeyCommands.js';
import { isAddress } from './commandChecks.js';
import type { EngineState } from './state.js';

export function isAccessKeyKind(value: unknown): value is AccessKeyKind {
  return ACCESS_KEY_KINDS.includes(value as AccessKeyKind);
}

/** The problem with a command's fields, or undefined when they are well formed. */
function fieldProblem(cmd: CreateAccessKey | RevokeAccessKey): string | undefined {
  if (!isAccessKeyKind(cmd.kind)) return "kind must be 'readonly' or 'builder'";
  if (!isAddress(cmd.address)) return 'address must be lower-case 0x + 40 hex';
  if (!isApiKey(cmd.key)) return 'key must be a lower-case UUID v4';
  return undefined;
}

function whereOf(cmd: { readonly address?: unknown }): { account: string } {
  return { account: typeof cmd.address === 'string' ? cmd.address : '' };
}

export function createAccessKey(state: EngineState, cmd: CreateAccessKey): void {
  const where = whereOf(cmd);
  const problem = fieldProblem(cmd);
  if (problem !== undefined) return state.reject('CreateAccessKey', 'INVALID_COMMAND', where, { detail: problem });
  const keys = state.accessKeys;
  if (keys.live.has(cmd.key) || state.apiKeys.known(cmd.key)) return state.reject('CreateAccessKey', 'ACCESS_KEY_EXISTS', where);
  if (keys.count(cmd.kind, cmd.address) >= MAX_ACCESS_KEYS) return state.reject('CreateAccessKey', 'ACCESS_KEY_LIMIT', where, { kind: cmd.kind, max: MAX_ACCESS_KEYS });
  keys.add(cmd.key, { kind: cmd.kind, address: cmd.address, createdAt: state.now });
  state.emit({ type: 'AccessKeyCreated', kind: cmd.kind, address: cmd.address, key: cmd.key });
}

export function revokeAccessKey(state: EngineState, cmd: RevokeAccessKey): void {
  const where = whereOf(cmd);
  const problem = fieldProblem(cmd);
  if (problem !== undefined) return state.reject('RevokeAccessKey', 'INVALID_COMMAND', where, { detail: problem });
  const owner = state.accessKeys.live.get(cmd.key);
  if (owner === undefined || owner.kind !== cmd.kind || owner.address !== cmd.address) return state.reject('RevokeAccessKey', 'ACCESS_KEY_NOT_FOUND', where, { kind: cmd.kind });
  state.accessKeys.remove(cmd.key);
  state.emit({ type: 'AccessKeyRevoked', kind: cmd.kind, address: cmd.address, key: cmd.key });
}
