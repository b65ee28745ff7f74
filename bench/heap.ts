// The heap phase: N non-crossing resting GTC orders (bids at 0.01-0.49, asks at 0.51-0.99, both tokens,
// many accounts, 66-character hex order ids) into a fresh engine, and the heap growth they cause.
//
// The baseline is taken after the markets and accounts exist, so the delta is what the resting orders
// cost. Each order id is created just before its command (a flat string, as decoded from a request) and
// is then only referenced by the engine, so the ids the engine keeps are part of the delta, while the
// commands and the returned events are garbage and are collected before the second reading.

import { Engine, LOT, UNIT } from '../engine/index.js';
import { Rng, hash66 } from './prng.js';
import { T0, TICK, makeUniverse, placeCommand, type MarketIds } from './workload.js';

export interface HeapResult {
  readonly orders: number;
  readonly resting: number;
  readonly rejected: number;
  readonly trades: number;
  readonly baselineBytes: number;
  readonly afterBytes: number;
  readonly deltaBytes: number;
  readonly bytesPerOrder: number;
  readonly mbPerMillion: number;
  readonly seconds: number;
  readonly invariantViolations: readonly string[];
}

function settledHeap(gc: () => void): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export function heapPhase(seed: number, orders: number, markets: number, accounts: number, gc: () => void): HeapResult {
  const rng = new Rng(seed);
  // Enough for ~1000 resting orders per account of up to 100 shares: 200k USDC, 100k shares of each token.
  const universe = makeUniverse(rng, markets, accounts, 200_000 * UNIT * markets, 100_000 * UNIT);
  const engine = new Engine();
  for (const cmd of universe.commands) {
    for (const e of engine.apply(cmd)) if (e.type === 'CommandRejected') throw new Error(`heap setup refused: ${e.message}`);
  }
  const baselineBytes = settledHeap(gc);
  let rejected = 0;
  let trades = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < orders; i++) {
    const market = universe.markets[i % markets] as MarketIds;
    const bid = (i & 1) === 0;
    // 49 levels a side, denser near the mid: distance from the mid in ticks, 1..49.
    const away = 1 + Math.min(48, rng.geometric(0.85, 48));
    const bookPrice = bid ? (50 - away) * TICK : (50 + away) * TICK;
    const size = (1 + rng.int(100)) * 100 * LOT; // 1 to 100 shares
    const account = universe.accounts[rng.int(universe.accounts.length)] as string;
    const cmd = placeCommand(T0 + 1, T0 + 1, hash66(rng), account, market, bid, bookPrice, size, rng.next() < 0.75, 'GTC');
    const events = engine.apply(cmd);
    for (const e of events) {
      if (e.type === 'OrderRejected') rejected += 1;
      else if (e.type === 'TradeExecuted') trades += 1;
    }
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const afterBytes = settledHeap(gc);
  const resting = engine.state.live.size();
  const deltaBytes = afterBytes - baselineBytes;
  const invariantViolations = engine.checkInvariants();
  return {
    orders, resting, rejected, trades, baselineBytes, afterBytes, deltaBytes,
    bytesPerOrder: deltaBytes / Math.max(1, resting),
    mbPerMillion: (deltaBytes / Math.max(1, resting)) * 1_000_000 / 1e6,
    seconds, invariantViolations,
  };
}
