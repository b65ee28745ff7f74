// API credentials are derived, never stored: HMAC-SHA256 under the server's master secret over
// domain-separated inputs, so they need no table of secrets, survive restarts, and every process holding
// the master secret agrees on them. The event log records only (address, nonce) → apiKey.
//   apiKey     = UUID v4 shape of HMAC(master, "pmx/api-key/v1\0" ‖ lower-case address ‖ "\0" ‖ nonce)
//   secret     = base64url with `=` padding (44 chars) of HMAC(master, "pmx/api-secret/v1\0" ‖ apiKey)
//   passphrase = hex (64 chars) of HMAC(master, "pmx/api-passphrase/v1\0" ‖ apiKey)
// The same (address, nonce) always gives the same key: "create" and "derive" answer alike, and a deleted
// key's slot must never be reopened (the engine refuses it), or its old secret would come back.
// Builder API keys are random UUIDs made when created (POST /auth/builder-api-key), and their secret and
// passphrase are derived the same way under labels of their own, so a builder key's secret is never an L2
// key's secret even for equal UUIDs:
//   secret     = base64url of HMAC(master, "pmx/builder-secret/v1\0" ‖ key)
//   passphrase = hex of HMAC(master, "pmx/builder-passphrase/v1\0" ‖ key)

import { createHmac } from 'node:crypto';

export interface ApiCredentials {
  readonly apiKey: string;
  readonly secret: string;
  readonly passphrase: string;
}

function mac(master: Uint8Array, label: string, input: string): Buffer {
  return createHmac('sha256', master).update(`${label}\0${input}`, 'utf8').digest();
}

/** The key of (address, nonce); the address in any case, the nonce as a uint256. */
export function deriveApiKey(master: Uint8Array, address: string, nonce: bigint): string {
  const b = mac(master, 'pmx/api-key/v1', `${address.toLowerCase()}\0${nonce.toString()}`);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40; // version 4
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  const hex = b.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** The secret and passphrase of a key. */
export function deriveSecrets(master: Uint8Array, apiKey: string): { secret: string; passphrase: string } {
  const secret = mac(master, 'pmx/api-secret/v1', apiKey).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
  const passphrase = mac(master, 'pmx/api-passphrase/v1', apiKey).toString('hex');
  return { secret, passphrase };
}

/** The secret and passphrase of a builder API key (its own labels: never an L2 key's secrets). */
export function deriveBuilderSecrets(master: Uint8Array, key: string): { secret: string; passphrase: string } {
  const secret = mac(master, 'pmx/builder-secret/v1', key).toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
  const passphrase = mac(master, 'pmx/builder-passphrase/v1', key).toString('hex');
  return { secret, passphrase };
}

/** Everything the create/derive endpoints answer with (`{apiKey, secret, passphrase}`). */
export function deriveCredentials(master: Uint8Array, address: string, nonce: bigint): ApiCredentials {
  const apiKey = deriveApiKey(master, address, nonce);
  return { apiKey, ...deriveSecrets(master, apiKey) };
}
