// A narrow typed wrapper over the peer, `nodejs-order-book` (one book per market, in outcome 0's terms).
// The peer takes plain numbers: the benchmark gives it prices as decimal floats (0.42) and sizes in base
// units (integers, so its volume arithmetic stays exact and its book can be compared level by level with
// ours). Its TimeInForce enum is not exported, so the three values are typed here once.

import { OrderBook, Side, type LimitOrderOptions, type IProcessOrder } from 'nodejs-order-book';

type TimeInForce = NonNullable<LimitOrderOptions['timeInForce']>;
const FOK = 'FOK' as TimeInForce;

/** One peer operation, pre-built before timing (the option objects are what the peer receives). */
export type PeerOp =
  | { readonly kind: 'limit'; readonly book: number; readonly options: LimitOrderOptions }
  | { readonly kind: 'market'; readonly book: number; readonly options: { readonly side: Side; readonly size: number } }
  | { readonly kind: 'cancel'; readonly book: number; readonly id: string };

export const PEER_BUY = Side.BUY;
export const PEER_SELL = Side.SELL;

/** A GTC limit order (or FOK when `fok`) in book terms: `price` as a float, `size` in base units. */
export function peerLimit(book: number, id: string, buy: boolean, size: number, price: number, fok: boolean): PeerOp {
  const options: LimitOrderOptions = fok
    ? { id, side: buy ? Side.BUY : Side.SELL, size, price, timeInForce: FOK }
    : { id, side: buy ? Side.BUY : Side.SELL, size, price };
  return { kind: 'limit', book, options };
}

export function peerMarket(book: number, buy: boolean, size: number): PeerOp {
  return { kind: 'market', book, options: { side: buy ? Side.BUY : Side.SELL, size } };
}

export function peerCancel(book: number, id: string): PeerOp {
  return { kind: 'cancel', book, id };
}

/** The peer's books, one per market. */
export class PeerBooks {
  readonly books: OrderBook[] = [];

  constructor(markets: number) {
    for (let i = 0; i < markets; i++) this.books.push(new OrderBook());
  }

  /** Applies one operation; returns 1 when the peer refused it (an `err` on an order), else 0. */
  apply(op: PeerOp): number {
    const book = this.books[op.book] as OrderBook;
    let res: IProcessOrder;
    switch (op.kind) {
      case 'limit':
        res = book.limit(op.options);
        break;
      case 'market':
        res = book.market(op.options);
        break;
      case 'cancel':
        book.cancel(op.id);
        return 0;
    }
    return res.err === null ? 0 : 1;
  }

  /** Levels of one book as [price in micro-units, size in base units], bids and asks best first. */
  levels(book: number): { bids: [number, number][]; asks: [number, number][] } {
    const [asks, bids] = (this.books[book] as OrderBook).depth();
    const micro = (levels: [number, number][]): [number, number][] => levels.map(([p, v]) => [Math.round(p * 1_000_000), v]);
    return { bids: micro(bids), asks: micro(asks) };
  }
}
