// Everything the engine knows, in one place: markets and their books, the ledger, open orders, recently
// finished order ids (for duplicate refusal), the GTD expiry queue, API key ownership, signer authorisations,
// the event sequence and engine time.
// Handlers in the other files change it only through the functions they export and emit one event per fact.

import type { CommandType, Outcome } from './commands.js';
import { EVENT_VERSION, type EngineEvent, type EventBody } from './events.js';
import type { BookFactory } from './book/orderBook.js';
import { ApiKeyTable } from './apiKeyTable.js';
import { ExpiryQueue } from './expiryQueue.js';
import { SignerTable } from './signerTable.js';
import { Ledger, type Account } from './ledger.js';
import type { Market } from './market.js';
import type { Order } from './order.js';
import { OrderIds, type DoneStatus } from './orderIds.js';
import { rejectMessage, type RejectCode } from './rejectReasons.js';

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
  readonly ledger = new Ledger();
  /** Open and recently finished order ids (see orderIds.ts). */
  readonly ids = new OrderIds();
  readonly live = this.ids.live;
  readonly done = this.ids.done;
  readonly expiry = new ExpiryQueue();
  /** API key ownership (no secrets; see apiKeyTable.ts). */
  readonly apiKeys = new ApiKeyTable();
  /** Which signers may sign for which makers (signature types 1 and 2; see signerTable.ts). */
  readonly signers = new SignerTable();
  readonly feeAccount: Account;
  seq = 0;
  now = 0;
  /** Events of the command being applied. */
  out: EngineEvent[] = [];

  constructor(
    readonly config: EngineConfig,
    readonly bookFactory: BookFactory,
  ) {
    this.feeAccount = this.ledger.getOrCreate(config.feeAccount);
  }

  /** Appends an event with the next sequence number and the current engine time. */
  emit(body: EventBody): void {
    this.seq += 1;
    this.out.push({ v: EVENT_VERSION, seq: this.seq, time: this.now, ...body } as EngineEvent);
  }

  /** Takes the next sequence number, for hot paths that build the whole event themselves (see push). */
  advance(): number {
    this.seq += 1;
    return this.seq;
  }

  /** Appends a whole event built with `v`, `seq: advance()` and `time: now` (no second allocation). */
  push(event: EngineEvent): void {
    this.out.push(event);
  }

  /** The sequence number the next emitted event will carry. */
  nextSeq(): number {
    return this.seq + 1;
  }

  reject(command: CommandType | 'unknown', code: RejectCode, where: { account?: string; conditionId?: string }, values: Readonly<Record<string, string | number>> = {}): void {
    this.emit({
      type: 'CommandRejected',
      command,
      account: where.account ?? '',
      conditionId: where.conditionId ?? '',
      code,
      message: rejectMessage(code, values),
    });
  }

  /** Forgets finished order ids whose refusal window has passed (oldest first). */
  pruneDone(): void {
    this.ids.prune(this.now);
  }

  /** Records that an order is no longer open. */
  finish(order: Order, status: DoneStatus): void {
    order.account.orders.delete(order);
    this.ids.finish(order, status, order.dedupeUntil, this.now);
  }
}
