// Who owns which read-only and builder API key. Like ApiKeyTable, ownership only: a read-only key is a bearer
// key with no secret, and a builder key's secret and passphrase are derived outside the engine from the
// server's master secret (auth/credentials.ts), so neither the log nor a snapshot ever holds a secret.
//
// Keys are random UUIDs made by the API, not derived from anything the caller chooses, so a revoked key
// cannot come back and needs no tombstone: revoking forgets it. What an address holds is bounded
// (MAX_ACCESS_KEYS live keys of each kind), so the table is bounded by the number of addresses.

export type AccessKeyKind = 'readonly' | 'builder';

export const ACCESS_KEY_KINDS: readonly AccessKeyKind[] = ['readonly', 'builder'];

/** Most live keys of one kind an address may hold (a create beyond it is refused). */
export const MAX_ACCESS_KEYS = 10;

export interface AccessKeyOwner {
  readonly kind: AccessKeyKind;
  /** Lower-case `0x` + 40 hex. */
  readonly address: string;
  /** Engine time of the creation (ms). */
  readonly createdAt: number;
}

/** [key, kind, address, createdAt]: a live key as the snapshot carries it. */
export type AccessKeyEntry = readonly [string, AccessKeyKind, string, number];

function holderOf(kind: AccessKeyKind, address: string): string {
  return `${kind}|${address}`;
}

export class AccessKeyTable {
  /** Live keys: key → owner, in creation order. */
  readonly live = new Map<string, AccessKeyOwner>();
  /** Derived index: (kind, address) → its live keys, in creation order. */
  private readonly byHolder = new Map<string, Set<string>>();

  get size(): number {
    return this.live.size;
  }

  /** The live keys of one kind of an address, oldest first. */
  keysOf(kind: AccessKeyKind, address: string): string[] {
    return [...(this.byHolder.get(holderOf(kind, address)) ?? [])];
  }

  /** How many live keys of one kind an address holds. */
  count(kind: AccessKeyKind, address: string): number {
    return this.byHolder.get(holderOf(kind, address))?.size ?? 0;
  }

  add(key: string, owner: AccessKeyOwner): void {
    this.live.set(key, owner);
    const holder = holderOf(owner.kind, owner.address);
    let keys = this.byHolder.get(holder);
    if (keys === undefined) this.byHolder.set(holder, (keys = new Set()));
    keys.add(key);
  }

  remove(key: string): void {
    const owner = this.live.get(key);
    if (owner === undefined) return;
    this.live.delete(key);
    const holder = holderOf(owner.kind, owner.address);
    const keys = this.byHolder.get(holder);
    keys?.delete(key);
    if (keys !== undefined && keys.size === 0) this.byHolder.delete(holder);
  }

  /** Every live key, in creation order (the order a restore must add them in). */
  entries(): AccessKeyEntry[] {
    return [...this.live].map(([key, o]) => [key, o.kind, o.address, o.createdAt] as const);
  }

  /** Why the derived index disagrees with the live map, for checkInvariants(); empty when sound. */
  problems(): string[] {
    const out: string[] = [];
    for (const [key, owner] of this.live) {
      if (this.byHolder.get(holderOf(owner.kind, owner.address))?.has(key) !== true) out.push(`${owner.kind} key ${key}: missing from its address's keys`);
    }
    let indexed = 0;
    for (const [holder, keys] of this.byHolder) {
      indexed += keys.size;
      if (keys.size > MAX_ACCESS_KEYS) out.push(`access keys: ${holder} holds ${keys.size} live keys (at most ${MAX_ACCESS_KEYS})`);
    }
    if (indexed !== this.live.size) out.push(`access keys: ${indexed} indexed by address, ${this.live.size} live`);
    return out;
  }
}
