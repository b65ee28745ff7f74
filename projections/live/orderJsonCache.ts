// The JSON of the open orders GET /data/orders has shown, so that showing an order again is a copy of bytes: a
// front end polls its open orders again and again, and a page of 100 orders (~55 KB) costs more to serialise
// than to find. Kept as UTF-8 bytes, which is how a page goes out (jsonText.ts ownBytes).
//
// Contract:
// - A kept text is the order exactly as orderRow + toOrder + orderJson make it now. What may change of an order
//   in memory is its status, its matched size and its trades (the rest is fixed when it is accepted), and of its
//   market the outcome labels (the catalog's metadata): all are kept beside the text and compared on every
//   use; a text that differs in any is made again.
// - At most `max` orders keep a text (~1 KB each, resident): the oldest kept leaves first. Texts are held in a
//   WeakMap keyed by the order object, so an order memory lets go takes its text with it once it leaves this
//   queue too.

import type { OpenOrder } from '../builders/orders.js';
import { toOrder, type OrderRow } from '../readModel/accountOrders.js';
import { outcomeLabel, type MarketInfo } from '../readModel/markets.js';
import { ownBytes } from '../readModel/jsonText.js';
import { orderJson } from '../readModel/orderJson.js';
import { Fifo } from './fifo.js';

interface OrderJsonEntry {
  /** The JSON text's UTF-8 bytes. */
  readonly bytes: Buffer;
  readonly status: string;
  readonly matched: number;
  readonly trades: number;
  readonly outcome: string;
}

export class OrderJsonCache {
  readonly max: number;
  private readonly texts = new WeakMap<OpenOrder, OrderJsonEntry>();
  /** Orders holding a text, oldest kept first. */
  private readonly kept = new Fifo<OpenOrder>();

  constructor(max: number) {
    this.max = max;
  }

  /** Orders holding a text now. */
  get size(): number {
    return this.kept.size;
  }

  /** The order's JSON bytes as it stands, made and kept if need be; `row` makes the order's row (only when needed). */
  bytesOf(o: OpenOrder, market: MarketInfo | undefined, row: (o: OpenOrder) => OrderRow): Buffer {
    const outcome = outcomeLabel(market, o.outcome);
    const known = this.texts.get(o);
    if (known !== undefined && known.status === o.status && known.matched === o.matched && known.trades === o.trades.length && known.outcome === outcome) return known.bytes;
    const bytes = ownBytes(orderJson(toOrder(row(o), market)));
    if (this.max === 0) return bytes;
    if (known === undefined) this.keep(o);
    this.texts.set(o, { bytes, status: o.status, matched: o.matched, trades: o.trades.length, outcome });
    return bytes;
  }

  private keep(o: OpenOrder): void {
    this.kept.push(o);
    while (this.kept.size > this.max) this.texts.delete(this.kept.shift() as OpenOrder);
  }
}
