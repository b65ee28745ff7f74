// Recent trades of a market, newest first: the activity surface's fills when the view opens, then each
// `last_trade_price` event as it prints. A fill reaches the channel once per outcome token; it is shown once,
// keyed by its transaction and its price in the first outcome's terms.

import { fill, h } from './dom.js';
import { formatSize } from './ladder.js';

export interface TradeRow {
  readonly key: string;
  readonly timeMs: number;
  readonly outcome: string;
  readonly side: string;
  readonly price: string;
  readonly size: string;
  readonly wallet?: string;
}

const KEPT = 50;

export class TradesTable {
  readonly element: HTMLTableElement;
  private readonly body: HTMLTableSectionElement;
  private rows: TradeRow[] = [];
  private readonly seen = new Set<string>();

  constructor() {
    this.body = h('tbody');
    this.element = h('table', { class: 'trades' }, h('thead', {}, h('tr', {}, h('th', {}, 'time'), h('th', {}, 'outcome'), h('th', {}, 'side'), h('th', {}, 'price'), h('th', {}, 'size'), h('th', {}, 'trader'))), this.body);
  }

  add(rows: readonly TradeRow[]): void {
    for (const r of rows) {
      if (this.seen.has(r.key)) continue;
      this.seen.add(r.key);
      this.rows.push(r);
    }
    this.rows.sort((a, b) => b.timeMs - a.timeMs);
    this.rows = this.rows.slice(0, KEPT);
    fill(this.body, ...this.rows.map(rowOf));
    if (this.rows.length === 0) fill(this.body, h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'no trades yet')));
  }
}

function rowOf(r: TradeRow): HTMLTableRowElement {
  const wallet = r.wallet === undefined ? '' : h('a', { href: `#/address/${r.wallet}` }, `${r.wallet.slice(0, 6)}…${r.wallet.slice(-4)}`);
  return h(
    'tr',
    { class: r.side === 'BUY' ? 'buy' : 'sell', 'data-price': r.price, 'data-size': r.size },
    h('td', {}, new Date(r.timeMs).toLocaleTimeString('en-GB')),
    h('td', {}, r.outcome),
    h('td', {}, r.side),
    h('td', {}, r.price),
    h('td', {}, formatSize(r.size)),
    h('td', {}, wallet),
  );
}
