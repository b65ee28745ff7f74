// Snapshot of the whole engine state as plain data (JSON-safe: strings, integers, booleans), and the
// restore that rebuilds an engine from it. restore(export(e)).stateHash() === e.stateHash(), and the
// restored engine behaves exactly as the original from then on (same events for the same commands):
// books are rebuilt in priority order, finished ids in insertion order (the order they are forgotten in).

import type { MarketParams, OrderType, Outcome, Side } from './commands.js';
import type { MarketStatus } from './events.js';
import type { BookFactory } from './book/orderBook.js';
import { fastBookFactory } from './book/fastBook.js';
import { Engine, type EngineOptions } from './engine.js';
import { Market, type LastTrade } from './market.js';
import { Order } from './order.js';
import type { EngineConfig } from './state.js';
import type { DoneStatus } from './orderIds.js';
import { ASK, BID } from './book/orderBook.js';
import type { AccessKeyEntry } from './accessKeyTable.js';

export const SNAPSHOT_FORMAT = 1;

export interface MarketSnapshot {
  readonly conditionId: string;
  readonly tokenIds: readonly [string, string];
  readonly params: MarketParams;
  readonly status: MarketStatus;
  readonly winningOutcome: Outcome | null;
  readonly locked: number;
  readonly lastTrade: LastTrade | null;
  /** A question of a neg-risk event: [negRiskMarketId, questionIndex, burned NO tokens]. Absent otherwise (and in older snapshots). */
  readonly negRisk?: readonly [string, number, number];
}

export interface AccountSnapshot {
  readonly address: string;
  readonly free: number;
  readonly reserved: number;
  /** [tokenId, free, reserved] for every non-zero holding. */
  readonly holdings: readonly (readonly [string, number, number])[];
}

export interface OrderSnapshot {
  readonly id: string;
  readonly account: string;
  readonly owner: string;
  readonly tokenId: string;
  readonly side: Side;
  readonly price: number;
  readonly size: number;
  readonly remaining: number;
  readonly orderType: OrderType;
  readonly postOnly: boolean;
  readonly expiration: number;
  readonly expiresAt: number;
  readonly priority: number;
  readonly dedupeUntil: number;
  /** The signed order's timestamp (ms); absent when unknown (older snapshots, orders of older logs). */
  readonly signedAt?: number;
}

export interface EngineSnapshot {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly config: EngineConfig;
  readonly seq: number;
  readonly now: number;
  readonly deposits: number;
  readonly withdrawals: number;
  readonly markets: readonly MarketSnapshot[];
  readonly accounts: readonly AccountSnapshot[];
  /** Open orders in global priority order. */
  readonly orders: readonly OrderSnapshot[];
  /**
   * Finished order ids still refused, in insertion order: [id, status, until, signedAt]; signedAt absent when
   * unknown (older snapshots) or -1.
   */
  readonly done: readonly (readonly [string, DoneStatus, number, number?])[];
  /** Latest signed timestamp of a forgotten order id (placeOrder's staleness horizon); absent = 0. */
  readonly ordersForgottenThrough?: number;
  /** Signed request ids still refused, oldest first: [id, signedAt, until]. Absent in older snapshots = none. */
  readonly requests?: readonly (readonly [string, number, number])[];
  /** Latest signed timestamp of a forgotten request id; absent = 0. */
  readonly requestsForgottenThrough?: number;
  /**
   * Live API keys in creation order: [apiKey, address, nonce]. Absent in snapshots written before API keys
   * existed, which restore with none (so the format number did not change).
   */
  readonly apiKeys?: readonly ApiKeyEntry[];
  /** Deleted API keys (their slots stay closed), same shape and order. */
  readonly deletedApiKeys?: readonly ApiKeyEntry[];
  /**
   * Live read-only and builder API keys in creation order: [key, kind, address, createdAt]. Absent when there
   * are none (and in older snapshots, which restore with none).
   */
  readonly accessKeys?: readonly AccessKeyEntry[];
  /** Signer authorisations as [maker, signer], sorted. Absent in older snapshots, which restore with none. */
  readonly signers?: readonly SignerEntry[];
  /** Live heartbeat sessions as [account, id, deadline], sorted by account. Absent = none. */
  readonly heartbeats?: readonly (readonly [string, string, number])[];
  /** Neg-risk events as [id, paid ahead], in creation order (questions come from the markets). Absent = none. */
  readonly negRiskEvents?: readonly (readonly [string, number])[];
  /** Liquidity rewards (engine/rewards/rewardsBook.ts); absent when there are none (and in older snapshots). */
  readonly rewards?: RewardsSnapshot;
}

/** The rewards program's state: `nextSampleAt` null when nothing is due. */
export interface RewardsSnapshot {
  /** [conditionId, dailyRate, maxSpread, minSize, since], sorted. */
  readonly terms: readonly (readonly [string, number, number, number, number])[];
  readonly day: number;
  readonly nextSampleAt: number | null;
  /** [conditionId, rateMinutes, samples, [[account, score]]], sorted. */
  readonly accrual: readonly (readonly [string, number, number, readonly (readonly [string, number])[]])[];
}

/** [apiKey, address, nonce]. */
export type ApiKeyEntry = readonly [string, string, string];

/** [maker, signer]. */
export type SignerEntry = readonly [string, string];

export function exportSnapshot(engine: Engine): EngineSnapshot {
  const state = engine.state;
  const markets: MarketSnapshot[] = [];
  const orders: Order[] = [];
  for (const m of state.markets.values()) {
    markets.push({
      conditionId: m.conditionId, tokenIds: m.tokenIds, params: { ...m.params }, status: m.status, winningOutcome: m.winningOutcome, locked: m.locked, lastTrade: m.lastTrade === null ? null : { ...m.lastTrade },
      ...(m.negRiskMarketId === null ? {} : { negRisk: [m.negRiskMarketId, m.questionIndex, m.convertedNo] as const }),
    });
    orders.push(...m.book.orders(BID), ...m.book.orders(ASK));
  }
  orders.sort((a, b) => a.priority - b.priority);
  const accounts: AccountSnapshot[] = [];
  for (const a of state.ledger.accounts.values()) {
    const holdings: [string, number, number][] = [];
    for (const [tokenId, h] of a.holdings) if (h.free !== 0 || h.reserved !== 0) holdings.push([tokenId, h.free, h.reserved]);
    accounts.push({ address: a.address, free: a.free, reserved: a.reserved, holdings });
  }
  return {
    format: SNAPSHOT_FORMAT,
    config: { ...state.config },
    seq: state.seq,
    now: state.now,
    deposits: state.ledger.deposits,
    withdrawals: state.ledger.withdrawals,
    markets,
    accounts,
    orders: orders.map((o) => ({
      id: o.id, account: o.account.address, owner: o.owner, tokenId: o.tokenId, side: o.side, price: o.ownPrice, size: o.size, remaining: o.remaining,
      orderType: o.orderType, postOnly: o.postOnly, expiration: o.expiration, expiresAt: o.expiresAt, priority: o.priority, dedupeUntil: o.dedupeUntil,
      ...(o.signedAt < 0 ? {} : { signedAt: o.signedAt }),
    })),
    done: state.done.entries().map(([id, status, until, signedAt]) => (signedAt < 0 ? [id, status, until] as const : [id, status, until, signedAt] as const)),
    ...(state.ids.forgottenThrough === 0 ? {} : { ordersForgottenThrough: state.ids.forgottenThrough }),
    ...(state.requests.size() === 0 ? {} : { requests: state.requests.entries() }),
    ...(state.requests.forgottenThrough === 0 ? {} : { requestsForgottenThrough: state.requests.forgottenThrough }),
    apiKeys: [...state.apiKeys.live].map(([apiKey, o]) => [apiKey, o.address, o.nonce] as const),
    deletedApiKeys: [...state.apiKeys.deleted].map(([apiKey, o]) => [apiKey, o.address, o.nonce] as const),
    signers: state.signers.entries(),
    ...(state.accessKeys.size === 0 ? {} : { accessKeys: state.accessKeys.entries() }),
    ...(state.heartbeats.size === 0 ? {} : { heartbeats: state.heartbeats.entries() }),
    ...(state.negRisk.size === 0 ? {} : { negRiskEvents: [...state.negRisk.byId.values()].map((e) => [e.id, e.unbacked] as const) }),
    ...(state.rewards.empty ? {} : {
      rewards: {
        terms: state.rewards.termEntries(), day: state.rewards.day, accrual: state.rewards.accrualEntries(),
        nextSampleAt: state.rewards.nextSampleAt === Number.POSITIVE_INFINITY ? null : state.rewards.nextSampleAt,
      },
    }),
  };
}

/** `options`: as for new Engine() (the id hash's key is the restoring host's, not the snapshot's). */
export function restoreSnapshot(snapshot: EngineSnapshot, bookFactory: BookFactory = fastBookFactory, options: EngineOptions = {}): Engine {
  if (snapshot.format !== SNAPSHOT_FORMAT) throw new Error(`snapshot format ${String(snapshot.format)} is not supported (expected ${SNAPSHOT_FORMAT})`);
  const engine = new Engine(snapshot.config, bookFactory, options);
  const state = engine.state;
  state.seq = snapshot.seq;
  state.now = snapshot.now;
  state.ledger.deposits = snapshot.deposits;
  state.ledger.withdrawals = snapshot.withdrawals;
  for (const [id, unbacked] of snapshot.negRiskEvents ?? []) {
    state.negRisk.getOrCreate(id).unbacked = unbacked;
    state.negRisk.unbacked += unbacked;
  }
  for (const m of snapshot.markets) {
    const market = new Market(m.conditionId, [m.tokenIds[0], m.tokenIds[1]], { ...m.params }, bookFactory());
    market.status = m.status;
    market.winningOutcome = m.winningOutcome;
    market.locked = m.locked;
    market.lastTrade = m.lastTrade === null ? null : { ...m.lastTrade };
    if (m.negRisk !== undefined) {
      [market.negRiskMarketId, market.questionIndex, market.convertedNo] = m.negRisk;
      state.negRisk.getOrCreate(market.negRiskMarketId).add(market);
    }
    state.markets.set(m.conditionId, market);
    state.tokens.set(m.tokenIds[0], { market, outcome: 0 });
    state.tokens.set(m.tokenIds[1], { market, outcome: 1 });
  }
  for (const a of snapshot.accounts) {
    const account = state.ledger.getOrCreate(a.address);
    account.free = a.free;
    account.reserved = a.reserved;
    for (const [tokenId, free, reserved] of a.holdings) {
      const holding = account.holding(tokenId);
      holding.free = free;
      holding.reserved = reserved;
    }
  }
  for (const o of snapshot.orders) {
    const ref = state.tokens.get(o.tokenId);
    if (ref === undefined) throw new Error(`snapshot order ${o.id} names unknown token ${o.tokenId}`);
    const buy = o.side === 'BUY';
    const bookSide = ref.outcome === 0 ? (buy ? BID : ASK) : buy ? ASK : BID;
    const account = state.ledger.getOrCreate(o.account);
    const order = new Order(o.id, account, o.owner, ref.market, ref.outcome, o.side, o.price, bookSide, o.size, o.orderType, o.postOnly, o.expiration, o.expiresAt, o.priority, o.dedupeUntil, state.ids.hashOf(o.id), o.signedAt ?? -1);
    order.remaining = o.remaining;
    ref.market.book.add(order);
    state.live.set(order.id, order);
    account.orders.add(order);
    if (order.expiresAt !== 0) state.expiry.push(order);
  }
  for (const [id, status, until, signedAt] of snapshot.done) state.done.add(id, status, until, signedAt ?? -1);
  state.ids.forgottenThrough = snapshot.ordersForgottenThrough ?? 0;
  for (const [id, signedAt, until] of snapshot.requests ?? []) state.requests.remember(id, signedAt, until);
  state.requests.forgottenThrough = snapshot.requestsForgottenThrough ?? 0;
  for (const [apiKey, address, nonce] of snapshot.apiKeys ?? []) state.apiKeys.add(apiKey, { address, nonce });
  for (const [apiKey, address, nonce] of snapshot.deletedApiKeys ?? []) state.apiKeys.addDeleted(apiKey, { address, nonce });
  for (const [maker, signer] of snapshot.signers ?? []) state.signers.add(maker, signer);
  for (const [key, kind, address, createdAt] of snapshot.accessKeys ?? []) state.accessKeys.add(key, { kind, address, createdAt });
  for (const [account, id, deadline] of snapshot.heartbeats ?? []) state.heartbeats.set(account, { id, deadline });
  if (snapshot.rewards !== undefined) {
    const r = snapshot.rewards;
    for (const [id, dailyRate, maxSpread, minSize, since] of r.terms) state.rewards.terms.set(id, { dailyRate, maxSpread, minSize, since });
    state.rewards.day = r.day;
    state.rewards.nextSampleAt = r.nextSampleAt ?? Number.POSITIVE_INFINITY;
    for (const [id, rateMinutes, samples, scores] of r.accrual) {
      const accrual = state.rewards.accrualOf(id);
      accrual.rateMinutes = rateMinutes;
      accrual.samples = samples;
      for (const [account, score] of scores) accrual.scores.set(account, score);
    }
  }
  return engine;
}
