// The recent splits, merges, redemptions, conversions and liquidity rewards of each account, in memory, for GET /activity
// (liveActivity.ts): the `ledger_events` rows of those kinds, as the fill windows (fillWindows.ts) hold the
// `fills` rows. Two bounds: each account's window holds its newest `maxAccountEntries`, and memory holds the
// newest `maxEntries` in all (oldest leave first, from the window that holds them).
//
// Completeness: an account with no window has no such entry unless it is marked as missing some (`dropped`),
// which is kept after its window empties: most accounts never split, merge or redeem, and their activity
// must not go to ClickHouse for want of a window. A model restored from a snapshot older than these windows
// knows nothing of the past (`unknownPast`): every account then counts as missing older entries.

import type { EventsRecord } from '../../log/eventLog.js';

/** Default newest entries kept per account. */
export const DEFAULT_MAX_ACCOUNT_LEDGER = 1_000;
/** Default most entries kept in all. */
export const DEFAULT_MAX_LEDGER = 250_000;

export type LedgerKind = 'split' | 'merge' | 'redeem' | 'convert' | 'reward';
/** The kinds of `ledger_events` that are activity (deposits and withdrawals are not). */
export const ACTIVITY_LEDGER_KINDS: readonly LedgerKind[] = ['split', 'merge', 'redeem', 'convert', 'reward'];

/** One `ledger_events` row of an activity kind, named as there. */
export interface HeldLedgerEntry {
  /** Its event's sequence number: tradeIdFor(seq) is in the fill ids' space, so one order sorts both (log order). */
  readonly seq: number;
  readonly time_ms: number;
  readonly account: string;
  readonly kind: LedgerKind;
  readonly condition_id: string;
  /** Full sets split or merged; tokens burned (redeem); NO tokens given of each question (convert); collateral paid (reward). */
  readonly amount: number;
  /** Collateral paid out (redeem, convert, reward); 0 otherwise. */
  readonly payout: number;
}

/** One account's window: its newest entries, oldest first, at entries[head..]. */
export interface LedgerWindow {
  /** The account, one string shared by its entries. */
  readonly account: string;
  entries: (HeldLedgerEntry | undefined)[];
  head: number;
}

/** A held entry as a tuple (snapshots and restore), in HeldLedgerEntry's order without the id. */
export type LedgerTuple = [seq: number, timeMs: number, account: string, kind: LedgerKind, conditionId: string, amount: number, payout: number];

export class LedgerWindows {
  private readonly windows = new Map<string, LedgerWindow>();
  /** Accounts whose window misses older entries. */
  private readonly dropped = new Set<string>();
  /** Every entry held, in log order: order[head..]. */
  private order: (HeldLedgerEntry | undefined)[] = [];
  private head = 0;
  /** Restored without the past (a snapshot older than these windows): no account is known to be complete. */
  unknownPast = false;

  constructor(
    readonly maxAccountEntries = DEFAULT_MAX_ACCOUNT_LEDGER,
    readonly maxEntries = DEFAULT_MAX_LEDGER,
    /** Condition ids as the markets in memory hold them (fewer copies of long ids). */
    private readonly marketId: (id: string) => string = (id) => id,
  ) {}

  get enabled(): boolean {
    return this.maxAccountEntries > 0 && this.maxEntries > 0;
  }

  /** Entries held. */
  get size(): number {
    return this.order.length - this.head;
  }

  /**
   * The account's entries memory holds (oldest first, from `from`), and whether they are all of its entries;
   * undefined when memory keeps none at all.
   */
  of(account: string): { readonly entries: readonly (HeldLedgerEntry | undefined)[]; readonly from: number; readonly complete: boolean } | undefined {
    if (!this.enabled) return undefined;
    const w = this.windows.get(account);
    const complete = !this.unknownPast && !this.dropped.has(account);
    return w === undefined ? { entries: [], from: 0, complete } : { entries: w.entries, from: w.head, complete };
  }

  /** The record's entries of an activity kind, as projectFills writes their ledger_events rows. */
  apply(record: EventsRecord): void {
    if (!this.enabled) return;
    for (const e of record.events) {
      switch (e.type) {
        case 'PositionSplit':
          this.add(e.seq, e.time, e.account, 'split', e.conditionId, e.amount, 0);
          break;
        case 'PositionsMerged':
          this.add(e.seq, e.time, e.account, 'merge', e.conditionId, e.amount, 0);
          break;
        case 'PositionRedeemed':
          this.add(e.seq, e.time, e.account, 'redeem', e.conditionId, e.burned[0] + e.burned[1], e.payout);
          break;
        case 'PositionsConverted':
          this.add(e.seq, e.time, e.account, 'convert', e.noConditionIds[0] ?? '', e.amount, e.payout);
          break;
        case 'RewardPaid':
          this.add(e.seq, e.time, e.account, 'reward', e.conditionId, e.amount, e.amount);
          break;
        default:
          break;
      }
    }
  }

  /** An entry that follows every entry held (log order). */
  add(seq: number, timeMs: number, account: string, kind: LedgerKind, conditionId: string, amount: number, payout: number): void {
    if (!this.enabled) return;
    let w = this.windows.get(account);
    if (w === undefined) {
      w = { account, entries: [], head: 0 };
      this.windows.set(account, w);
    }
    const entry: HeldLedgerEntry = { seq, time_ms: timeMs, account: w.account, kind, condition_id: this.marketId(conditionId), amount, payout };
    this.order.push(entry);
    w.entries.push(entry);
    if (w.entries.length - w.head > this.maxAccountEntries) this.leave(w, account);
    while (this.order.length - this.head > this.maxEntries) {
      const oldest = this.order[this.head] as HeldLedgerEntry;
      this.order[this.head] = undefined;
      this.head += 1;
      const ow = this.windows.get(oldest.account);
      if (ow !== undefined && ow.entries[ow.head] === oldest) this.leave(ow, oldest.account);
    }
    if (this.head >= 1024 && 2 * this.head >= this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }

  /** The window's oldest entry leaves memory. */
  private leave(w: LedgerWindow, account: string): void {
    w.entries[w.head] = undefined;
    w.head += 1;
    this.dropped.add(account);
    if (w.head === w.entries.length) this.windows.delete(account);
    else if (w.head >= 64 && 2 * w.head >= w.entries.length) {
      w.entries = w.entries.slice(w.head);
      w.head = 0;
    }
  }

  /** Marks an account as missing older entries (start-up: it has entries older than those loaded). */
  markDropped(account: string): void {
    this.dropped.add(account);
  }

  /** Accounts with at least one entry held. */
  heldAccounts(): IterableIterator<string> {
    return this.windows.keys();
  }

  /** Every entry held, in log order, as tuples (a snapshot). */
  tuples(): LedgerTuple[] {
    const out: LedgerTuple[] = [];
    for (let i = this.head; i < this.order.length; i++) {
      const e = this.order[i] as HeldLedgerEntry;
      out.push([e.seq, e.time_ms, e.account, e.kind, e.condition_id, e.amount, e.payout]);
    }
    return out;
  }

  /** Accounts missing older entries (a snapshot). */
  droppedAccounts(): string[] {
    return [...this.dropped];
  }
}
