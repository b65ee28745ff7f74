// Demo traders: a market maker and a few takers that trade the demo catalog's markets so that a fresh
// `npm start` shows a live exchange (books with depth, trades, moving prices, price history). They are
// ordinary clients: the official CLOB client (@polymarket/clob-client-v2) against the service's public port,
// with API keys made over L1, signed V2 orders and L2 headers, exactly as outside traders connect. Only their
// funding takes the operator's path inside the service (Deposit and Split commands through the engine host),
// as a venue's operator credits a trader's deposit, and they read the markets and their balances from the
// engine (demoVenue.ts). They run on a thread of their own (demoThread.ts): their signing and their client's
// work never take the request thread's turns.
//
// The maker quotes every open demo market. The questions of a neg-risk event are quoted together, around
// fair prices that add up to 1 (the event's outcomes are exclusive, one wins), so the YES midpoints of an event
// sum to about 1 (within the maker's spread, a tick a side). It quotes YES only, and holds YES: for a neg-risk
// event it splits full sets and converts the NO halves back (POST /convert, L2-signed like any client's call),
// which holds YES of every question for the price of one set, and later NO likewise.
//
// Prices move with the trades: the maker leans its fair price toward the flow (a fill that bought YES or sold NO
// raises it, LEAN_PER_SHARE a share and at least a tick; the reverse lowers it) besides a small random drift, and
// each ladder centres on the fair price, so the midpoint, the marks and the price history follow the trades.
//
// Wallets are derived from the API keys' master secret, so after a restart the same traders resume: the
// maker cancels what it left open and quotes every market once. Load is bounded: each quote cycle refreshes
// one market, or one event's questions, signing a fresh ladder (QUOTE_LEVELS a side) per market, posting it as
// one batch and then cancelling the old one; one taker order a taker tick.

import { ClobClient, OrderType, Side, createL2Headers, type ApiKeyCreds, type OrderResponse } from '@polymarket/clob-client-v2';
import { Wallet, keccak256, toUtf8Bytes, concat } from 'ethers';
import { PRICE_ONE } from '../engine/index.js';
import type { DemoEvent, DemoMarket, DemoVenue } from './demoVenue.js';
import { buildDemoCatalog } from '../catalog/demo/buildDemoCatalog.js';
import { stringArrayOf } from '../catalog/upstream/gammaValues.js';

export interface DemoTraderOptions {
  /** The service's CLOB surface, e.g. http://127.0.0.1:8080/clob. */
  readonly clobUrl: string;
  readonly chainId: number;
  /** The markets, the traders' balances and their funding (demoVenue.ts). */
  readonly venue: DemoVenue;
  /** Derives the traders' wallets (the API keys' master secret). */
  readonly seed: Uint8Array;
  /** Where a failed round of a trader is told (it tries again at its next turn). */
  readonly logger: DemoLog;
  /** How many markets the maker quotes (default: every active market the engine has; a number: the first ones). */
  readonly markets?: number;
  readonly takers?: number;
  /** ms between two quote cycles (each refreshes one market); takers act about every 2× this. */
  readonly cycleMs?: number;
}

/** The one level the traders log at: a round that failed, which the next one retries. */
export interface DemoLog {
  debug(fields: { readonly err: unknown }, message: string): void;
}

export interface DemoTraders {
  readonly markets: readonly string[];
  /** Orders per second the traders post at most (quotes and taker orders). */
  readonly ordersPerSecond: number;
  stop(): Promise<void>;
}

const QUOTE_LEVELS = 3;
const MAKER_COLLATERAL = 50_000_000_000; // 50,000 USDC in base units
const MAKER_INVENTORY = 20_000_000_000; // 20,000 of each outcome token per market
const TAKER_COLLATERAL = 5_000_000_000;
const TAKER_INVENTORY = 2_000_000_000;
/** How far a taker's fill moves the maker's fair price, per share (0.02 per 100 shares; at least a tick a fill). */
const LEAN_PER_SHARE = 0.0002;

/** The official client's signer shape (ethers v5 style) over an ethers v6 wallet. */
function clientSigner(wallet: Wallet): { _signTypedData: Wallet['signTypedData']; getAddress: () => Promise<string> } {
  return {
    _signTypedData: (domain, types, value) => {
      const { EIP712Domain: _unused, ...rest } = types as Record<string, unknown>;
      return wallet.signTypedData(domain, rest as Parameters<Wallet['signTypedData']>[1], value);
    },
    getAddress: async () => wallet.address,
  };
}

interface Trader {
  readonly name: string;
  readonly wallet: Wallet;
  readonly account: string;
  client: ClobClient;
  creds: ApiKeyCreds;
}

/** Markets quoted together: one market, or the questions of a neg-risk event (`event`: all of them are here). */
interface Group {
  readonly markets: readonly DemoMarket[];
  readonly event: DemoEvent | undefined;
}

/** Outcome 0's price of each demo market while open, as the demo catalog gives it. */
function catalogPrices(): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of buildDemoCatalog().markets) {
    const price = Number(stringArrayOf(m.outcomePrices)?.[0]);
    if (m.closed !== true && price > 0 && price < 1) out.set(String(m.conditionId), price);
  }
  return out;
}

function tickOf(market: DemoMarket): number {
  return market.tickSize / PRICE_ONE;
}

/** A price at least 2 ticks (and 0.02) from 0 and 1, so that both sides of the ladder have levels. */
function offEdges(m: DemoMarket, p: number): number {
  const margin = Math.max(2 * tickOf(m), 0.02);
  return Math.min(1 - margin, Math.max(margin, p));
}

function roundTo(value: number, tick: number): number {
  const steps = Math.round(value / tick);
  return Number((steps * tick).toFixed(6));
}

export async function startDemoTraders(options: DemoTraderOptions): Promise<DemoTraders> {
  const { venue, logger } = options;
  const cycleMs = options.cycleMs ?? 1000;
  const open = (await venue.markets()).filter((m) => m.status === 'active');
  const markets = options.markets === undefined ? open : open.slice(0, options.markets);
  const groups = await groupsOf(venue, markets);
  /** Each quoted market's status as the engine last gave it (refreshed every quote cycle): a paused or resolved one is not traded. */
  const status = new Map(markets.map((m) => [m.conditionId, m.status]));
  const refreshStatus = async (): Promise<void> => {
    for (const m of await venue.markets()) if (status.has(m.conditionId)) status.set(m.conditionId, m.status);
  };
  const active = (m: DemoMarket): boolean => status.get(m.conditionId) === 'active';
  const groupOf = new Map(groups.flatMap((g) => g.markets.map((m) => [m.conditionId, g] as const)));
  const rng = Math.random;
  const prices = catalogPrices();
  const fair = new Map(markets.map((m) => [m.conditionId, offEdges(m, m.lastTradePrice !== null ? m.lastTradePrice / PRICE_ONE : (prices.get(m.conditionId) ?? 0.2 + rng() * 0.6))]));
  for (const g of groups) if (g.event !== undefined) normalise(g);

  const makeTrader = async (name: string, collateral: number, inventory: number): Promise<Trader> => {
    const wallet = new Wallet(keccak256(concat([options.seed, toUtf8Bytes(`pmx demo trader ${name}`)])));
    const account = wallet.address.toLowerCase();
    const signer = clientSigner(wallet) as never;
    const signIn = new ClobClient({ host: options.clobUrl, chain: options.chainId, signer, throwOnError: false });
    const creds = (await signIn.createOrDeriveApiKey()) as ApiKeyCreds;
    if (typeof creds?.key !== 'string') throw new Error(`demo trader ${name}: could not create or derive its API key`);
    const client = new ClobClient({ host: options.clobUrl, chain: options.chainId, signer, creds, throwOnError: false });
    const trader = { name, wallet, account, client, creds };
    await fund(trader, collateral, inventory);
    return trader;
  };

  /**
   * Tops the account up to `collateral` and each market's tokens to `inventory` (operator path); the maker then
   * converts the NO it holds in each neg-risk event back into YES of the other questions and collateral.
   */
  const fund = async (trader: Trader, collateral: number, inventory: number): Promise<void> => {
    const { account } = trader;
    // One read serves both: a deposit changes no token balance.
    const { free, tokens } = await venue.balances(account);
    const need = collateral + inventory * markets.length;
    if (free < need) await venue.fund({ type: 'Deposit', account, amount: need - free });
    const maker = trader.name === 'maker';
    const tokensOf = (tokenId: string): number => tokens[tokenId] ?? 0;
    for (const m of markets) {
      // The maker holds YES only in an event (its NO converts), so YES alone says what it has.
      const inEvent = maker && m.negRiskMarketId !== null;
      const held = inEvent ? tokensOf(m.tokenIds[0]) : Math.min(...m.tokenIds.map(tokensOf));
      if (active(m) && held < inventory / 2) await venue.fund({ type: 'Split', account, conditionId: m.conditionId, amount: inventory - held });
    }
    if (maker) for (const g of groups) if (g.event !== undefined) await convertNo(trader, g.event.id);
  };

  /** Converts the NO the trader holds in the event's questions (those it holds most of first), through POST /convert. */
  const convertNo = async (trader: Trader, eventId: string): Promise<void> => {
    for (let round = 0; ; round++) {
      const event = await venue.event(eventId);
      if (event === undefined || round >= event.questions.length) return;
      if (event.questions.some((q) => q.status === 'resolved')) return;
      const { tokens } = await venue.balances(trader.account);
      const noOf = (q: DemoMarket): number => tokens[q.tokenIds[1]] ?? 0;
      const held = event.questions.filter((q) => noOf(q) >= 1_000_000);
      if (held.length === 0) return;
      const amount = Math.min(...held.map(noOf));
      const indexSet = held.reduce((bits, q) => bits | (1n << BigInt(q.questionIndex)), 0n).toString();
      const body = JSON.stringify({ negRiskMarketId: event.id, indexSet, amount: String(amount) });
      const headers = await createL2Headers(clientSigner(trader.wallet) as never, trader.creds, { method: 'POST', requestPath: '/convert', body });
      const res = await fetch(`${options.clobUrl}/convert`, { method: 'POST', headers: { ...(headers as unknown as Record<string, string>), 'content-type': 'application/json' }, body });
      if (!res.ok) throw new Error(`the maker's conversion was refused: ${res.status} ${await res.text()}`);
    }
  };

  const maker = await makeTrader('maker', MAKER_COLLATERAL, MAKER_INVENTORY);
  const takers: Trader[] = [];
  for (let i = 0; i < (options.takers ?? 3); i++) takers.push(await makeTrader(`taker-${i + 1}`, TAKER_COLLATERAL, TAKER_INVENTORY));
  await maker.client.cancelAll();

  /** The maker's resting ladder per market: the ids of the orders it last posted there. */
  const ladders = new Map<string, string[]>();
  /** The price each market's ladder was last centred on. */
  const centres = new Map<string, number>();
  /** Moves each fair price of a group by up to 1.5 ticks at random (an event's then add up to 1 again). */
  const drift = (g: Group): void => {
    for (const m of g.markets) {
      const tick = tickOf(m);
      fair.set(m.conditionId, (fair.get(m.conditionId) ?? 0.5) + (rng() - 0.5) * 3 * tick);
    }
    settle(g);
  };

  /** After a group's fair prices moved: an event's add up to 1 again, and every one stays off the edges. */
  const settle = (g: Group): void => {
    if (g.event !== undefined) normalise(g);
    else for (const m of g.markets) fair.set(m.conditionId, offEdges(m, fair.get(m.conditionId) ?? 0.5));
  };

  /**
   * The maker leans toward the flow: a taker's fill of `shares` in `m` that bought YES (or sold NO),
   * `up`, raises its fair price there by LEAN_PER_SHARE a share, at least a tick; the reverse lowers it.
   */
  const lean = (m: DemoMarket, up: boolean, shares: number): void => {
    const move = Math.max(tickOf(m), shares * LEAN_PER_SHARE);
    fair.set(m.conditionId, (fair.get(m.conditionId) ?? 0.5) + (up ? move : -move));
    const g = groupOf.get(m.conditionId);
    if (g !== undefined) settle(g);
  };


  /**
   * Sets an event's fair prices to add up to 1, each off the edges (offEdges): scaled to a sum of 1, kept off
   * the edges, and what that moved taken from the largest price.
   */
  function normalise(g: Group): void {
    const sum = g.markets.reduce((n, m) => n + Math.max(0.001, fair.get(m.conditionId) ?? 0), 0);
    for (const m of g.markets) fair.set(m.conditionId, offEdges(m, Math.max(0.001, fair.get(m.conditionId) ?? 0) / sum));
    const largest = g.markets.reduce((a, b) => ((fair.get(b.conditionId) ?? 0) > (fair.get(a.conditionId) ?? 0) ? b : a));
    const excess = g.markets.reduce((n, m) => n + (fair.get(m.conditionId) ?? 0), 0) - 1;
    fair.set(largest.conditionId, (fair.get(largest.conditionId) ?? 0) - excess);
  }

  /** Replaces the maker's quotes in `m` with a fresh ladder around its fair price. */
  const quote = async (m: DemoMarket): Promise<void> => {
    if (!active(m)) return;
    const tick = tickOf(m);
    // The ladder's centre, on the tick, follows the fair price a tick at a time: a new bid is then below every
    // old ask and a new ask above every old bid, so the post-only ladder never crosses the one it replaces.
    const target = roundTo(fair.get(m.conditionId) ?? 0.5, tick);
    const previous = centres.get(m.conditionId) ?? target;
    const p = roundTo(previous + Math.max(-tick, Math.min(tick, target - previous)), tick);
    centres.set(m.conditionId, p);
    const [yes] = m.tokenIds;
    const orders = [];
    const minShares = m.minSize / 1_000_000;
    // 100–300 shares a level, so a side holds at least 100 (a price near 0 or 1 has one level on its near side):
    // takers between two quotes of a market do not empty it (a taker order is at most about 30 shares).
    for (let level = 1; level <= QUOTE_LEVELS; level++) {
      const size = Math.max(minShares, Math.round(100 + rng() * 200));
      const bid = roundTo(p - level * tick, tick);
      const ask = roundTo(p + level * tick, tick);
      if (bid > 0) orders.push(await maker.client.createOrder({ tokenID: yes, price: bid, size, side: Side.BUY }));
      if (ask < 1) orders.push(await maker.client.createOrder({ tokenID: yes, price: ask, size, side: Side.SELL }));
    }
    // The new ladder rests before the old one is cancelled, so that the book is never empty (a client reading
    // it between a cancel and a post would see no quotes: the README tour's market buy then finds no match).
    // Post-only: a level that would cross the book (another trader's order) is refused rather than trading;
    // the next cycle quotes it again.
    const posted: unknown = await maker.client.postOrders(orders.map((order) => ({ order, orderType: OrderType.GTC })), true);
    if (!Array.isArray(posted)) throw new Error(`the maker's ladder was refused: ${JSON.stringify(posted)}`);
    const old = ladders.get(m.conditionId) ?? [];
    const fresh = (posted as OrderResponse[]).filter((r) => r.success && r.orderID !== '').map((r) => r.orderID);
    // Until the cancel is answered the old ladder may still rest: it stays listed, to be cancelled next cycle.
    ladders.set(m.conditionId, [...fresh, ...old]);
    if (old.length === 0) return;
    const cancelled: unknown = await maker.client.cancelOrders(old);
    if (typeof cancelled === 'object' && cancelled !== null && 'canceled' in cancelled) ladders.set(m.conditionId, fresh);
  };

  const quoteGroup = async (g: Group): Promise<void> => {
    drift(g);
    for (const m of g.markets) await quote(m);
  };

  /** One taker order: buys or sells a random outcome at the market, a few shares, fill-and-kill. */
  const take = async (taker: Trader): Promise<void> => {
    const m = markets[Math.floor(rng() * markets.length)];
    if (m === undefined || !active(m)) return;
    const outcome = rng() < 0.5 ? 0 : 1;
    const token = m.tokenIds[outcome];
    const buy = rng() < 0.5;
    const shares = Math.max(m.minSize / 1_000_000, Math.round(5 + rng() * 25));
    // A buy spends about `shares` tokens' worth at the token's fair price, so it takes at most ~30 tokens even
    // where the price is a few cents (the maker's side holds at least 100 a level).
    const yes = fair.get(m.conditionId) ?? 0.5;
    const price = Math.min(0.99, (outcome === 0 ? yes : 1 - yes) + tickOf(m));
    const order = buy
      ? await taker.client.createMarketOrder({ tokenID: token, amount: Math.max(1, Number((shares * price).toFixed(2))), side: Side.BUY })
      : await taker.client.createMarketOrder({ tokenID: token, amount: shares, side: Side.SELL });
    const res = (await taker.client.postOrder(order, OrderType.FAK)) as Partial<OrderResponse> | undefined;
    const filled = Number((buy ? res?.takingAmount : res?.makingAmount) ?? 0);
    if (res?.status === 'matched' && filled > 0) lean(m, (outcome === 0) === buy, filled);
  };

  // Every market gets its ladder at once, so that no demo book is empty while the cycle comes round to it; the
  // cycle then starts one period later, with the group quoted first.
  for (const g of groups) {
    for (const m of g.markets) {
      try {
        await quote(m);
      } catch (error) {
        logger.debug({ err: error }, 'demo maker failed');
      }
    }
  }

  let stopped = false;
  const loops: Promise<void>[] = [];
  /** Runs `act` every `ms()` until stopped; with `waitFirst`, the first run too waits one period. */
  const every = (what: string, ms: () => number, act: () => Promise<void>, waitFirst = false): void => {
    loops.push(
      (async () => {
        if (waitFirst) await new Promise((resolve) => setTimeout(resolve, ms()));
        while (!stopped) {
          try {
            await act();
          } catch (error) {
            logger.debug({ err: error }, `demo ${what} failed`);
          }
          await new Promise((resolve) => setTimeout(resolve, ms()));
        }
      })(),
    );
  };
  let next = 0;
  every('maker', () => cycleMs, async () => {
    await refreshStatus();
    const g = groups[next++ % groups.length];
    if (g !== undefined) await quoteGroup(g);
    if (next % (groups.length * 10) === 0) await fund(maker, MAKER_COLLATERAL, MAKER_INVENTORY);
  }, true);
  takers.forEach((taker, i) => {
    let n = 0;
    every(taker.name, () => cycleMs * (1.5 + rng() + i * 0.25), async () => {
      await take(taker);
      if (++n % 50 === 0) await fund(taker, TAKER_COLLATERAL, TAKER_INVENTORY);
    });
  });

  // A quote cycle posts, for each market of its group, one cancel and one batch of up to 2 × QUOTE_LEVELS
  // orders (on average markets / groups markets a cycle); each taker about one order every 1.5–2.5 cycles.
  const perCycle = groups.length === 0 ? 0 : markets.length / groups.length;
  const ordersPerSecond = Math.ceil((perCycle * 2 * QUOTE_LEVELS * 1000) / cycleMs + (takers.length * 1000) / (cycleMs * 1.5));
  return {
    markets: markets.map((m) => m.conditionId),
    ordersPerSecond,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

/** The markets in quote groups: each neg-risk event whose questions are all quoted together, the rest one by one. */
async function groupsOf(venue: DemoVenue, markets: readonly DemoMarket[]): Promise<Group[]> {
  const byId = new Map(markets.map((m) => [m.conditionId, m]));
  const groups: Group[] = [];
  const grouped = new Set<string>();
  for (const m of markets) {
    if (grouped.has(m.conditionId)) continue;
    const event = m.negRiskMarketId === null ? undefined : await venue.event(m.negRiskMarketId);
    const whole = event !== undefined && event.questions.length > 1 && event.questions.every((q) => byId.has(q.conditionId));
    const members = whole ? event.questions.map((q) => byId.get(q.conditionId) as DemoMarket) : [m];
    for (const x of members) grouped.add(x.conditionId);
    groups.push({ markets: members, event: whole ? event : undefined });
  }
  return groups;
}
