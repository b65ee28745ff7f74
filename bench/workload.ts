// The benchmark workload, generated before any timing from one seed.
//
// Generation drives a private generator engine, so every choice can look at the real book: limit orders
// are placed around a drifting fair value, ~30% of them priced through the opposite best (crossing),
// cancels pick orders that are actually resting, FOK sizes fit the depth within their limit. The timed runs
// replay exactly these commands on fresh engines, which must reproduce the generator's sequence number and
// resting count. Every command has its peer twin in outcome 0's (book) terms: an outcome-1 BUY at q is a
// peer SELL at 1 - q, and so on, so both books hold the same levels throughout.

import { Engine, LOT, PRICE_ONE, UNIT, type Command, type PlaceOrder } from '../engine/index.js';
import { Rng, address, hash66, tokenId } from './prng.js';
import { peerCancel, peerLimit, peerMarket, type PeerOp } from './peer.js';

/** Tick of every benchmark market (0.01). */
export const TICK = 10_000;
/** Engine time of the setup commands; operation i runs at T0 + 1 + i (ms). */
export const T0 = 1_700_000_000_000;

export interface WorkloadConfig {
  readonly seed: number;
  readonly ops: number;
  readonly markets: number;
  readonly accounts: number;
  /** Resting orders per market the cancel rate steers towards (the book is seeded with this many). */
  readonly restingTarget: number;
  /** Fraction of limit orders priced through the opposite best. */
  readonly crossFraction: number;
  /** Fraction of operations that are marketable orders (FAK sweeps and FOK). */
  readonly marketableFraction: number;
  /** dedupeUntil = time + this (ms); 0 = the order's own time, so finished ids are not remembered. */
  readonly dedupeMs: number;
}

export interface MarketIds {
  readonly conditionId: string;
  readonly yes: string;
  readonly no: string;
}

export interface Universe {
  readonly markets: readonly MarketIds[];
  readonly accounts: readonly string[];
  /** ListMarket, Deposit and Split commands. */
  readonly commands: readonly Command[];
}

/** Markets and funded accounts, each holding collateral and YES/NO tokens of every market. */
export function makeUniverse(rng: Rng, markets: number, accounts: number, depositPerAccount: number, splitPerMarket: number): Universe {
  const ms: MarketIds[] = [];
  const commands: Command[] = [];
  for (let i = 0; i < markets; i++) {
    const m = { conditionId: hash66(rng), yes: tokenId(rng), no: tokenId(rng) };
    ms.push(m);
    commands.push({
      type: 'ListMarket', time: T0, conditionId: m.conditionId, tokenIds: [m.yes, m.no],
      tickSize: TICK, minSize: LOT, makerFeeBps: 0, takerFeeBps: 0, negRisk: false,
    });
  }
  const accs: string[] = [];
  for (let i = 0; i < accounts; i++) {
    const account = address(rng);
    accs.push(account);
    commands.push({ type: 'Deposit', time: T0, account, amount: depositPerAccount });
    for (const m of ms) commands.push({ type: 'Split', time: T0, account, conditionId: m.conditionId, amount: splitPerMarket });
  }
  return { markets: ms, accounts: accs, commands };
}

/**
 * A PlaceOrder for a book-side order: `bid` and `bookPrice` are in outcome 0's terms; `yes` picks the
 * token (an outcome-1 order is the mirror: bid = SELL of NO at 1 - bookPrice, ask = BUY of NO).
 */
export function placeCommand(
  time: number, dedupeUntil: number, orderId: string, account: string, market: MarketIds,
  bid: boolean, bookPrice: number, size: number, yes: boolean, orderType: PlaceOrder['orderType'],
): PlaceOrder {
  const buy = yes ? bid : !bid;
  const price = yes ? bookPrice : PRICE_ONE - bookPrice;
  const cash = (size / LOT) * (price / 100); // exact: whole lots × a multiple of 0.0001
  return {
    type: 'PlaceOrder', time, orderId, account, owner: account, tokenId: yes ? market.yes : market.no,
    side: buy ? 'BUY' : 'SELL',
    makerAmount: buy ? cash : size,
    takerAmount: buy ? size : cash,
    orderType, postOnly: false, expiration: 0, dedupeUntil,
  };
}

/** Resting orders of one market as the generator sees them, for picking cancel targets. */
class LiveSet {
  readonly ids: string[] = [];
  readonly accounts: string[] = [];
  private readonly index = new Map<string, number>();

  get size(): number {
    return this.ids.length;
  }

  add(id: string, account: string): void {
    this.index.set(id, this.ids.length);
    this.ids.push(id);
    this.accounts.push(account);
  }

  remove(id: string): void {
    const at = this.index.get(id);
    if (at === undefined) return;
    this.index.delete(id);
    const lastId = this.ids.pop() as string;
    const lastAccount = this.accounts.pop() as string;
    if (at < this.ids.length) {
      this.ids[at] = lastId;
      this.accounts[at] = lastAccount;
      this.index.set(lastId, at);
    }
  }
}

export interface WorkloadStats {
  limits: number;
  crossingLimits: number;
  cancels: number;
  fak: number;
  fok: number;
  fills: number;
  orderRejected: number;
  cancelRejected: number;
  rejectCodes: Record<string, number>;
}

export interface Workload {
  readonly universe: Universe;
  /** Untimed setup for our engine: the universe, then the seed liquidity. */
  readonly setup: readonly Command[];
  /** Untimed setup for the peer: the same seed liquidity. */
  readonly peerSetup: readonly PeerOp[];
  /** The timed operations, ours and the peer's twins. */
  readonly ops: readonly Command[];
  readonly peerOps: readonly PeerOp[];
  readonly stats: WorkloadStats;
  /** What a replay must reproduce: the last event sequence number and the resting count. */
  readonly expectedSeq: number;
  readonly expectedResting: number;
}

const MAX_BOOK_PRICE = PRICE_ONE - TICK;

export function generateWorkload(cfg: WorkloadConfig): Workload {
  const rng = new Rng(cfg.seed);
  // 1M USDC per account; 100k of it split into YES + NO of every market.
  const universe = makeUniverse(rng, cfg.markets, cfg.accounts, 1_000_000 * UNIT, 100_000 * UNIT);
  const gen = new Engine();
  for (const cmd of universe.commands) {
    for (const e of gen.apply(cmd)) if (e.type === 'CommandRejected') throw new Error(`setup refused: ${e.message}`);
  }
  const lives = universe.markets.map(() => new LiveSet());
  const fair = universe.markets.map(() => PRICE_ONE / 2);
  const stats: WorkloadStats = { limits: 0, crossingLimits: 0, cancels: 0, fak: 0, fok: 0, fills: 0, orderRejected: 0, cancelRejected: 0, rejectCodes: {} };

  const setup: Command[] = [...universe.commands];
  const peerSetup: PeerOp[] = [];
  const ops: Command[] = [];
  const peerOps: PeerOp[] = [];

  /** Applies a command to the generator engine and updates what it knows of the resting orders. */
  const run = (m: number, cmd: Command): void => {
    const live = lives[m] as LiveSet;
    for (const e of gen.apply(cmd)) {
      switch (e.type) {
        case 'OrderRejected':
          stats.orderRejected += 1;
          stats.rejectCodes[e.code] = (stats.rejectCodes[e.code] ?? 0) + 1;
          break;
        case 'CancelRejected':
          stats.cancelRejected += 1;
          break;
        case 'TradeExecuted':
          stats.fills += 1;
          if (e.maker.remaining === 0) live.remove(e.maker.orderId);
          break;
        case 'OrderCancelled':
          live.remove(e.orderId);
          break;
        default:
          break;
      }
    }
    if (cmd.type === 'PlaceOrder' && gen.order(cmd.orderId) !== undefined) live.add(cmd.orderId, cmd.account);
  };

  const account = (): string => universe.accounts[rng.int(universe.accounts.length)] as string;
  const isYes = (): boolean => rng.next() < 0.75;

  /** A GTC limit order: crossing with probability `crossP` when the other side has orders. */
  const limit = (m: number, time: number, crossP: number): [Command, PeerOp] => {
    const market = universe.markets[m] as MarketIds;
    const top = gen.book(market.yes, 1);
    const bestBid = top?.bids[0]?.price;
    const bestAsk = top?.asks[0]?.price;
    const bid = rng.next() < 0.5;
    const wantCross = rng.next() < crossP;
    const fv = fair[m] as number;
    let price: number;
    if (wantCross && bid && bestAsk !== undefined) price = Math.min(bestAsk + rng.int(3) * TICK, MAX_BOOK_PRICE);
    else if (wantCross && !bid && bestBid !== undefined) price = Math.max(bestBid - rng.int(3) * TICK, TICK);
    else {
      const offset = rng.geometric(0.7, 20) * TICK;
      price = bid ? Math.min(fv, (bestAsk ?? PRICE_ONE) - TICK) - offset : Math.max(fv, (bestBid ?? 0) + TICK) + offset;
      price = Math.min(Math.max(price, TICK), MAX_BOOK_PRICE);
    }
    const crossing = bid ? bestAsk !== undefined && price >= bestAsk : bestBid !== undefined && price <= bestBid;
    stats.limits += 1;
    if (crossing) stats.crossingLimits += 1;
    const size = rng.logUniform(100, 20_000) * LOT; // 1 to 200 shares
    const id = hash66(rng);
    const cmd = placeCommand(time, time + cfg.dedupeMs, id, account(), market, bid, price, size, isYes(), 'GTC');
    return [cmd, peerLimit(m, id, bid, size, price / PRICE_ONE, false)];
  };

  // Seed every market with resting liquidity around the fair value (part of the untimed setup).
  for (let i = 0; i < cfg.restingTarget; i++) {
    for (let m = 0; m < cfg.markets; m++) {
      const [cmd, peer] = limit(m, T0, 0);
      run(m, cmd);
      setup.push(cmd);
      peerSetup.push(peer);
    }
  }
  const seeded = { ...stats };
  if (seeded.orderRejected !== 0) throw new Error(`seeding: ${seeded.orderRejected} orders rejected: ${JSON.stringify(stats.rejectCodes)}`);

  for (let i = 0; i < cfg.ops; i++) {
    const time = T0 + 1 + i;
    const m = rng.int(cfg.markets);
    const market = universe.markets[m] as MarketIds;
    const live = lives[m] as LiveSet;
    if (rng.next() < 0.02) fair[m] = Math.min(Math.max((fair[m] as number) + (rng.next() < 0.5 ? -TICK : TICK), 30 * TICK), 70 * TICK);
    const pCancel = live.size > 1.2 * cfg.restingTarget ? 0.5 : live.size < 0.8 * cfg.restingTarget ? 0.15 : 0.3;
    const r = rng.next();
    let cmd: Command | undefined;
    let peer: PeerOp | undefined;
    if (r < cfg.marketableFraction) {
      const bid = rng.next() < 0.5;
      const fok = rng.next() < 1 / 3;
      const top = gen.book(market.yes, 2);
      const against = bid ? top?.asks : top?.bids;
      const first = against?.[0];
      let size = rng.logUniform(100, 5_000) * LOT; // 1 to 50 shares
      const id = hash66(rng);
      if (first !== undefined && !fok) {
        // FAK at the far end of the book: a market order with a price bound that never binds.
        stats.fak += 1;
        cmd = placeCommand(time, time + cfg.dedupeMs, id, account(), market, bid, bid ? MAX_BOOK_PRICE : TICK, size, isYes(), 'FAK');
        peer = peerMarket(m, bid, size);
      } else if (first !== undefined) {
        // FOK one tick through the best, sized to what the levels within its limit hold.
        const limitPrice = bid ? Math.min(first.price + TICK, MAX_BOOK_PRICE) : Math.max(first.price - TICK, TICK);
        let available = 0;
        for (const level of against ?? []) if (bid ? level.price <= limitPrice : level.price >= limitPrice) available += level.size;
        size = Math.min(size, available - (available % LOT));
        if (size > 0) {
          stats.fok += 1;
          cmd = placeCommand(time, time + cfg.dedupeMs, id, account(), market, bid, limitPrice, size, isYes(), 'FOK');
          peer = peerLimit(m, id, bid, size, limitPrice / PRICE_ONE, true);
        }
      }
    } else if (r < cfg.marketableFraction + pCancel && live.size > 0) {
      const at = rng.int(live.size);
      const id = live.ids[at] as string;
      stats.cancels += 1;
      cmd = { type: 'CancelOrder', time, orderId: id, account: live.accounts[at] as string };
      peer = peerCancel(m, id);
    }
    if (cmd === undefined || peer === undefined) [cmd, peer] = limit(m, time, cfg.crossFraction);
    run(m, cmd);
    ops.push(cmd);
    peerOps.push(peer);
  }

  // Report the timed part only.
  const timed: WorkloadStats = {
    limits: stats.limits - seeded.limits,
    crossingLimits: stats.crossingLimits - seeded.crossingLimits,
    cancels: stats.cancels,
    fak: stats.fak,
    fok: stats.fok,
    fills: stats.fills - seeded.fills,
    orderRejected: stats.orderRejected - seeded.orderRejected,
    cancelRejected: stats.cancelRejected,
    rejectCodes: stats.rejectCodes,
  };
  return { universe, setup, peerSetup, ops, peerOps, stats: timed, expectedSeq: gen.seq, expectedResting: gen.state.live.size() };
}
