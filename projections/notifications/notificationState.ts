// The notifications of every account, as a pure function of the durable records (see README.md): apply()
// takes records in log order and skips any at or below the position already applied, so the same records
// delivered twice, a replay from the start and a restore from a snapshot followed by the rest of the log all
// leave the same state. Nothing here reads a clock: time is the events' engine time.
//
// Kept (upstream's CLOB notification types):
// - ORDER_CANCELLATION (1): every OrderCancelled of an account's order, whatever its reason.
// - ORDER_FILL (2): each side of each TradeExecuted, to the account of that side's order.
// - MARKET_RESOLVED (4): MarketResolved, to every account holding tokens of the market at that event.
// Ids are derived from the event's sequence number, global and gap-free: 2 × seq, and 2 × seq + 1 for the
// maker side of a fill (an account may take both sides of one fill). Owners: the API key of the order (from
// OrderAccepted or the fill), the account's address for resolutions.
//
// Bounds, whichever removes a notification first: the newest `maxPerAccount` of each account, those younger
// than `retentionMs` at the engine's time, and the newest `maxTotal` in all. To know who holds a market at its
// resolution, the state also keeps each account's token balance (free + reserved) in every market not yet
// resolved, and the owner, side, price and size of each open order (for its cancellation's payload).

import type { EngineEvent, FillSide, Outcome, Side } from '../../engine/index.js';
import type { EventsRecord } from '../../log/eventLog.js';

export const ORDER_CANCELLATION = 1;
export const ORDER_FILL = 2;
export const MARKET_RESOLVED = 4;

/** Upstream's documented retention: notifications are removed after 48 hours. */
export const DEFAULT_RETENTION_MS = 48 * 3_600_000;
export const DEFAULT_MAX_PER_ACCOUNT = 100;
export const DEFAULT_MAX_TOTAL = 200_000;

interface NoteBase {
  readonly id: number;
  readonly account: string;
  readonly owner: string;
  /** Engine time of the event (ms). */
  readonly time: number;
  readonly conditionId: string;
  /** Removed (dropped, or past a bound); the note may still sit in the state's queue until it is compacted. */
  gone: boolean;
}

export interface CancellationNote extends NoteBase {
  readonly type: typeof ORDER_CANCELLATION;
  readonly orderId: string;
  readonly tokenId: string;
  /** From the order's OrderAccepted: -1, '' and 0 when the order was accepted before what this state saw. */
  readonly outcome: Outcome | -1;
  readonly side: Side | '';
  readonly price: number;
  readonly originalSize: number;
  /** Open quantity the cancel released (base units). */
  readonly remaining: number;
  readonly reason: string;
}

export interface FillNote extends NoteBase {
  readonly type: typeof ORDER_FILL;
  readonly tradeId: string;
  readonly orderId: string;
  readonly tokenId: string;
  readonly outcome: Outcome;
  readonly side: Side;
  /** Price in the order's own token (micro-units). */
  readonly price: number;
  /** Tokens matched (base units). */
  readonly size: number;
  readonly feeBps: number;
  readonly role: 'TAKER' | 'MAKER';
  /** Quantity of the order still open after the fill. */
  readonly remaining: number;
}

export interface ResolutionNote extends NoteBase {
  readonly type: typeof MARKET_RESOLVED;
  readonly winningOutcome: Outcome;
  readonly winningTokenId: string;
  /** Tokens of outcome 0 and outcome 1 the account held at the resolution (base units). */
  readonly held: readonly [number, number];
}

export type Notification = CancellationNote | FillNote | ResolutionNote;

/** What a cancellation's payload shows of an open order. */
export interface OpenOrderNote {
  readonly owner: string;
  readonly outcome: Outcome;
  readonly side: Side;
  readonly price: number;
  readonly size: number;
}

export interface NotificationStateOptions {
  readonly retentionMs?: number;
  readonly maxPerAccount?: number;
  readonly maxTotal?: number;
}

/** Queue slots before the live ones (or gone ones among them) after which the queue is compacted. */
const COMPACT_AFTER = 1_024;

export class NotificationState {
  /** Last log position applied. */
  pos = 0;
  /** Engine time of the latest event applied (ms). */
  now = 0;
  readonly retentionMs: number;
  readonly maxPerAccount: number;
  readonly maxTotal: number;
  /** Each account's notifications, oldest first. */
  readonly byAccount = new Map<string, Notification[]>();
  /** Open orders, for their cancellations. */
  readonly orders = new Map<string, OpenOrderNote>();
  /** Markets not resolved yet → account → tokens held of outcome 0 and 1 (entries at zero are removed). */
  readonly holdings = new Map<string, Map<string, [number, number]>>();
  /** Every notification kept, in log order, at queue[head..], with gone ones among them until compacted. */
  private queue: Notification[] = [];
  private head = 0;
  private live = 0;

  constructor(options: NotificationStateOptions = {}) {
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    this.maxPerAccount = options.maxPerAccount ?? DEFAULT_MAX_PER_ACCOUNT;
    this.maxTotal = options.maxTotal ?? DEFAULT_MAX_TOTAL;
  }

  /** Notifications kept in all. */
  get size(): number {
    return this.live;
  }

  /** `account`'s notifications at or after `notBefore` (ms), newest first. */
  notificationsOf(account: string, notBefore = 0): Notification[] {
    const list = this.byAccount.get(account);
    if (list === undefined) return [];
    const out: Notification[] = [];
    for (let i = list.length - 1; i >= 0; i--) {
      const n = list[i] as Notification;
      if (n.time < notBefore) break;
      out.push(n);
    }
    return out;
  }

  /** Every notification kept, in log order (snapshots). */
  *kept(): IterableIterator<Notification> {
    for (let i = this.head; i < this.queue.length; i++) {
      const n = this.queue[i] as Notification;
      if (!n.gone) yield n;
    }
  }

  /** One record; a record at or below the position already applied is skipped. */
  apply(record: EventsRecord): void {
    if (record.pos <= this.pos) return;
    for (const e of record.events) this.event(e);
    this.pos = record.pos;
    this.expire();
  }

  /** Puts back a notification from a snapshot (in log order, into a fresh state). */
  restore(n: Notification): void {
    this.add({ ...n, gone: false });
  }

  private event(e: EngineEvent): void {
    if (e.time > this.now) this.now = e.time;
    switch (e.type) {
      case 'OrderAccepted':
        this.orders.set(e.orderId, { owner: e.owner, outcome: e.outcome, side: e.side, price: e.price, size: e.size });
        return;
      case 'TradeExecuted':
        this.fill(e.seq, e.time, e.tradeId, e.conditionId, e.size, e.taker, 'TAKER');
        this.fill(e.seq, e.time, e.tradeId, e.conditionId, e.size, e.maker, 'MAKER');
        return;
      case 'OrderCancelled': {
        const o = this.orders.get(e.orderId);
        this.orders.delete(e.orderId);
        this.add({
          type: ORDER_CANCELLATION, id: 2 * e.seq, account: e.account, owner: o?.owner ?? e.account, time: e.time, conditionId: e.conditionId, gone: false,
          orderId: e.orderId, tokenId: e.tokenId, outcome: o?.outcome ?? -1, side: o?.side ?? '', price: o?.price ?? 0, originalSize: o?.size ?? 0,
          remaining: e.remaining, reason: e.reason,
        });
        return;
      }
      case 'OrderExpired':
        this.orders.delete(e.orderId);
        return;
      case 'PositionSplit':
        this.hold(e.conditionId, e.account, e.amount, e.amount);
        return;
      case 'PositionsMerged':
        this.hold(e.conditionId, e.account, -e.amount, -e.amount);
        return;
      case 'PositionRedeemed':
        this.hold(e.conditionId, e.account, -e.burned[0], -e.burned[1]);
        return;
      case 'PositionsConverted':
        for (const conditionId of e.noConditionIds) this.hold(conditionId, e.account, 0, -e.amount);
        for (const conditionId of e.yesConditionIds) this.hold(conditionId, e.account, e.amount, 0);
        return;
      case 'MarketResolved': {
        const holders = this.holdings.get(e.conditionId);
        this.holdings.delete(e.conditionId);
        if (holders === undefined) return;
        for (const [account, held] of holders) {
          this.add({
            type: MARKET_RESOLVED, id: 2 * e.seq, account, owner: account, time: e.time, conditionId: e.conditionId, gone: false,
            winningOutcome: e.winningOutcome, winningTokenId: e.winningTokenId, held: [held[0], held[1]],
          });
        }
        return;
      }
      case 'NotificationsDropped':
        this.drop(e.account, e.ids);
        return;
      default:
        return;
    }
  }

  private fill(seq: number, time: number, tradeId: string, conditionId: string, size: number, s: FillSide, role: 'TAKER' | 'MAKER'): void {
    // A buyer receives the tokens less its fee (paid in tokens); a seller gives the tokens matched.
    const tokens = s.side === 'BUY' ? size - s.fee : -size;
    this.hold(conditionId, s.account, s.outcome === 0 ? tokens : 0, s.outcome === 1 ? tokens : 0);
    if (s.remaining === 0) this.orders.delete(s.orderId);
    this.add({
      type: ORDER_FILL, id: 2 * seq + (role === 'MAKER' ? 1 : 0), account: s.account, owner: s.owner, time, conditionId, gone: false,
      tradeId, orderId: s.orderId, tokenId: s.tokenId, outcome: s.outcome, side: s.side, price: s.price, size, feeBps: s.feeBps, role, remaining: s.remaining,
    });
  }

  /** Adds to `account`'s tokens of a market not yet resolved (a redeem after resolution finds nothing to change). */
  private hold(conditionId: string, account: string, outcome0: number, outcome1: number): void {
    let holders = this.holdings.get(conditionId);
    const held = holders?.get(account);
    if (held === undefined) {
      if (outcome0 <= 0 && outcome1 <= 0) return;
      if (holders === undefined) {
        holders = new Map();
        this.holdings.set(conditionId, holders);
      }
      holders.set(account, [Math.max(0, outcome0), Math.max(0, outcome1)]);
      return;
    }
    held[0] = Math.max(0, held[0] + outcome0);
    held[1] = Math.max(0, held[1] + outcome1);
    if (held[0] === 0 && held[1] === 0) {
      holders?.delete(account);
      if (holders?.size === 0) this.holdings.delete(conditionId);
    }
  }

  private add(n: Notification): void {
    let list = this.byAccount.get(n.account);
    if (list === undefined) {
      list = [];
      this.byAccount.set(n.account, list);
    }
    list.push(n);
    this.queue.push(n);
    this.live += 1;
    if (list.length > this.maxPerAccount) this.remove(list.shift() as Notification, list);
    while (this.live > this.maxTotal) this.removeOldest();
  }

  /** Marks a notification gone (already taken out of its account's list, which is `list`). */
  private remove(n: Notification, list: Notification[]): void {
    n.gone = true;
    this.live -= 1;
    if (list.length === 0) this.byAccount.delete(n.account);
  }

  /** Removes the oldest notification kept: the first of its account's list too (both are in log order). */
  private removeOldest(): void {
    while (this.head < this.queue.length) {
      const n = this.queue[this.head] as Notification;
      this.head += 1;
      if (n.gone) continue;
      const list = this.byAccount.get(n.account) as Notification[];
      list.shift();
      this.remove(n, list);
      return;
    }
  }

  private drop(account: string, ids: readonly number[]): void {
    const list = this.byAccount.get(account);
    if (list === undefined) return;
    const dropped = new Set(ids);
    const keep: Notification[] = [];
    for (const n of list) {
      if (dropped.has(n.id)) {
        n.gone = true;
        this.live -= 1;
      } else keep.push(n);
    }
    if (keep.length === list.length) return;
    if (keep.length === 0) this.byAccount.delete(account);
    else this.byAccount.set(account, keep);
  }

  /** Removes what is past the retention at the engine's time, and compacts the queue. */
  private expire(): void {
    const cutoff = this.now - this.retentionMs;
    while (this.head < this.queue.length) {
      const n = this.queue[this.head] as Notification;
      if (!n.gone && n.time >= cutoff) break;
      if (!n.gone) {
        const list = this.byAccount.get(n.account) as Notification[];
        list.shift();
        this.remove(n, list);
      }
      this.head += 1;
    }
    const slots = this.queue.length - this.head;
    if (this.head > COMPACT_AFTER && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    } else if (slots > 2 * this.live + COMPACT_AFTER) {
      this.queue = [...this.kept()];
      this.head = 0;
    }
  }
}
