// A market's price levels as the market channel last published them, in outcome 0's terms (the book the
// engine keeps), and the per-token level changes between two such states. A token of outcome 1 sees the
// mirror: outcome 0's asks at p are its bids at 1 - p, outcome 0's bids its asks.
//
// Contract: `levelsOf` reads the engine at a durable log position (the publisher calls it only there), and
// `tokenChanges` lists every level whose aggregate size differs, with the new size (0 = level gone), bids
// first (BUY), then asks (SELL), each in ascending price of the token's own terms.

import { PRICE_ONE, type Engine, type Outcome } from '../../engine/index.js';

export interface Levels {
  readonly bids: ReadonlyMap<number, number>;
  readonly asks: ReadonlyMap<number, number>;
}

export interface LevelChange {
  readonly side: 'BUY' | 'SELL';
  /** Micro-units, in the token's own terms. */
  readonly price: number;
  /** The new aggregate size at the level (base units); 0 when the level is gone. */
  readonly size: number;
}

export const NO_LEVELS: Levels = { bids: new Map(), asks: new Map() };

/** Outcome 0's levels of the market holding `token0` (undefined when no market has it). */
export function levelsOf(engine: Pick<Engine, 'book'>, token0: string): Levels | undefined {
  const book = engine.book(token0);
  if (book === undefined) return undefined;
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  for (const l of book.bids) bids.set(l.price, l.size);
  for (const l of book.asks) asks.set(l.price, l.size);
  return { bids, asks };
}

function sideChanges(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>, mirror: boolean, side: 'BUY' | 'SELL', out: LevelChange[]): void {
  const changed: LevelChange[] = [];
  for (const [price, size] of after) if (before.get(price) !== size) changed.push({ side, price: mirror ? PRICE_ONE - price : price, size });
  for (const price of before.keys()) if (!after.has(price)) changed.push({ side, price: mirror ? PRICE_ONE - price : price, size: 0 });
  changed.sort((a, b) => a.price - b.price);
  for (const c of changed) out.push(c);
}

/** The level changes `outcome`'s token sees between two states of its market. */
export function tokenChanges(before: Levels, after: Levels, outcome: Outcome): LevelChange[] {
  const out: LevelChange[] = [];
  if (outcome === 0) {
    sideChanges(before.bids, after.bids, false, 'BUY', out);
    sideChanges(before.asks, after.asks, false, 'SELL', out);
  } else {
    sideChanges(before.asks, after.asks, true, 'BUY', out);
    sideChanges(before.bids, after.bids, true, 'SELL', out);
  }
  return out;
}

/** Best bid and ask of `outcome`'s token (micro-units; undefined for an empty side). */
export function bestOf(levels: Levels, outcome: Outcome): { bid: number | undefined; ask: number | undefined } {
  let bid0: number | undefined;
  let ask0: number | undefined;
  for (const p of levels.bids.keys()) if (bid0 === undefined || p > bid0) bid0 = p;
  for (const p of levels.asks.keys()) if (ask0 === undefined || p < ask0) ask0 = p;
  if (outcome === 0) return { bid: bid0, ask: ask0 };
  return { bid: ask0 === undefined ? undefined : PRICE_ONE - ask0, ask: bid0 === undefined ? undefined : PRICE_ONE - bid0 };
}
