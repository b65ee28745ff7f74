// Who owns which API key. The engine records ownership only; secrets are re-derived outside it from a server
// master secret, so snapshots and the log never hold one.
//
// A key is tied to one (address, nonce) slot for ever: keys are derived deterministically from the slot, so a
// slot whose key was deleted must stay closed, or re-creating it would bring the deleted credentials back.
// Deleted keys are therefore kept as tombstones (a few dozen bytes each; deletions are rare, user-driven).

export interface ApiKeyOwner {
  readonly address: string;
  readonly nonce: string;
}

function slotOf(address: string, nonce: string): string {
  return `${address}|${nonce}`;
}

export class ApiKeyTable {
  /** Live keys: apiKey → owner. */
  readonly live = new Map<string, ApiKeyOwner>();
  /** Deleted keys (tombstones): apiKey → former owner. */
  readonly deleted = new Map<string, ApiKeyOwner>();
  /** Derived index over live and deleted keys: (address, nonce) → apiKey. */
  private readonly slots = new Map<string, string>();
  /** Derived index of live keys per address, in creation order. */
  private readonly byAddress = new Map<string, Set<string>>();

  get size(): number {
    return this.live.size + this.deleted.size;
  }

  /** The key of (address, nonce), live or deleted. */
  keyOfSlot(address: string, nonce: string): string | undefined {
    return this.slots.get(slotOf(address, nonce));
  }

  /** True when the key was ever created (live or deleted). */
  known(apiKey: string): boolean {
    return this.live.has(apiKey) || this.deleted.has(apiKey);
  }

  /** The live keys of an address, oldest first. */
  keysOf(address: string): string[] {
    return [...(this.byAddress.get(address) ?? [])];
  }

  add(apiKey: string, owner: ApiKeyOwner): void {
    this.live.set(apiKey, owner);
    this.slots.set(slotOf(owner.address, owner.nonce), apiKey);
    let keys = this.byAddress.get(owner.address);
    if (keys === undefined) this.byAddress.set(owner.address, (keys = new Set()));
    keys.add(apiKey);
  }

  /** Moves a live key to the tombstones; its slot stays taken. */
  remove(apiKey: string): void {
    const owner = this.live.get(apiKey);
    if (owner === undefined) return;
    this.live.delete(apiKey);
    this.deleted.set(apiKey, owner);
    const keys = this.byAddress.get(owner.address);
    keys?.delete(apiKey);
    if (keys !== undefined && keys.size === 0) this.byAddress.delete(owner.address);
  }

  /** Restores a tombstone (snapshot restore only). */
  addDeleted(apiKey: string, owner: ApiKeyOwner): void {
    this.deleted.set(apiKey, owner);
    this.slots.set(slotOf(owner.address, owner.nonce), apiKey);
  }

  /** Why the derived indexes disagree with the two maps, for checkInvariants(); empty when sound. */
  problems(): string[] {
    const out: string[] = [];
    for (const [apiKey, owner] of this.live) {
      if (this.deleted.has(apiKey)) out.push(`api key ${apiKey}: both live and deleted`);
      if (this.slots.get(slotOf(owner.address, owner.nonce)) !== apiKey) out.push(`api key ${apiKey}: its (address, nonce) slot names another key`);
      if (this.byAddress.get(owner.address)?.has(apiKey) !== true) out.push(`api key ${apiKey}: missing from its address's keys`);
    }
    for (const [apiKey, owner] of this.deleted) {
      if (this.slots.get(slotOf(owner.address, owner.nonce)) !== apiKey) out.push(`deleted api key ${apiKey}: its (address, nonce) slot names another key`);
    }
    if (this.slots.size !== this.size) out.push(`api keys: ${this.slots.size} slots for ${this.size} keys`);
    let indexed = 0;
    for (const keys of this.byAddress.values()) indexed += keys.size;
    if (indexed !== this.live.size) out.push(`api keys: ${indexed} indexed by address, ${this.live.size} live`);
    return out;
  }
}
