// The projection benchmark's trading workload: rounds in which `makers` accounts rest orders at one price
// and one taker sweeps them all, so a round is makers + 1 commands and `makers` fills (one taker command
// with several fills, as on a busy book). Rounds alternate between normal fills (makers sell YES, the taker
// buys YES) and mints (makers buy NO, the taker buys YES). Ids have production shapes (66-character
// condition and order ids, 77-digit token ids, 42-character addresses) because row sizes drive the cost.
// Seeded: a seed reproduces the workload.

import { LOT, MAX_BALANCE, UNIT, type Command, type PlaceOrder } from '../engine/index.js';
import { Rng, address, hash66, tokenId } from './prng.js';

export const T0 = 1_700_000_000_000;
const TICK = 10_000;

export interface ProjectionsWorkloadConfig {
  readonly seed: number;
  readonly markets: number;
  readonly accounts: number;
  /** Fills per taker command. */
  readonly makers: number;
}

export interface BenchMarket {
  readonly conditionId: string;
  readonly tokens: readonly [string, string];
}

export class ProjectionsWorkload {
  readonly markets: BenchMarket[] = [];
  readonly accounts: string[] = [];
  private readonly rng: Rng;
  private round = 0;
  private orders = 0;

  constructor(readonly config: ProjectionsWorkloadConfig) {
    this.rng = new Rng(config.seed);
    for (let i = 0; i < config.markets; i++) this.markets.push({ conditionId: hash66(this.rng), tokens: [tokenId(this.rng), tokenId(this.rng)] });
    for (let i = 0; i < config.accounts; i++) this.accounts.push(address(this.rng));
  }

  /**
   * Listing, deposits, and a split of every market for every account (sellers always hold tokens). The
   * engine bounds all collateral together by MAX_BALANCE: each account gets its share, half of it split.
   */
  setup(time = T0): Command[] {
    const out: Command[] = [];
    const deposit = Math.floor((MAX_BALANCE * 0.9) / this.accounts.length / UNIT) * UNIT;
    const split = Math.floor(deposit / 2 / this.markets.length / UNIT) * UNIT;
    for (const m of this.markets) {
      out.push({ type: 'ListMarket', time, conditionId: m.conditionId, tokenIds: m.tokens, tickSize: TICK, minSize: LOT, makerFeeBps: 0, takerFeeBps: 20, negRisk: false });
    }
    for (const a of this.accounts) {
      out.push({ type: 'Deposit', time, account: a, amount: deposit });
      for (const m of this.markets) out.push({ type: 'Split', time, account: a, conditionId: m.conditionId, amount: split });
    }
    return out;
  }

  private order(account: string, tokenId: string, side: 'BUY' | 'SELL', lots: number, price: number, time: number): PlaceOrder {
    const qty = lots * LOT;
    const cash = (qty / LOT) * (price / 100);
    return {
      type: 'PlaceOrder', time, orderId: `0x${(this.orders++).toString(16).padStart(64, '0')}`, account, owner: `key-${account.slice(2, 10)}`, tokenId, side,
      makerAmount: side === 'BUY' ? cash : qty, takerAmount: side === 'BUY' ? qty : cash, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: 0,
    };
  }

  /** The next round's commands (makers + 1 of them, the taker last). */
  nextRound(time: number): Command[] {
    const r = this.round++;
    const m = this.markets[this.rng.int(this.markets.length)] as BenchMarket;
    const price = (30 + this.rng.int(41)) * TICK; // YES 0.30..0.70
    const mint = r % 2 === 1;
    const out: Command[] = [];
    let total = 0;
    const n = this.accounts.length;
    const taker = this.accounts[this.rng.int(n)] as string;
    for (let k = 0; k < this.config.makers; k++) {
      let maker = this.accounts[this.rng.int(n)] as string;
      if (maker === taker) maker = this.accounts[(this.accounts.indexOf(maker) + 1) % n] as string;
      const lots = 100 * (1 + this.rng.int(20));
      total += lots;
      out.push(mint ? this.order(maker, m.tokens[1], 'BUY', lots, 1_000_000 - price, time) : this.order(maker, m.tokens[0], 'SELL', lots, price, time));
    }
    out.push(this.order(taker, m.tokens[0], 'BUY', total, price, time));
    return out;
  }
}
