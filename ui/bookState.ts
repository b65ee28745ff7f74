// One token's order book as the market channel describes it: replaced by each `book` event, changed level by
// level by `price_change` entries (a size of 0 removes the level). Prices and sizes stay the decimal strings
// of GET /book, so the ladder shows exactly what the API says.

import type { BookLevel, BookSnapshot } from './api.js';

export interface PriceChange {
  asset_id: string;
  price: string;
  size: string;
  side: 'BUY' | 'SELL';
}

export class BookState {
  private readonly bids = new Map<string, string>();
  private readonly asks = new Map<string, string>();
  lastTradePrice = '';

  constructor(readonly assetId: string) {}

  replace(book: BookSnapshot): void {
    this.bids.clear();
    this.asks.clear();
    for (const l of book.bids) this.bids.set(l.price, l.size);
    for (const l of book.asks) this.asks.set(l.price, l.size);
    if (book.last_trade_price !== '') this.lastTradePrice = book.last_trade_price;
  }

  change(c: PriceChange): void {
    const side = c.side === 'BUY' ? this.bids : this.asks;
    if (Number(c.size) === 0) side.delete(c.price);
    else side.set(c.price, c.size);
  }

  /** Bids from the best (highest) down. */
  bidLevels(): BookLevel[] {
    return levels(this.bids).sort((a, b) => Number(b.price) - Number(a.price));
  }

  /** Asks from the best (lowest) up. */
  askLevels(): BookLevel[] {
    return levels(this.asks).sort((a, b) => Number(a.price) - Number(b.price));
  }

  bestBid(): string {
    return this.bidLevels()[0]?.price ?? '';
  }

  bestAsk(): string {
    return this.askLevels()[0]?.price ?? '';
  }
}

function levels(side: Map<string, string>): BookLevel[] {
  return [...side].map(([price, size]) => ({ price, size }));
}
