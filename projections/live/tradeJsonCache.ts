// The JSON of the fills GET /data/trades has shown, kept with the fill (HeldFill.json) so that showing it
// again is a copy of bytes: a front end polls its own recent trades again and again, and serialising a page of
// 100 trades (~90 KB) costs more than finding it.
//
// Contract:
// - A kept text is the trade exactly as toTrade + tradeJsonParts make it now: a fill never changes, and the
//   only input that may (the outcome labels, from the catalog's metadata) is kept beside the text and
//   compared on every use; a text whose labels differ is made again.
// - At most `max` fills keep a text (~1.6 KB each, resident): the oldest kept leaves first, whether or not
//   memory still holds its fill (a fill that left memory is let go with its text once it leaves this queue too).

import { toTrade } from '../readModel/accountTrades.js';
import { outcomeLabel, type MarketInfo } from '../readModel/markets.js';
import { ownBytes } from '../readModel/jsonText.js';
import { tradeJsonParts } from '../readModel/tradeJson.js';
import { Fifo } from './fifo.js';
import type { HeldFill, TradeJsonEntry } from './fillWindows.js';

export class TradeJsonCache {
  readonly max: number;
  /** Fills holding a text, oldest kept first. */
  private readonly kept = new Fifo<HeldFill>();

  constructor(max: number) {
    this.max = max;
  }

  /** Fills holding a text now. */
  get size(): number {
    return this.kept.size;
  }

  /** The fill's trade JSON bytes (trader_side left out), made and kept if need be. */
  entryOf(f: HeldFill, market: MarketInfo | undefined, txHash: string): TradeJsonEntry {
    const takerOutcome = outcomeLabel(market, f.taker_outcome);
    const makerOutcome = outcomeLabel(market, f.maker_outcome);
    const known = f.json;
    if (known !== undefined && known.takerOutcome === takerOutcome && known.makerOutcome === makerOutcome) return known;
    const { head, tail } = tradeJsonParts(toTrade(f, market, 'TAKER', txHash));
    const entry: TradeJsonEntry = { head: ownBytes(head), tail: ownBytes(tail), takerOutcome, makerOutcome };
    if (this.max === 0) return entry;
    if (known === undefined) this.keep(f);
    f.json = entry;
    return entry;
  }

  private keep(f: HeldFill): void {
    this.kept.push(f);
    while (this.kept.size > this.max) (this.kept.shift() as HeldFill).json = undefined;
  }
}
