// Whole pages of GET /data/orders as sent, for the poll that asks again for a page nothing has changed: a
// trading front end asks for its open orders every few seconds, and most of those polls find them as they
// were. A kept page is the exact bytes liveReads.ts made for it.
//
// Contract:
// - One page per account (the last it asked for, by its query), made from memory at one log position.
// - A page holds while no order of its account has changed (LiveState drops the account's page on every
//   change of one of its orders: placement, fill, cancel, expiry, restore) and the metadata source's
//   generation is the one it was made under (the outcome labels come from there). A page made while a record
//   was applied in between is not kept (liveReads.ts checks the position).
// - At most maxBytes of pages are held; the page used longest ago leaves first.

interface Page {
  readonly key: string;
  readonly generation: number;
  readonly bytes: Buffer;
}

/** Default bound of the pages held: 16 MiB, ~300 pages of 100 open orders, thousands of small ones. */
export const DEFAULT_ORDER_PAGE_BYTES = 16 * 1024 * 1024;

export class OrderPageCache {
  /** By account, the page used longest ago first (a hit moves its page to the end). */
  private readonly pages = new Map<string, Page>();
  private held = 0;

  constructor(readonly maxBytes: number = DEFAULT_ORDER_PAGE_BYTES) {}

  /** Bytes of pages held. */
  get bytes(): number {
    return this.held;
  }

  get size(): number {
    return this.pages.size;
  }

  /** The account's page for `key`, if it holds under `generation`. */
  get(account: string, key: string, generation: number): Buffer | undefined {
    const page = this.pages.get(account);
    if (page === undefined || page.key !== key || page.generation !== generation) return undefined;
    this.pages.delete(account);
    this.pages.set(account, page);
    return page.bytes;
  }

  keep(account: string, key: string, generation: number, bytes: Buffer): void {
    this.drop(account);
    if (bytes.length > this.maxBytes) return;
    this.pages.set(account, { key, generation, bytes });
    this.held += bytes.length;
    for (const oldest of this.pages.keys()) {
      if (this.held <= this.maxBytes) break;
      this.drop(oldest);
    }
  }

  /** Forgets the account's page (one of its orders changed). */
  drop(account: string): void {
    const page = this.pages.get(account);
    if (page === undefined) return;
    this.pages.delete(account);
    this.held -= page.bytes.length;
  }
}
