// The stream publisher: turns durable log records into market- and user-channel events and publishes each
// one once, to its uWS topic (topics.ts). It is a consumer of durable records: `publish` is called with each
// batch right after the engine host made it durable (host/engineHost.ts onDurable), in log order, from the
// engine's thread, and reads the engine only there, when its state is exactly the state at the batch's end.
// A process that follows the log with a replica engine can drive it the same way.
//
// Contract:
// - Nothing is published for a record that is not durable; per token, events leave in log order.
// - price_change is per record (one command): per token, every level whose aggregate size the record
//   changed, with the token's best bid and ask and the `hash` of its book after the record, stamped with
//   the record's time: the hash GET /book gives for that book at that timestamp. The levels are followed
//   from the records themselves (marketLevels.ts), so a batch of commands is as many price changes.
// - Level state is kept only for markets someone watches; it starts from the engine at a durable position
//   (`whenDurable`), so a subscriber's snapshot and the changes after it are of the same log positions:
//   never a book older than one already delivered.
// - User events go to the topics of the API key that owns the order (upstream's `owner`), never another's.
//   The orders of a key are followed only while it has a user connection (`watchKey`, at a durable position,
//   from the engine's open orders with their creation times and trades from `knownOrder`), and those resting
//   in a watched market for its levels: nobody watching costs no state and no work per order.

import type { Engine, EngineEvent, MarketResolved, MarketUpdated, OrderAccepted, PositionsConverted, RewardPaid, TradeExecuted } from '../../engine/index.js';
import type { IndexedMarket } from '../../catalog/marketIndex.js';
import type { LogRecord } from '../../log/eventLog.js';
import { bookSnapshot } from '../clob/bookView.js';
import { transactionHashOf } from '../../projections/readModel/wire.js';
import { ledgerHashOf } from '../../projections/readModel/activity.js';
import { MarketLevels } from './marketLevels.js';
import { bestBidAskEvent, bookEvent, lastTradePriceEvent, marketResolvedEvent, newMarketEvent, priceChangeEvent, tickSizeChangeEvent } from './marketMessages.js';
import { customTokenTopic, NEW_MARKET_TOPIC, resolvedTopic, tokenTopic, userMarketTopic, userTopic, type Fanout } from './topics.js';
import { conversionEvent, orderEvent, tradeEvent, type OrderEventType } from './userMessages.js';
import { rewardEvent } from './rewardMessages.js';
import { NO_TRADES } from '../../projections/builders/orders.js';
import { bookTermsOf, UserOrders, type TrackedOrder } from './userOrders.js';

export interface StreamPublisherOptions {
  /** The engine whose durable batches are published (read only inside publish() and whenDurable tasks). */
  readonly engine: Engine;
  readonly fanout: Fanout;
  /** Catalog facts of a market (labels, question, event) when the catalog index has it. */
  readonly catalog: (conditionId: string) => IndexedMarket | undefined;
  readonly clock: () => number;
  /**
   * What the engine keeps no record of for an open order the publisher starts following from the engine's
   * state (its owner's first user connection, or its market's first subscriber): its creation time (ms) and,
   * when the source holds them, its trade ids so far, from a durable source that holds every open order's
   * (the in-memory read model; the projector's state gives the creation time only). The trades are asked
   * when the owner starts being watched, at that durable position; the creation time also when the order's
   * first event is built while still unknown. Undefined when unknown (the event then carries created_at "0",
   * and the next one asks again).
   */
  readonly knownOrder?: (orderId: string) => { readonly createdAt: number; readonly trades?: readonly string[] } | undefined;
  /** A key was deleted (durably): its user-channel connections must go. */
  readonly onApiKeyDeleted?: (apiKey: string) => void;
}

interface Watched {
  readonly levels: MarketLevels;
  /** Best bid and ask last published per outcome (best_bid_ask goes out when they move). */
  best: [{ bid: number | undefined; ask: number | undefined }, { bid: number | undefined; ask: number | undefined }];
}

const DEFAULT_LABELS: readonly [string, string] = ['Yes', 'No'];

export class StreamPublisher {
  private readonly engine: Engine;
  private readonly fanout: Fanout;
  /** Engine sequence number at the last published batch: the engine is at a durable position when equal. */
  private durableSeq: number;
  private readonly watched = new Map<string, Watched>();
  /** The followed open orders: those of a watched key or resting in a watched market. */
  private readonly orders = new UserOrders();
  /** API keys with user connections, and how many each (watchKey, unwatchKey). */
  private readonly watchedKeys = new Map<string, number>();
  private waiting: (() => void)[] = [];
  /** Watched markets whose levels the record being published moved or whose hash it changed. */
  private readonly touched = new Set<string>();

  constructor(private readonly options: StreamPublisherOptions) {
    this.engine = options.engine;
    this.fanout = options.fanout;
    this.durableSeq = this.engine.seq;
  }

  /** True when the engine holds no command that is not durable yet. */
  get atDurableState(): boolean {
    return this.engine.seq === this.durableSeq;
  }

  /** Runs `task` now if the engine is at a durable position, else right after the next batch is published. */
  whenDurable(task: () => void): void {
    if (this.atDurableState) task();
    else this.waiting.push(task);
  }

  /**
   * Starts following a token's market (levels for price_change, and the orders resting in it, whose fills and
   * cancels move them); call only at a durable position.
   */
  watchToken(tokenId: string): void {
    const found = this.engine.marketOfToken(tokenId);
    if (found === undefined || this.watched.has(found.market.conditionId)) return;
    const levels = MarketLevels.fromEngine(this.engine, found.market.conditionId);
    if (levels === undefined) return;
    for (const side of [0, 1] as const) for (const o of found.market.book.orders(side)) this.orders.follow(o);
    this.watched.set(found.market.conditionId, { levels, best: [levels.best(0), levels.best(1)] });
  }

  /**
   * A user connection of `apiKey` opened: its orders' events are built from now on. The first one's starts
   * following the key's open orders from the engine; call only at a durable position (whenDurable), in the
   * order the connections open and close.
   */
  watchKey(apiKey: string): void {
    const n = this.watchedKeys.get(apiKey) ?? 0;
    this.watchedKeys.set(apiKey, n + 1);
    if (n > 0) return;
    const owner = this.engine.apiKey(apiKey);
    if (owner === undefined) return;
    for (const e of this.engine.openOrders(owner.address)) {
      if (e.owner !== apiKey) continue;
      const o = this.orders.follow(e);
      // At this durable position the source's trade list is the order's whole one (the tracker's may hold
      // only those since its market was first watched).
      const known = this.options.knownOrder?.(o.id);
      if (known === undefined) continue;
      if (o.createdAt === 0) o.createdAt = known.createdAt;
      if (known.trades !== undefined) o.trades = known.trades.length === 0 ? NO_TRADES : [...known.trades];
    }
  }

  /** A user connection of `apiKey` closed (at a durable position, after its watchKey): the last one's stops following its orders. */
  unwatchKey(apiKey: string): void {
    const n = (this.watchedKeys.get(apiKey) ?? 0) - 1;
    if (n > 0) {
      this.watchedKeys.set(apiKey, n);
      return;
    }
    this.watchedKeys.delete(apiKey);
    this.orders.forget((o) => o.owner === apiKey && !this.watched.has(o.conditionId));
  }

  /** Open orders followed now (those of watched keys and watched markets). */
  get followedOrders(): number {
    return this.orders.size;
  }

  /** The market a token belongs to, if any. */
  marketOf(tokenId: string): string | undefined {
    return this.engine.marketOfToken(tokenId)?.market.conditionId;
  }

  /** The `book` events of the known tokens among `tokenIds`, as one JSON array (call at a durable position). */
  snapshotFrame(tokenIds: Iterable<string>): string {
    const now = this.options.clock();
    const parts: string[] = [];
    for (const tokenId of tokenIds) {
      const book = bookSnapshot(this.engine, tokenId, now);
      if (book !== undefined) parts.push(JSON.stringify(bookEvent(book)));
    }
    return `[${parts.join(',')}]`;
  }

  /** Publishes one durable batch (called in log order, before the engine applies the next batch). */
  publish(records: readonly LogRecord[]): void {
    try {
      for (const record of records) this.publishRecord(record);
    } finally {
      // Even if a record could not be published (a bug), the engine is at the batch's end: waiting
      // subscriptions go ahead rather than wait for ever.
      this.durableSeq = this.engine.seq;
      if (this.waiting.length > 0) {
        const tasks = this.waiting;
        this.waiting = [];
        for (const task of tasks) task();
      }
    }
  }

  private publishRecord(record: LogRecord): void {
    this.touched.clear();
    let bucket = 0;
    let placed: TrackedOrder | undefined;
    for (const e of record.events) {
      if (e.type === 'TradeExecuted') this.trade(e, bucket++);
      else if (e.type === 'OrderAccepted') placed = this.accepted(e);
      else this.event(e);
      const cid = conditionIdOf(e);
      if (cid !== undefined && this.watched.has(cid)) this.touched.add(cid);
    }
    // The order the record placed rests once its own matching is done, if it is a GTC/GTD with quantity left.
    if (placed !== undefined && this.orders.isOpen(placed) && (placed.orderType === 'GTC' || placed.orderType === 'GTD')) {
      placed.resting = true;
      this.moveLevel(placed, placed.size - placed.matched);
    }
    for (const cid of this.touched) this.levelChanges(cid, record.command.time);
  }

  private send(topic: string, build: () => Record<string, unknown>): void {
    if (this.fanout.subscribers(topic) === 0) return;
    this.fanout.publish(topic, JSON.stringify(build()));
  }

  private labels(conditionId: string): readonly [string, string] {
    return this.options.catalog(conditionId)?.outcomes ?? DEFAULT_LABELS;
  }

  private event(e: EngineEvent): void {
    switch (e.type) {
      case 'OrderCancelled':
      case 'OrderExpired': {
        const o = this.orders.ended(e);
        if (o === undefined) return;
        if (o.resting) this.moveLevel(o, -(o.size - o.matched));
        o.resting = false;
        this.toOwner(o, 'CANCELLATION', e.time);
        return;
      }
      case 'MarketListed': {
        this.send(NEW_MARKET_TOPIC, () => newMarketEvent(e.conditionId, e.tokenIds, e, this.options.catalog(e.conditionId), e.time));
        // Someone subscribed to its tokens before the market existed: follow it from its (empty) start.
        if (e.tokenIds.some((t) => this.fanout.subscribers(tokenTopic(t)) + this.fanout.subscribers(customTokenTopic(t)) > 0)) {
          const levels = MarketLevels.listed(e.conditionId, e.tokenIds, e);
          this.watched.set(e.conditionId, { levels, best: [levels.best(0), levels.best(1)] });
        }
        return;
      }
      case 'MarketUpdated':
        return this.updated(e);
      case 'MarketResolved':
        return this.resolved(e);
      case 'ApiKeyDeleted':
        this.options.onApiKeyDeleted?.(e.apiKey);
        return;
      case 'PositionsConverted':
        return this.converted(e);
      case 'RewardPaid':
        return this.rewarded(e);
      default:
        return;
    }
  }

  /** A reward credited goes to each live API key of the account: its topic and its market topic of the market. */
  private rewarded(e: RewardPaid): void {
    let json: string | undefined;
    for (const apiKey of this.engine.apiKeysOf(e.account)) {
      for (const topic of [userTopic(apiKey), userMarketTopic(apiKey, e.conditionId)]) {
        if (this.fanout.subscribers(topic) === 0) continue;
        json ??= JSON.stringify(rewardEvent(e, ledgerHashOf(e.seq)));
        this.fanout.publish(topic, json);
      }
    }
  }

  /**
   * A conversion goes to the account's live API keys (it is the account's, not one key's): each key's topic,
   * and its market topic of each question the conversion touched (a connection that filters on several of
   * them gets it once per such market).
   */
  private converted(e: PositionsConverted): void {
    let json: string | undefined;
    const markets = [...e.noConditionIds, ...e.yesConditionIds];
    for (const apiKey of this.engine.apiKeysOf(e.account)) {
      for (const topic of [userTopic(apiKey), ...markets.map((cid) => userMarketTopic(apiKey, cid))]) {
        if (this.fanout.subscribers(topic) === 0) continue;
        json ??= JSON.stringify(conversionEvent(e, (cid, outcome) => this.labels(cid)[outcome], ledgerHashOf(e.seq)));
        this.fanout.publish(topic, json);
      }
    }
  }

  /** Moves an order's open quantity in its market's levels, when someone watches the market. */
  private moveLevel(o: TrackedOrder, delta: number): void {
    const w = this.watched.get(o.conditionId);
    if (w === undefined) return;
    const { bid, price } = bookTermsOf(o);
    w.levels.move(bid, price, delta);
  }

  private accepted(e: OrderAccepted): TrackedOrder | undefined {
    if (!this.watchedKeys.has(e.owner) && !this.watched.has(e.conditionId)) return undefined;
    const o: TrackedOrder = {
      id: e.orderId,
      account: e.account,
      owner: e.owner,
      conditionId: e.conditionId,
      tokenId: e.tokenId,
      outcome: e.outcome,
      side: e.side,
      price: e.price,
      size: e.size,
      matched: 0,
      status: 'LIVE',
      orderType: e.orderType,
      expiration: e.expiration,
      createdAt: e.time,
      trades: NO_TRADES,
      resting: false,
    };
    this.orders.accepted(o);
    this.toOwner(o, 'PLACEMENT', e.time);
    return o;
  }

  private toOwner(o: TrackedOrder, type: OrderEventType, time: number): void {
    if (!this.watchedKeys.has(o.owner)) return;
    const label = this.labels(o.conditionId)[o.outcome];
    let json: string | undefined;
    for (const topic of [userTopic(o.owner), userMarketTopic(o.owner, o.conditionId)]) {
      if (this.fanout.subscribers(topic) === 0) continue;
      if (o.createdAt === 0) o.createdAt = this.options.knownOrder?.(o.id)?.createdAt ?? 0;
      json ??= JSON.stringify(orderEvent(o, type, label, time));
      this.fanout.publish(topic, json);
    }
  }

  private trade(e: TradeExecuted, bucket: number): void {
    // Hashed only when some subscriber is sent the trade (a SHA-256 per trade otherwise spent for nobody).
    let hashed: string | undefined;
    const txHash = (): string => (hashed ??= transactionHashOf(e.tradeId));
    const tokens = this.engine.market(e.conditionId)?.tokenIds;
    if (tokens !== undefined) {
      for (const outcome of [0, 1] as const) this.send(tokenTopic(tokens[outcome]), () => lastTradePriceEvent(e, outcome, tokens[outcome], txHash()));
    }
    const labels = this.labels(e.conditionId);
    for (const [side, traderSide] of [[e.taker, 'TAKER'], [e.maker, 'MAKER']] as const) {
      if (!this.watchedKeys.has(side.owner)) continue;
      let json: string | undefined;
      for (const topic of [userTopic(side.owner), userMarketTopic(side.owner, e.conditionId)]) {
        if (this.fanout.subscribers(topic) === 0) continue;
        json ??= JSON.stringify(tradeEvent(e, bucket, traderSide, labels, txHash()));
        this.fanout.publish(topic, json);
      }
    }
    for (const side of [e.taker, e.maker]) {
      const o = this.orders.filled(side.orderId, e.size, e.tradeId);
      if (o === undefined) continue;
      if (o.resting) this.moveLevel(o, -e.size);
      if (o.status !== 'LIVE') o.resting = false;
      this.toOwner(o, 'UPDATE', e.time);
    }
    const w = this.watched.get(e.conditionId);
    if (w !== undefined) w.levels.lastTrade = e.price;
  }

  private updated(e: MarketUpdated): void {
    const w = this.watched.get(e.conditionId);
    if (w !== undefined) w.levels.params = { tickSize: e.tickSize, minSize: e.minSize, makerFeeBps: e.makerFeeBps, takerFeeBps: e.takerFeeBps, negRisk: e.negRisk };
    if (e.tickSize === e.previous.tickSize) return;
    const tokens = this.engine.market(e.conditionId)?.tokenIds;
    if (tokens === undefined) return;
    for (const tokenId of tokens) this.send(tokenTopic(tokenId), () => tickSizeChangeEvent(e.conditionId, tokenId, e.previous, e, e.time));
  }

  private resolved(e: MarketResolved): void {
    const tokens = this.engine.market(e.conditionId)?.tokenIds;
    if (tokens === undefined) return;
    this.send(resolvedTopic(e.conditionId), () => marketResolvedEvent(e, tokens, this.options.catalog(e.conditionId)));
  }

  /** price_change and best_bid_ask of a watched market after a record; forgets it once nobody watches. */
  private levelChanges(conditionId: string, time: number): void {
    const w = this.watched.get(conditionId);
    if (w === undefined) return;
    const { levels } = w;
    const watchers = levels.tokens.map((t) => this.fanout.subscribers(tokenTopic(t)) + this.fanout.subscribers(customTokenTopic(t)));
    if (watchers[0] === 0 && watchers[1] === 0) {
      this.watched.delete(conditionId);
      this.orders.forget((o) => o.conditionId === conditionId && !this.watchedKeys.has(o.owner));
      return;
    }
    if (!levels.changed) return;
    const changes = levels.takeChanges();
    for (const outcome of [0, 1] as const) {
      const tokenId = levels.tokens[outcome];
      const best = levels.best(outcome);
      const was = w.best[outcome];
      w.best[outcome] = best;
      if (watchers[outcome] === 0) continue;
      if (changes[outcome].length > 0) {
        this.send(tokenTopic(tokenId), () => priceChangeEvent(conditionId, tokenId, time, changes[outcome], { hash: levels.snapshot(outcome, time).hash, bid: best.bid, ask: best.ask }));
      }
      if (was.bid !== best.bid || was.ask !== best.ask) this.send(customTokenTopic(tokenId), () => bestBidAskEvent(conditionId, tokenId, time, best.bid, best.ask));
    }
  }
}

/** The market an event is about, when it can change a book's levels or its hash. */
function conditionIdOf(e: EngineEvent): string | undefined {
  switch (e.type) {
    case 'OrderAccepted':
    case 'TradeExecuted':
    case 'OrderCancelled':
    case 'OrderExpired':
    case 'MarketUpdated':
    case 'MarketResolved':
      return e.conditionId;
    default:
      return undefined;
  }
}
