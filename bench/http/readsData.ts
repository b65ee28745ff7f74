// The data behind bench:http's account and activity rows, made by the real engine through the service's
// engine host (so the journal, the projector and the in-memory read model all see it as in production):
// 100 markets (200 tokens), 10,000 taker accounts holding 1 to 200 positions each (skewed towards few, as
// real users are) and 50 market makers; one fill per taker position (a mint: the maker's resting BUY of one
// outcome taken by the taker's BUY of the other), about 105,000 fills in all. One more user, whose wallet
// the benchmark holds (it signs the L2 headers of the account reads), holds all 200 tokens (200 fills) and
// has 100 open orders. Every command must be accepted and the fills are counted from the engine's events:
// the build fails rather than measure other data than it says.

import { PerformanceObserver } from 'node:perf_hooks';
import { Wallet } from 'ethers';
import type { EngineHost, Submission } from '../../host/engineHost.js';
import { Rng } from '../prng.js';

const USDC = 1_000_000;
/**
 * Collateral per taker (its 1-200 buys cost at most 700 USDC) and per maker: the engine refuses deposits
 * beyond MAX_BALANCE in all, so each account gets what it needs rather than a round million.
 */
const TAKER_USDC = 10_000;
const MAKER_USDC = 1_000_000;
export const READ_MARKETS = 100;
/** Taker accounts (BENCH_READ_ACCOUNTS, default 10,000). */
export const READ_TAKERS = Number(process.env.BENCH_READ_ACCOUNTS ?? 10_000);
const MAKERS = 50;
const MAX_POSITIONS = 200;

/** Orders at a steady rate through the engine host while the mixed phase runs: crossing pairs (a fill each) of the market makers. */
export class OrderLoad {
  private timer: NodeJS.Timeout | undefined;
  private readonly latencies: number[] = [];
  private sent = 0;
  private failed = 0;

  constructor(
    private readonly host: EngineHost,
    private readonly conditionTokens: readonly (readonly [string, string])[],
  ) {}

  private gc: PerformanceObserver | undefined;
  private readonly gcPauses: number[] = [];

  start(perSecond: number): void {
    this.gc = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) this.gcPauses.push(entry.duration);
    });
    this.gc.observe({ entryTypes: ['gc'] });
    const rng = new Rng(99);
    let n = 0;
    const tickMs = 10;
    const perTick = perSecond / (1000 / tickMs);
    let owed = 0;
    this.timer = setInterval(() => {
      owed += perTick;
      for (; owed >= 1; owed -= 1) {
        const pair = this.conditionTokens[rng.int(this.conditionTokens.length)] as readonly [string, string];
        const outcome = n % 2;
        const account = hex('ee', rng.int(MAKERS), 40);
        const cents = n % 4 < 2 ? 50 : 49;
        const s: Submission = {
          type: 'PlaceOrder', orderId: hex('f0', (n += 1), 64), account, owner: 'bench', tokenId: pair[outcome] as string, side: 'BUY',
          makerAmount: (5 * cents * USDC) / 100, takerAmount: 5 * USDC, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: 0,
        };
        const t0 = performance.now();
        this.sent += 1;
        this.host.submit(s).then(
          () => this.latencies.push(performance.now() - t0),
          () => (this.failed += 1),
        );
      }
    }, tickMs);
  }

  /** Stops; the orders' latencies (submit to durable reply, in this process). */
  stop(): { sent: number; failed: number; p50Ms: number; p99Ms: number; maxMs: number; gcPauses: number; gcMaxMs: number; gcTotalMs: number } {
    clearInterval(this.timer);
    this.gc?.disconnect();
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const at = (q: number): number => Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(2));
    const gcMaxMs = Number(Math.max(0, ...this.gcPauses).toFixed(1));
    const gcTotalMs = Number(this.gcPauses.reduce((a, b) => a + b, 0).toFixed(0));
    return { sent: this.sent, failed: this.failed, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1), gcPauses: this.gcPauses.length, gcMaxMs, gcTotalMs };
  }
}

export interface ReadsData {
  /** A sample of taker accounts (with their position counts), for the /positions and /trades URLs. */
  readonly users: { account: string; positions: number }[];
  readonly conditionIds: string[];
  /** The wallet of the heavy user (200 positions, 100 open orders). */
  readonly wallet: Wallet;
  readonly openOrderIds: string[];
  readonly finishedOrderIds: string[];
  readonly fills: number;
}

const hex = (prefix: string, n: number, width: number): string => `0x${prefix}${n.toString(16).padStart(width - prefix.length, '0')}`;

/** Submits in chunks (the host queues; a chunk at a time keeps memory flat); returns the fills made. Throws on a refusal. */
async function submitAll(host: EngineHost, list: Submission[]): Promise<number> {
  let fills = 0;
  for (let i = 0; i < list.length; i += 4_000) {
    for (const events of await Promise.all(list.slice(i, i + 4_000).map((s) => host.submit(s)))) {
      for (const e of events) {
        if (e.type === 'TradeExecuted') fills += 1;
        if (e.type === 'OrderRejected' || e.type === 'CommandRejected') throw new Error(`bench data: the engine refused a command: ${JSON.stringify(e)}`);
      }
    }
  }
  return fills;
}

export async function buildReadsData(host: EngineHost, onProgress: (text: string) => void = () => undefined): Promise<ReadsData> {
  const rng = new Rng(16);
  const markets = Array.from({ length: READ_MARKETS }, (_, i) => ({ conditionId: hex('c0de', i, 64), tokenIds: [String(9_000_000 + 2 * i), String(9_000_001 + 2 * i)] as [string, string] }));
  const tokens = markets.flatMap((m) => m.tokenIds.map((tokenId, outcome) => ({ market: m, tokenId, other: m.tokenIds[1 - outcome] as string })));
  await submitAll(host, markets.map((m) => ({ type: 'ListMarket', conditionId: m.conditionId, tokenIds: m.tokenIds, tickSize: 10_000, minSize: USDC, makerFeeBps: 0, takerFeeBps: 0, negRisk: false })));
  const makers = Array.from({ length: MAKERS }, (_, i) => hex('ee', i, 40));
  const takers = Array.from({ length: READ_TAKERS }, (_, i) => hex('aa', i, 40));
  const wallet = new Wallet('0x' + '5'.repeat(64));
  const heavy = wallet.address.toLowerCase();
  await submitAll(host, [...makers.map((account) => ({ account, usdc: MAKER_USDC })), ...[...takers, heavy].map((account) => ({ account, usdc: TAKER_USDC }))].map(({ account, usdc }) => ({ type: 'Deposit', account, amount: usdc * USDC })));

  let n = 0;
  const orderId = (): string => hex('b0', (n += 1), 64);
  const place = (account: string, tokenId: string, cents: number, shares: number): Submission & { orderId: string } => ({
    type: 'PlaceOrder', orderId: orderId(), account, owner: 'bench', tokenId, side: 'BUY',
    makerAmount: (shares * cents * USDC) / 100, takerAmount: shares * USDC, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: 0,
  });
  const breadth = (): number => 1 + Math.floor((MAX_POSITIONS - 1) * rng.next() ** 20);
  const users: { account: string; positions: number }[] = [];
  const finishedOrderIds: string[] = [];
  let fills = 0;
  let batch: Submission[] = [];
  const owners = [...takers.map((account) => ({ account, positions: breadth() })), { account: heavy, positions: MAX_POSITIONS }];
  for (const [k, { account, positions }] of owners.entries()) {
    if (k % Math.max(1, Math.floor(owners.length / 200)) === 0) users.push({ account, positions });
    for (let j = 0; j < positions; j++) {
      const t = tokens[(k * 37 + j * 7) % tokens.length] as (typeof tokens)[number];
      const cents = 30 + rng.int(41);
      batch.push(place(makers[rng.int(MAKERS)] as string, t.other, 100 - cents, 5));
      const taker = place(account, t.tokenId, cents, 5);
      if (account === heavy) finishedOrderIds.push(taker.orderId);
      batch.push(taker);
    }
    if (batch.length >= 20_000) {
      fills += await submitAll(host, batch);
      batch = [];
      onProgress(`${fills} fills`);
    }
  }
  fills += await submitAll(host, batch);
  const open = Array.from({ length: 100 }, (_, i) => place(heavy, (tokens[i % tokens.length] as (typeof tokens)[number]).tokenId, 1 + (i % 10), 10));
  fills += await submitAll(host, open);
  return { users, conditionIds: markets.map((m) => m.conditionId), wallet, openOrderIds: open.map((o) => o.orderId), finishedOrderIds: finishedOrderIds.slice(0, 20), fills };
}
