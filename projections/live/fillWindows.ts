// The recent fills of each account, in memory, for GET /trades?user= and GET /data/trades (liveTrades.ts).
// Two bounds: each account's window holds its newest `maxAccountFills` fills, and memory holds the newest
// `maxFills` fills in all (oldest leave first, from every window that still holds them). A fill between two
// accounts is one object in both windows.
//
// Why a window answers exactly: engine time never decreases along the log (each command moves it to
// max(previous, command time)) and fill ids grow with the event sequence (zero-padded hex), so the log's
// order of fills is the reads' order (time, then fill id). A window, the newest of an account's fills in
// log order, is then the first of its fills in the reads' order: a filtered page that the window's fills
// fill up is the page ClickHouse gives, and one they do not fill is exact only when the window holds every
// fill of the account (`dropped` false).

import type { TradeExecuted } from '../../engine/index.js';
import type { EventsRecord } from '../../log/eventLog.js';
import type { TradeRow } from '../readModel/accountTrades.js';

/** Default newest fills kept per account. */
export const DEFAULT_MAX_ACCOUNT_FILLS = 1_000;
/** Default most fills kept in all. */
export const DEFAULT_MAX_FILLS = 250_000;

/** A fill as memory holds it: the columns of its `fills` row that the trade reads show, named as there. */
export interface HeldFill extends TradeRow {
  readonly taker_amount: number;
  readonly maker_amount: number;
  /** transactionHashOf(fill_id) once a read has shown the fill, '' before: front ends read the same recent fills again and again. */
  txHash: string;
  /** The fill's trade JSON once GET /data/trades has shown it (tradeJsonCache.ts), else undefined. */
  json: TradeJsonEntry | undefined;
}

/**
 * A fill's trade JSON in the CLOB shape, as UTF-8 bytes, around its reader's `trader_side` value (the whole is
 * head + `"TAKER"` or `"MAKER"` + tail), and the outcome labels it shows.
 */
export interface TradeJsonEntry {
  readonly head: Buffer;
  readonly tail: Buffer;
  readonly takerOutcome: string;
  readonly makerOutcome: string;
}

/** One account's window: its newest fills, oldest first, at fills[head..] (slots before head are cleared). */
export interface AccountFills {
  readonly account: string;
  fills: (HeldFill | undefined)[];
  head: number;
  /** Older fills of the account exist that the window no longer holds (or never held). */
  dropped: boolean;
}

/** The same text as the argument, from an object memory holds anyway when there is one (fewer copies of long ids). */
export type SharedText = (text: string) => string;

export interface FillWindowsOptions {
  readonly maxAccountFills: number;
  readonly maxFills: number;
  /** Order ids as the orders in memory hold them. */
  readonly orderId?: SharedText;
  /** Condition and token ids as the markets in memory hold them. */
  readonly marketId?: SharedText;
}

const same: SharedText = (text) => text;

export class FillWindows {
  readonly maxAccountFills: number;
  readonly maxFills: number;
  private readonly accounts = new Map<string, AccountFills>();
  /** Every fill held, in log order: order[head..] (slots before head are cleared). */
  private order: (HeldFill | undefined)[] = [];
  private head = 0;
  /** Owners (API keys) as one string each. */
  private readonly owners = new Map<string, string>();
  private readonly orderId: SharedText;
  private readonly marketId: SharedText;

  constructor(options: FillWindowsOptions) {
    this.maxAccountFills = options.maxAccountFills;
    this.maxFills = options.maxFills;
    this.orderId = options.orderId ?? same;
    this.marketId = options.marketId ?? same;
  }

  /** False when either bound is 0: no fill is kept and every trade read goes to ClickHouse. */
  get enabled(): boolean {
    return this.maxAccountFills > 0 && this.maxFills > 0;
  }

  /** Fills held. */
  get size(): number {
    return this.order.length - this.head;
  }

  /** Accounts with at least one fill held. */
  get accountCount(): number {
    return this.accounts.size;
  }

  /** The account's window; undefined when memory holds none of its fills. */
  of(account: string): Readonly<AccountFills> | undefined {
    return this.accounts.get(account);
  }

  /** Accounts with at least one fill held. */
  heldAccounts(): IterableIterator<string> {
    return this.accounts.keys();
  }

  /** Every fill held, in log order (oldest first). */
  *held(): IterableIterator<HeldFill> {
    for (let i = this.head; i < this.order.length; i++) yield this.order[i] as HeldFill;
  }

  /** Accounts whose window misses older fills. */
  droppedAccounts(): string[] {
    const out: string[] = [];
    for (const w of this.accounts.values()) if (w.dropped) out.push(w.account);
    return out;
  }

  /** Marks an account's window as missing older fills (start-up: the account has fills older than those loaded). */
  markDropped(account: string): void {
    const w = this.accounts.get(account);
    if (w !== undefined) w.dropped = true;
  }

  /** The record's fills; bucket_index counts the fills of the record, as the projector numbers them. */
  apply(record: EventsRecord): void {
    if (!this.enabled) return;
    let bucket = 0;
    for (const e of record.events) {
      if (e.type !== 'TradeExecuted') continue;
      this.addEvent(e, bucket);
      bucket += 1;
    }
  }

  private addEvent(e: TradeExecuted, bucket: number): void {
    const t = e.taker;
    const m = e.maker;
    this.add(
      e.tradeId, e.time, e.conditionId, e.size, bucket,
      t.orderId, t.account, t.owner, t.tokenId, t.outcome, t.side, t.price, t.feeBps, t.amount,
      m.orderId, m.account, m.owner, m.tokenId, m.outcome, m.side, m.price, m.feeBps, m.amount,
    );
  }

  /** A fill that follows every fill held (log order), column by column as its `fills` row has them. */
  add(
    fillId: string, timeMs: number, conditionId: string, size: number, bucket: number,
    takerOrderId: string, takerAccount: string, takerOwner: string, takerTokenId: string, takerOutcome: number, takerSide: 'BUY' | 'SELL', takerPrice: number, takerFeeBps: number, takerAmount: number,
    makerOrderId: string, makerAccount: string, makerOwner: string, makerTokenId: string, makerOutcome: number, makerSide: 'BUY' | 'SELL', makerPrice: number, makerFeeBps: number, makerAmount: number,
  ): void {
    if (!this.enabled) return;
    const taker = this.windowOf(takerAccount);
    const maker = makerAccount === takerAccount ? taker : this.windowOf(makerAccount);
    // One object literal in one field order, whichever store the fill came from: one hidden class.
    const f: HeldFill = {
      fill_id: fillId,
      time_ms: timeMs,
      condition_id: this.marketId(conditionId),
      size,
      bucket_index: bucket,
      taker_order_id: this.orderId(takerOrderId),
      taker_account: taker.account,
      taker_owner: this.owner(takerOwner),
      taker_token_id: this.marketId(takerTokenId),
      taker_outcome: takerOutcome,
      taker_side: takerSide,
      taker_price: takerPrice,
      taker_fee_bps: takerFeeBps,
      taker_amount: takerAmount,
      maker_order_id: this.orderId(makerOrderId),
      maker_account: maker.account,
      maker_owner: this.owner(makerOwner),
      maker_token_id: this.marketId(makerTokenId),
      maker_outcome: makerOutcome,
      maker_side: makerSide,
      maker_price: makerPrice,
      maker_fee_bps: makerFeeBps,
      maker_amount: makerAmount,
      txHash: '',
      json: undefined,
    };
    this.order.push(f);
    this.push(taker, f);
    if (maker !== taker) this.push(maker, f);
    while (this.order.length - this.head > this.maxFills) this.dropOldest();
    if (this.head >= 1024 && 2 * this.head >= this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }

  private windowOf(account: string): AccountFills {
    let w = this.accounts.get(account);
    if (w === undefined) {
      w = { account, fills: [], head: 0, dropped: false };
      this.accounts.set(account, w);
    }
    return w;
  }

  private owner(owner: string): string {
    const known = this.owners.get(owner);
    if (known !== undefined) return known;
    this.owners.set(owner, owner);
    return owner;
  }

  private push(w: AccountFills, f: HeldFill): void {
    w.fills.push(f);
    if (w.fills.length - w.head > this.maxAccountFills) {
      w.fills[w.head] = undefined;
      w.head += 1;
      w.dropped = true;
      if (w.head >= 64 && 2 * w.head >= w.fills.length) {
        w.fills = w.fills.slice(w.head);
        w.head = 0;
      }
    }
  }

  /** The oldest fill leaves memory: from each window that still holds it (there, it is the oldest). */
  private dropOldest(): void {
    const f = this.order[this.head] as HeldFill;
    this.order[this.head] = undefined;
    this.head += 1;
    this.leave(f.taker_account, f);
    if (f.maker_account !== f.taker_account) this.leave(f.maker_account, f);
  }

  private leave(account: string, f: HeldFill): void {
    const w = this.accounts.get(account);
    if (w === undefined || w.fills[w.head] !== f) return;
    w.fills[w.head] = undefined;
    w.head += 1;
    w.dropped = true;
    if (w.head === w.fills.length) this.accounts.delete(account);
  }
}
