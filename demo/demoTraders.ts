// Demo traders: a market maker and a few takers that trade the demo catalog's markets so that a fresh
// `npm start` shows a live exchange (books with depth, trades, moving prices, price history). They are
// ordinary clients: the official CLOB client (@polymarket/clob-client-v2) against the service's public port,
// with API keys made over L1, signed V2 orders and L2 headers, exactly as outside traders connect. Only their
// funding takes the operator's path inside the service (Deposit and Split commands through the engine host),
// as a venue's operator credits a trader's deposit.
//
// Wallets are derived from the API keys' master secret, so after a restart the same traders resume: the
// maker cancels what it left open and quotes every market once. Load is bounded: then each quote cycle of a
// market signs a fresh ladder, posts it as one batch (QUOTE_LEVELS a side) and then cancels the old one, one
// market a cycle, one taker order a taker tick.

import { ClobClient, OrderType, Side, type ApiKeyCreds, type OrderResponse } from '@polymarket/clob-client-v2';
import { Wallet, keccak256, toUtf8Bytes, concat } from 'ethers';
import type { Logger } from 'pino';
import type { EngineHost } from '../host/engineHost.js';
import type { Market } from '../engine/market.js';
import { PRICE_ONE } from '../engine/index.js';

export interface DemoTraderOptions {
  /** The service's CLOB surface, e.g. http://127.0.0.1:8080/clob. */
  readonly clobUrl: string;
  readonly chainId: number;
  readonly host: EngineHost;
  /** Derives the traders' wallets (the API keys' master secret). */
  readonly seed: Buffer;
  readonly logger: Logger;
  /** How many markets the maker quotes (the first active binary markets of the catalog). */
  readonly markets?: number;
  readonly takers?: number;
  /** ms between two quote cycles (each refreshes one market); takers act about every 2× this. */
  readonly cycleMs?: number;
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
}

function tickOf(market: Market): number {
  return market.params.tickSize / PRICE_ONE;
}

function roundTo(value: number, tick: number): number {
  const steps = Math.round(value / tick);
  return Number((steps * tick).toFixed(6));
}

export async function startDemoTraders(options: DemoTraderOptions): Promise<DemoTraders> {
  const { host, logger } = options;
  const cycleMs = options.cycleMs ?? 1000;
  const markets = [...host.engine.markets()].filter((m) => m.status === 'active' && m.params.minSize <= 10_000_000).slice(0, options.markets ?? 4);
  const rng = Math.random;
  const fair = new Map(markets.map((m) => [m.conditionId, m.lastTrade === null ? 0.2 + rng() * 0.6 : m.lastTrade.price / PRICE_ONE]));

  const makeTrader = async (name: string, collateral: number, inventory: number): Promise<Trader> => {
    const wallet = new Wallet(keccak256(concat([options.seed, toUtf8Bytes(`pmx demo trader ${name}`)])));
    const account = wallet.address.toLowerCase();
    const signer = clientSigner(wallet) as never;
    const signIn = new ClobClient({ host: options.clobUrl, chain: options.chainId, signer, throwOnError: false });
    const creds = (await signIn.createOrDeriveApiKey()) as ApiKeyCreds;
    if (typeof creds?.key !== 'string') throw new Error(`demo trader ${name}: could not create or derive its API key`);
    const client = new ClobClient({ host: options.clobUrl, chain: options.chainId, signer, creds, throwOnError: false });
    await fund(account, collateral, inventory);
    return { name, wallet, account, client };
  };

  /** Tops the account up to `collateral` and each market's tokens to `inventory` (operator path). */
  const fund = async (account: string, collateral: number, inventory: number): Promise<void> => {
    const free = host.engine.balances(account)?.free ?? 0;
    const need = collateral + inventory * markets.length;
    if (free < need) await host.submit({ type: 'Deposit', account, amount: need - free });
    for (const m of markets) {
      const held = Math.min(...m.tokenIds.map((t) => host.engine.balances(account)?.tokens.get(t)?.free ?? 0));
      if (m.status === 'active' && held < inventory / 2) await host.submit({ type: 'Split', account, conditionId: m.conditionId, amount: inventory - held });
    }
  };

  const maker = await makeTrader('maker', MAKER_COLLATERAL, MAKER_INVENTORY);
  const takers: Trader[] = [];
  for (let i = 0; i < (options.takers ?? 3); i++) takers.push(await makeTrader(`taker-${i + 1}`, TAKER_COLLATERAL, TAKER_INVENTORY));
  await maker.client.cancelAll();

  /** The maker's resting ladder per market: the ids of the orders it last posted there. */
  const ladders = new Map<string, string[]>();
  /** Replaces the maker's quotes in `m` with a fresh ladder around its fair price (which drifts). */
  const quote = async (m: Market): Promise<void> => {
    if (m.status !== 'active') return;
    const tick = tickOf(m);
    const before = fair.get(m.conditionId) ?? 0.5;
    const p = Math.min(0.9, Math.max(0.1, before + (rng() - 0.5) * 6 * tick));
    fair.set(m.conditionId, p);
    const [yes] = m.tokenIds;
    const orders = [];
    const minShares = m.params.minSize / 1_000_000;
    // 100–300 shares a level, so a side holds at least 300: takers between two quotes of a market do not
    // empty it (a taker order is at most 30 shares, or $15, i.e. 150 shares at the lowest fair price of 0.1).
    for (let level = 1; level <= QUOTE_LEVELS; level++) {
      const size = Math.max(minShares, Math.round(100 + rng() * 200));
      const bid = roundTo(p - level * tick, tick);
      const ask = roundTo(p + level * tick, tick);
      if (bid > 0) orders.push(await maker.client.createOrder({ tokenID: yes, price: bid, size, side: Side.BUY }));
      if (ask < 1) orders.push(await maker.client.createOrder({ tokenID: yes, price: ask, size, side: Side.SELL }));
    }
    // The new ladder rests before the old one is cancelled, so that the book is never empty (a client reading
    // it between a cancel and a post would see no quotes: the README tour's market buy then finds no match).
    // Post-only: a level that would cross the old ladder (the fair price moved) is refused rather than trading
    // with the maker's own quote; the next cycle quotes it again.
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

  /** One taker order: buys or sells a random outcome at the market, a few shares, fill-and-kill. */
  const take = async (taker: Trader): Promise<void> => {
    const m = markets[Math.floor(rng() * markets.length)];
    if (m === undefined || m.status !== 'active') return;
    const token = m.tokenIds[rng() < 0.5 ? 0 : 1];
    const buy = rng() < 0.5;
    const shares = Math.max(m.params.minSize / 1_000_000, Math.round(5 + rng() * 25));
    const order = buy
      ? await taker.client.createMarketOrder({ tokenID: token, amount: Number((shares * 0.5).toFixed(2)), side: Side.BUY })
      : await taker.client.createMarketOrder({ tokenID: token, amount: shares, side: Side.SELL });
    await taker.client.postOrder(order, OrderType.FAK);
  };

  // Every market gets its ladder at once, so that no demo book is empty while the cycle comes round to it; the
  // cycle then starts one period later, with the market quoted first.
  for (const m of markets) {
    try {
      await quote(m);
    } catch (error) {
      logger.debug({ err: error }, 'demo maker failed');
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
    const m = markets[next++ % markets.length];
    if (m !== undefined) await quote(m);
    if (next % (markets.length * 30) === 0) await fund(maker.account, MAKER_COLLATERAL, MAKER_INVENTORY);
  }, true);
  takers.forEach((taker, i) => {
    let n = 0;
    every(taker.name, () => cycleMs * (1.5 + rng() + i * 0.25), async () => {
      await take(taker);
      if (++n % 50 === 0) await fund(taker.account, TAKER_COLLATERAL, TAKER_INVENTORY);
    });
  });

  // A quote cycle posts one cancel and one batch of up to 2 × QUOTE_LEVELS orders; each taker about one
  // order every 1.5–2.5 cycles.
  const ordersPerSecond = Math.ceil(((2 * QUOTE_LEVELS) * 1000) / cycleMs + (takers.length * 1000) / (cycleMs * 1.5));
  return {
    markets: markets.map((m) => m.conditionId),
    ordersPerSecond,
    stop: async () => {
      stopped = true;
      await Promise.all(loops);
    },
  };
}
