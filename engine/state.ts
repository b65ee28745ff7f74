// Everything the engine knows, in one place: markets and their books, the ledger, open orders, recently
// finished order ids (for duplicate refusal), the GTD expiry queue, API key ownership, signer authorisations,
// the event sequence and engine time.
// Handlers in the other files change it only through the functions they export and emit one event per fact.

import { HeartbeatSessions } from './heartbeats.js';
import type { CommandType, Outcome } from './commands.js';
import { EVENT_VERSION, TradeIds, type EngineEvent, type EventBody } from './events.js';
import type { BookFactory } from './book/orderBook.js';
import { ApiKeyTable } from './apiKeyTable.js';
import { AccessKeyTable } from './accessKeyTable.js';
import { ExpiryQueue } from './expiryQueue.js';
import { SignerTable } from './signerTable.js';
import { Ledger, type Account } from './ledger.js';
import type { Market } from './market.js';
import type { Order } from './order.js';
import { OrderIds, type DoneStatus } from './orderIds.js';
import { rejectMessage, type RejectCode } from './rejectReasons.js';
import { SignedRequests } from './signedRequests.js';
import { NegRiskEvents } from './negRisk.js';
import { RewardsBook } from './rewards/rewardsBook.js';

export interface EngineConfig {
  /** The address that collects trading fees (an ordinary ledger account). */
  readonly feeAccount: string;
  /**
   * A GTD order leaves the book this many seconds before its `expiration`, and one whose expiration is not
   * beyond now plus this margin is refused (the public CLOB's one-minute security threshold).
   */
  readonly gtdSecurityMarginSec: number;
}

export const DEFAULT_ENGINE_CONFIG: EngineConfig = {
  feeAccount: '0x0000000000000000000000000000000000000fee',
  gtdSecurityMarginSec: 60,
};


export interface TokenRef {
  readonly market: Market;
  readonly outcome: Outcome;
}

export class EngineState {
  readonly markets = new Map<string, Market>();
  readonly tokens = new Map<string, TokenRef>();
  /** Neg-risk events by id, each with its questions (see negRisk.ts). */
  readonly negRisk = new NegRiskEvents();
  readonly ledger = new Ledger();
  /** Open and recently finished order ids (see orderIds.ts). */
  readonly ids: OrderIds;
  readonly live: OrderIds['live'];
  readonly done: OrderIds['done'];
  readonly expiry = new ExpiryQueue();
  /** API key ownership (no secrets; see apiKeyTable.ts). */
  readonly apiKeys = new ApiKeyTable();
  /** Read-only and builder API key ownership (no secrets; see accessKeyTable.ts). */
  readonly accessKeys = new AccessKeyTable();
  /** Which signers may sign for which makers (signature types 1 and 2; see signerTable.ts). */
  readonly signers = new SignerTable();
  /** Ids of the signed requests applied, while they are fresh (see signedRequests.ts). */
  readonly requests = new SignedRequests();
  /** Live heartbeat sessions per account (see heartbeats.ts). */
  readonly heartbeats = new HeartbeatSessions();
  /** Liquidity rewards: each rewarded market's terms and the day's accrual (see rewards/rewardsBook.ts). */
  readonly rewards = new RewardsBook();
  readonly feeAccount: Account;
  /** Trade ids of fills (tradeIdFor, with the formatting of the previous fill reused). */
  readonly tradeIds = new TradeIds();
  seq = 0;
  now = 0;
  /** CommandRejected events emitted so far (not state: lets a caller tell whether a handler refused). */
  rejections = 0;
  /**
   * Events of the command being applied: a scratch buffer reused by every command, of which the first
   * `outCount` are this command's (takeEvents copies them out). Reusing it spares each command a growable
   * array; the copy is sized exactly.
   */
  private readonly out: (EngineEvent | null)[] = [];
  private outCount = 0;

  constructor(
    readonly config: EngineConfig,
    readonly bookFactory: BookFactory,
    idHashKey = 0,
  ) {
    this.ids = new OrderIds(idHashKey);
    this.live = this.ids.live;
    this.done = this.ids.done;
    this.feeAccount = this.ledger.getOrCreate(config.feeAccount);
  }

  /** Appends an event with the next sequence number and the current engine time. */
  emit(body: EventBody): void {
    this.seq += 1;
    this.push({ v: EVENT_VERSION, seq: this.seq, time: this.now, ...body } as EngineEvent);
  }

  /** Takes the next sequence number, for hot paths that build the whole event themselves (see push). */
  advance(): number {
    this.seq += 1;
    return this.seq;
  }

  /** Appends a whole event built with `v`, `seq: advance()` and `time: now` (no second allocation). */
  push(event: EngineEvent): void {
    const at = this.outCount;
    if (at < this.out.length) this.out[at] = event;
    else this.out.push(event);
    this.outCount = at + 1;
  }

  /** Starts a command with an empty event list (even if the previous command threw half-way). */
  beginEvents(): void {
    this.outCount = 0;
  }

  /** The events of the command just applied, as a new array; the buffer lets go of them. */
  takeEvents(): EngineEvent[] {
    const n = this.outCount;
    const out = this.out;
    // The first outCount slots hold this command's events. Most commands emit one or two: an array
    // literal of that length is the cheapest exact-size copy.
    const events = (n === 1 ? [out[0]] : n === 2 ? [out[0], out[1]] : out.slice(0, n)) as EngineEvent[];
    for (let i = 0; i < n; i++) out[i] = null;
    this.outCount = 0;
    return events;
  }

  /** The sequence number the next emitted event will carry. */
  nextSeq(): number {
    return this.seq + 1;
  }

  reject(command: CommandType | 'unknown', code: RejectCode, where: { account?: string; conditionId?: string }, values: Readonly<Record<string, string | number>> = {}): void {
    this.rejections += 1;
    this.emit({
      type: 'CommandRejected',
      command,
      account: where.account ?? '',
      conditionId: where.conditionId ?? '',
      code,
      message: rejectMessage(code, values),
    });
  }

  /** Forgets finished order ids and signed request ids whose refusal window has passed (oldest first). */
  pruneDone(): void {
    this.ids.prune(this.now);
    this.requests.prune(this.now);
  }

  /**
   * Records that an order is no longer open. An order is open exactly while it is in its account's list
   * (placeOrder and restore add it there and to the ids together), so that membership tells the ids table
   * whether the order was live.
   */
  finish(order: Order, status: DoneStatus): void {
    const wasLive = order.inAccount;
    if (wasLive) order.account.orders.delete(order);
    this.ids.finish(order, status, wasLive, order.dedupeUntil, this.now);
  }
}
