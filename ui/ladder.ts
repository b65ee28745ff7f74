// One outcome's order book as a ladder: asks above (best ask nearest the middle), the spread, bids below (best
// bid first), each row with a bar for its size. Every level of the book is shown; each row carries its side,
// price and size as data attributes, the strings of GET /book.

import type { BookLevel } from './api.js';
import { fill, h } from './dom.js';

export function renderLadder(table: HTMLTableSectionElement, bids: readonly BookLevel[], asks: readonly BookLevel[]): void {
  const largest = Math.max(1, ...bids.map((l) => Number(l.size)), ...asks.map((l) => Number(l.size)));
  const row = (side: 'bid' | 'ask', l: BookLevel): HTMLTableRowElement => {
    const width = `${((Number(l.size) / largest) * 100).toFixed(1)}%`;
    const bar = h('span', { class: 'bar', style: `width:${width}` });
    return h('tr', { class: side, 'data-side': side, 'data-price': l.price, 'data-size': l.size }, h('td', { class: 'price' }, l.price), h('td', { class: 'size' }, bar, h('span', {}, formatSize(l.size))));
  };
  const bestBid = bids[0]?.price;
  const bestAsk = asks[0]?.price;
  const spread = bestBid !== undefined && bestAsk !== undefined ? `spread ${(Number(bestAsk) - Number(bestBid)).toFixed(4).replace(/\.?0+$/, '')}` : 'no spread';
  fill(
    table,
    ...[...asks].reverse().map((l) => row('ask', l)),
    h('tr', { class: 'spread' }, h('td', { colspan: 2 }, spread)),
    ...bids.map((l) => row('bid', l)),
  );
}

export function formatSize(size: string | number): string {
  return Number(size).toLocaleString('en-US', { maximumFractionDigits: 2 });
}
