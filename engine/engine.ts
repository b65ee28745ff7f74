// The engine: apply(command) → events, deterministically. Before each command, engine time moves to
// max(previous time, command time), GTD orders that are due expire and finished-order ids past their
// refusal window are forgotten. No clock, randomness, I/O or environment: the same commands in give the
// same events and the same stateHash() out, with either book implementation.

import type { CancelOrder, Command, PlaceOrder } from './commands.js';
import type { EngineEvent } from './events.js';
import { ASK, BID, type BookFactory, type PriceLevel } from './book/orderBook.js';
import { fastBookFactory } from './book/fastBook.js';
import { DEFAULT_ENGINE_CONFIG, EngineState, type EngineConfig } from './state.js';
import { cancelById, cancelWhere, expireDue, placeOrder } from './orderEntry.js';
import { listMarket, pauseMarket, resolveMarket, resumeMarket, updateMarket } from './marketCommands.js';
import { deposit, merge, redeem, split, withdraw } from './ledgerCommands.js';
import { createApiKey, deleteApiKey } from './apiKeyCommands.js';
import { authorizeSigner, revokeSigner } from './signerCommands.js';
import { createAccessKey, revokeAccessKey } from './accessKeyCommands.js';
import type { AccessKeyKind, AccessKeyOwner } from './accessKeyTable.js';
import { expireHeartbeats, heartbeat } from './heartbeats.js';
import { dropNotifications } from './notificationCommands.js';
import { convertPositions, joinNegRiskEvent, resolveNegRiskEvent } from './negRiskCommands.js';
import { endMarketRewards, setMarketRewards } from './rewards/rewardCommands.js';
import { advanceRewards } from './rewards/rewardSampler.js';
import { daySoFar, earningsSoFar, orderScoring, rewardsNow, sampleNow, sharesNow, type DaySoFar, type RewardsNow, type SampleNow } from './rewards/rewardQueries.js';
import type { RewardProgram } from './rewards/rewardTerms.js';
import type { NegRiskEvent } from './negRisk.js';
import type { ApiKeyOwner } from './apiKeyTable.js';
import { computeStateHash } from './stateHash.js';
import { findViolations } from './invariants.js';
import { PRICE_ONE } from './units.js';
import { isId, isTimestamp } from './commandChecks.js';
import { admitRequest } from './signedRequests.js';
import type { Market } from './market.js';
import type { Order } from './order.js';
import type { Outcome } from './commands.js';

/** One token's view of its market's book: its own buyers (bids) and sellers (asks), best first. */
export interface TokenBook {
  readonly market: Market;
  readonly outcome: Outcome;
  readonly bids: PriceLevel[];
  readonly asks: PriceLevel[];
}

export interface Balances {
  readonly free: number;
  readonly reserved: number;
  readonly tokens: ReadonlyMap<string, { readonly free: number; readonly reserved: number }>;
}

const MAX_CANCEL_BATCH = 10_000;

// Readers of a command's time, one function per hot command type: V8 keeps one record of the shapes seen
// per property read, shared by the reads of the same property of the same variable within a function, so
// a reader in its own function is what keeps the order path's reads to one shape each.
const placeTime = (cmd: PlaceOrder): unknown => cmd.time;
const cancelTime = (cmd: CancelOrder): unknown => cmd.time;
const anyTime = (cmd: Command): unknown => cmd.time;

/** The refusal of a command without a usable time (or not an object at all): nothing else happens. */
function rejectTimeless(state: EngineState): void {
  state.reject('unknown', 'INVALID_COMMAND', {}, { detail: 'a command needs a type and a time' });
}

/** How an engine is built, beyond its configuration: nothing here reaches its state or events. */
export interface EngineOptions {
  readonly idHashKey?: number;
}

export class Engine {
  readonly state: EngineState;

  /**
   * `options.idHashKey`: the key of the order-id table's hash (engine/orderIdHash.ts), chosen by the host at
   * random so that traders cannot aim ids at one slot; it changes no event and no state hash. Default 0.
   */
  constructor(config: EngineConfig = DEFAULT_ENGINE_CONFIG, bookFactory: BookFactory = fastBookFactory, options: EngineOptions = {}) {
    this.state = new EngineState(config, bookFactory, options.idHashKey ?? 0);
  }

  /** Applies one command and returns the events it produced (at least one for every command but AdvanceTime). */
  apply(cmd: Command): EngineEvent[] {
    const state = this.state;
    state.beginEvents();
    if (cmd === null || typeof cmd !== 'object') rejectTimeless(state);
    else this.dispatch(cmd);
    return state.takeEvents();
  }

  /**
   * Moves time, expires and forgets what is due, then runs the command's handler. Commands come in many
   * shapes, and a property read that sees more than four shapes is a slow (megamorphic) lookup: `type` is
   * read once, and `time` by a reader per hot command type (each sees one shape), the rest sharing one.
   */
  private dispatch(cmd: Command): void {
    const state = this.state;
    const type = cmd.type;
    const time = type === 'PlaceOrder' ? placeTime(cmd) : type === 'CancelOrder' ? cancelTime(cmd) : anyTime(cmd);
    if (!isTimestamp(time)) return rejectTimeless(state);
    // The minutes of the rewards sampler this command's time reaches are sampled first (rewards/rewardSampler.ts).
    if (time >= state.rewards.nextSampleAt) advanceRewards(state, time);
    if (time > state.now) state.now = time;
    expireDue(state);
    expireHeartbeats(state);
    state.pruneDone();
    const needsAccount = type === 'CancelOrder' || type === 'CancelOrders' || type === 'CancelAll' || type === 'CancelMarketOrders';
    if (needsAccount && !isId(cmd.account)) {
      return state.reject(type, 'INVALID_COMMAND', {}, { detail: 'account is required' });
    }
    if (type === 'Split' || type === 'Merge' || type === 'Redeem' || type === 'ConvertPositions' || type === 'CreateAccessKey') {
      const request = cmd.request;
      if (request !== undefined) {
        if (!admitRequest(state, type, request, cmd.type === 'CreateAccessKey' ? cmd.address : cmd.account)) return;
        // Remembered only once applied: a request the engine refused changed nothing, and may be sent again.
        const refusedBefore = state.rejections;
        this.run(cmd);
        if (state.rejections === refusedBefore) state.requests.remember(request.id, request.signedAt, request.until);
        return;
      }
    }
    this.run(cmd);
  }

  /** Runs the command's handler (time has moved and what was due has expired). */
  private run(cmd: Command): void {
    const state = this.state;
    const type = cmd.type;
    switch (type) {
      case 'PlaceOrder':
        return placeOrder(state, cmd);
      case 'CancelOrder':
        if (!isId(cmd.orderId)) return state.reject('CancelOrder', 'INVALID_COMMAND', { account: cmd.account }, { detail: 'orderID is required' });
        return cancelById(state, cmd.orderId, cmd.account);
      case 'CancelOrders': {
        if (!Array.isArray(cmd.orderIds) || cmd.orderIds.length > MAX_CANCEL_BATCH || !cmd.orderIds.every(isId)) {
          return state.reject('CancelOrders', 'INVALID_COMMAND', { account: String(cmd.account) }, { detail: `orderIds must be at most ${MAX_CANCEL_BATCH} ids` });
        }
        for (const id of new Set(cmd.orderIds)) cancelById(state, id, cmd.account);
        return;
      }
      case 'CancelAll':
        return cancelWhere(state, cmd.account, () => true);
      case 'CancelMarketOrders': {
        const { conditionId, tokenId } = cmd;
        if (conditionId === undefined && tokenId === undefined) return;
        return cancelWhere(
          state,
          cmd.account,
          (o) => (conditionId === undefined || o.market.conditionId === conditionId) && (tokenId === undefined || o.tokenId === tokenId),
        );
      }
      case 'ListMarket':
        return listMarket(state, cmd);
      case 'UpdateMarket':
        return updateMarket(state, cmd);
      case 'PauseMarket':
        return pauseMarket(state, cmd);
      case 'ResumeMarket':
        return resumeMarket(state, cmd);
      case 'ResolveMarket':
        return resolveMarket(state, cmd);
      case 'Deposit':
        return deposit(state, cmd);
      case 'Withdraw':
        return withdraw(state, cmd);
      case 'Split':
        return split(state, cmd);
      case 'Merge':
        return merge(state, cmd);
      case 'Redeem':
        return redeem(state, cmd);
      case 'ConvertPositions':
        return convertPositions(state, cmd);
      case 'JoinNegRiskEvent':
        return joinNegRiskEvent(state, cmd);
      case 'ResolveNegRiskEvent':
        return resolveNegRiskEvent(state, cmd);
      case 'CreateApiKey':
        return createApiKey(state, cmd);
      case 'DeleteApiKey':
        return deleteApiKey(state, cmd);
      case 'AuthorizeSigner':
        return authorizeSigner(state, cmd);
      case 'RevokeSigner':
        return revokeSigner(state, cmd);
      case 'CreateAccessKey':
        return createAccessKey(state, cmd);
      case 'RevokeAccessKey':
        return revokeAccessKey(state, cmd);
      case 'Heartbeat':
        return heartbeat(state, cmd);
      case 'DropNotifications':
        return dropNotifications(state, cmd);
      case 'SetMarketRewards':
        return setMarketRewards(state, cmd);
      case 'EndMarketRewards':
        return endMarketRewards(state, cmd);
      case 'AdvanceTime':
        return;
      default: {
        const unknown: { type?: unknown } = cmd;
        state.reject('unknown', 'INVALID_COMMAND', {}, { detail: `unknown command type ${String(unknown.type)}` });
      }
    }
  }

  /**
   * The earliest deadline of a live heartbeat session (engine time, ms), or undefined: the host submits
   * AdvanceTime just after it, so that a session with no other traffic still expires on time.
   */
  nextHeartbeatDeadline(): number | undefined {
    return this.state.heartbeats.nextDeadline();
  }

  /**
   * Engine time of the rewards sampler's next minute (or of the day's payout when only that is left), or
   * undefined: the host submits AdvanceTime then, so that samples and payouts come on time in a quiet market.
   */
  nextRewardSample(): number | undefined {
    const at = this.state.rewards.nextSampleAt;
    return at === Number.POSITIVE_INFINITY ? undefined : at;
  }

  /** The markets with a rewards program and their terms, by condition id. */
  rewardTerms(): ReadonlyMap<string, RewardProgram> {
    return this.state.rewards.terms;
  }

  /** A market's rewards program now: its terms and adjusted midpoint; undefined without a program. */
  rewardsNow(conditionId: string): RewardsNow | undefined {
    return rewardsNow(this.state, conditionId);
  }

  /** True when a sample taken now would score this open order (false for unknown and finished orders). */
  orderScoring(orderId: string): boolean {
    const order = this.state.live.get(orderId);
    return order !== undefined && orderScoring(this.state, order);
  }

  /** Each maker's share (0..1) of a sample of the market taken now. */
  rewardSharesNow(conditionId: string): Map<string, number> {
    return sharesNow(this.state, conditionId);
  }

  /** The day under way in a rewarded market: its pool and each maker's earnings so far. */
  rewardDaySoFar(conditionId: string): DaySoFar | undefined {
    return daySoFar(this.state, conditionId);
  }

  /** The sample the rewards sampler would take of a market now (midpoint, each maker's scores and share). */
  rewardSampleNow(conditionId: string): SampleNow | undefined {
    return sampleNow(this.state, conditionId);
  }

  /** An account's rewards earned so far in the day under way, by market; undefined when no day is under way. */
  rewardEarningsSoFar(account: string): { readonly day: number; readonly byMarket: Map<string, number> } | undefined {
    return earningsSoFar(this.state, account);
  }

  /** The live heartbeat session of an account: the id its next heartbeat must carry and its deadline. */
  heartbeatSession(account: string): { readonly id: string; readonly deadline: number } | undefined {
    return this.state.heartbeats.live.get(account);
  }

  /** SHA-256 over a canonical rendering of the whole state. Equal states give equal hashes. */
  stateHash(): string {
    return computeStateHash(this.state);
  }

  /** Every broken invariant (see invariants.ts); empty when the state is sound. */
  checkInvariants(): string[] {
    return findViolations(this.state);
  }

  /** Sequence number of the last event emitted. */
  get seq(): number {
    return this.state.seq;
  }

  get now(): number {
    return this.state.now;
  }

  market(conditionId: string): Market | undefined {
    return this.state.markets.get(conditionId);
  }

  marketOfToken(tokenId: string): { market: Market; outcome: Outcome } | undefined {
    return this.state.tokens.get(tokenId);
  }

  markets(): IterableIterator<Market> {
    return this.state.markets.values();
  }

  /** A neg-risk event by its id (upstream's neg-risk market id), with its questions in index order. */
  negRiskEvent(negRiskMarketId: string): NegRiskEvent | undefined {
    return this.state.negRisk.get(negRiskMarketId);
  }

  negRiskEvents(): IterableIterator<NegRiskEvent> {
    return this.state.negRisk.byId.values();
  }

  /** Orders open (resting in a book or waiting to) now. */
  get openOrderCount(): number {
    return this.state.live.size();
  }

  order(orderId: string): Order | undefined {
    return this.state.live.get(orderId);
  }

  openOrders(account: string): Order[] {
    const owner = this.state.ledger.get(account);
    return owner === undefined ? [] : [...owner.orders].sort((a, b) => a.priority - b.priority);
  }

  balances(account: string): Balances | undefined {
    const owner = this.state.ledger.get(account);
    if (owner === undefined) return undefined;
    return { free: owner.free, reserved: owner.reserved, tokens: owner.holdings };
  }

  /** The owner of a live API key; undefined for unknown and deleted keys. */
  apiKey(apiKey: string): ApiKeyOwner | undefined {
    return this.state.apiKeys.live.get(apiKey);
  }

  /** The live API keys of a lower-case address, oldest first. */
  apiKeysOf(address: string): string[] {
    return this.state.apiKeys.keysOf(address);
  }

  /** The key of an (address, nonce) slot and whether it is still live; undefined when the slot is free. */
  apiKeyOfSlot(address: string, nonce: string): { apiKey: string; live: boolean } | undefined {
    const apiKey = this.state.apiKeys.keyOfSlot(address, nonce);
    return apiKey === undefined ? undefined : { apiKey, live: this.state.apiKeys.live.has(apiKey) };
  }

  /** The owner of a live read-only or builder API key; undefined for unknown and revoked keys. */
  accessKey(key: string): AccessKeyOwner | undefined {
    return this.state.accessKeys.live.get(key);
  }

  /** The live keys of one kind of a lower-case address, oldest first, with their creation times (ms). */
  accessKeysOf(kind: AccessKeyKind, address: string): { key: string; createdAt: number }[] {
    const table = this.state.accessKeys;
    return table.keysOf(kind, address).map((key) => ({ key, createdAt: table.live.get(key)?.createdAt ?? 0 }));
  }

  /**
   * True when `signer` is registered to sign orders funded by `maker` (signature types 1 and 2). Both
   * lower-case; a maker signing its own orders (type 0) needs no registration and is never listed.
   */
  signerAuthorized(maker: string, signer: string): boolean {
    return this.state.signers.has(maker, signer);
  }

  /** The signers registered for a lower-case maker, sorted. */
  signersOf(maker: string): string[] {
    return this.state.signers.signersOf(maker);
  }

  /** The book as `tokenId`'s traders see it, best level first, at most `depth` levels a side. */
  book(tokenId: string, depth?: number): TokenBook | undefined {
    const ref = this.state.tokens.get(tokenId);
    if (ref === undefined) return undefined;
    const book = ref.market.book;
    if (ref.outcome === 0) return { market: ref.market, outcome: 0, bids: book.levels(BID, depth), asks: book.levels(ASK, depth) };
    const mirror = (level: PriceLevel): PriceLevel => ({ price: PRICE_ONE - level.price, size: level.size, orders: level.orders });
    return { market: ref.market, outcome: 1, bids: book.levels(ASK, depth).map(mirror), asks: book.levels(BID, depth).map(mirror) };
  }
}
