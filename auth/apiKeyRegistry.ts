// API key lookups for the HTTP layer, over the engine's ownership table (Engine satisfies ApiKeySource) and
// the master secret. A key's secret and passphrase are derived once and kept in memory (the master secret is
// in memory anyway); a lookup answers only for keys the engine says are live, so a deleted key stops working
// at once. Addresses go in in any case; the engine keys them in lower case; they come out checksummed.
// Read-only and builder keys (engine/accessKeyTable.ts) are looked up the same way: only while the engine
// holds them live, a builder key's secrets derived from the master secret under their own labels.

import { deriveBuilderSecrets, deriveCredentials, deriveSecrets, type ApiCredentials } from './credentials.js';
import { checksumAddress } from './keccak.js';
import type { L2Credentials } from './l2Hmac.js';

/** What the registry reads of the engine. */
export interface ApiKeySource {
  apiKey(apiKey: string): { readonly address: string; readonly nonce: string } | undefined;
  apiKeysOf(address: string): string[];
  apiKeyOfSlot(address: string, nonce: string): { apiKey: string; live: boolean } | undefined;
  accessKey(key: string): { readonly kind: AccessKeyKind; readonly address: string; readonly createdAt: number } | undefined;
  accessKeysOf(kind: AccessKeyKind, address: string): { key: string; createdAt: number }[];
}

export type AccessKeyKind = 'readonly' | 'builder';

/** A live builder key with its owner (lower-case) and derived secrets: what verifyBuilderHeaders needs. */
export interface BuilderKeyInfo extends L2Credentials {
  readonly key: string;
}

export interface ApiKeyInfo extends L2Credentials {
  readonly apiKey: string;
  /** Checksummed. */
  readonly address: string;
  readonly nonce: string;
}

/** Most keys whose lookups are kept (an entry is only ever used after the engine says its key is live). */
const CACHE_SIZE = 100_000;

export class ApiKeyRegistry {
  /**
   * What a lookup answers, by API key: a key's owner never changes (a deleted key never comes back), so its
   * checksummed address and derived secrets are computed once instead of on every request.
   */
  private readonly known = new Map<string, ApiKeyInfo>();

  constructor(
    private readonly source: ApiKeySource,
    private readonly master: Uint8Array,
  ) {}

  /** A live key with its owner and secrets; undefined for unknown and deleted keys. Fits verifyL2Headers. */
  lookup(apiKey: string): ApiKeyInfo | undefined {
    const owner = this.source.apiKey(apiKey);
    if (owner === undefined) return undefined;
    let info = this.known.get(apiKey);
    if (info === undefined) {
      if (this.known.size >= CACHE_SIZE) this.known.clear();
      info = { apiKey, address: checksumAddress(owner.address), nonce: owner.nonce, ...deriveSecrets(this.master, apiKey) };
      this.known.set(apiKey, info);
    }
    return info;
  }

  /** The owner (lower-case) of a live read-only key; undefined for unknown, revoked and builder keys. */
  readonlyOwner(key: string): string | undefined {
    const owner = this.source.accessKey(key);
    return owner?.kind === 'readonly' ? owner.address : undefined;
  }

  /** A live builder key with its owner and secrets; undefined otherwise. Fits verifyBuilderHeaders. */
  builderLookup(key: string): BuilderKeyInfo | undefined {
    const owner = this.source.accessKey(key);
    if (owner?.kind !== 'builder') return undefined;
    return { key, address: owner.address, ...deriveBuilderSecrets(this.master, key) };
  }

  /** The secret and passphrase of a builder key (what POST /auth/builder-api-key answers with). */
  builderSecrets(key: string): { secret: string; passphrase: string } {
    return deriveBuilderSecrets(this.master, key);
  }

  /** The live keys of one kind of an address (any case), oldest first, with their creation times (ms). */
  accessKeysOf(kind: AccessKeyKind, address: string): { key: string; createdAt: number }[] {
    return this.source.accessKeysOf(kind, address.toLowerCase());
  }

  /** The live keys of an address (any case), oldest first: GET /auth/api-keys. */
  keysOf(address: string): string[] {
    return this.source.apiKeysOf(address.toLowerCase());
  }

  /**
   * The credentials of (address, nonce) for POST /auth/api-key and GET /auth/derive-api-key: `apiKey` is what
   * CreateApiKey must carry (with `address.toLowerCase()` and `nonce.toString()`); `state` says whether the
   * slot is free (create it), live (derive answers with these credentials) or closed (its key was deleted,
   * or was derived under another master secret: both endpoints refuse).
   */
  slot(address: string, nonce: bigint): { credentials: ApiCredentials; state: 'free' | 'live' | 'closed' } {
    const lower = address.toLowerCase();
    const credentials = deriveCredentials(this.master, lower, nonce);
    const held = this.source.apiKeyOfSlot(lower, nonce.toString());
    const state = held === undefined ? 'free' : held.live && held.apiKey === credentials.apiKey ? 'live' : 'closed';
    return { credentials, state };
  }
}
