// An address on the activity surface: its positions with their PnL and its trades, refreshed every few
// seconds (the activity surface is a projection of the log, a moment behind the book). Open orders are not
// shown: the only read of them is GET /clob/data/orders, which needs the owner's API key (L2).

import { getJson, type Position, type TradeFill } from './api.js';
import { fill, h } from './dom.js';
import { formatSize } from './ladder.js';
import type { View } from './marketView.js';

const REFRESH_MS = 3_000;

export async function addressView(address: string): Promise<View> {
  const positions = h('tbody');
  const trades = h('tbody');
  const refresh = async (): Promise<void> => {
    const user = encodeURIComponent(address);
    const [p, t] = await Promise.all([getJson<Position[]>(`/activity/positions?user=${user}&sizeThreshold=0`), getJson<TradeFill[]>(`/activity/trades?user=${user}&limit=100&takerOnly=false`)]);
    fill(positions, ...p.map(positionRow));
    if (p.length === 0) fill(positions, h('tr', {}, h('td', { colspan: 8, class: 'empty' }, 'no positions')));
    fill(trades, ...t.map(tradeRow));
    if (t.length === 0) fill(trades, h('tr', {}, h('td', { colspan: 6, class: 'empty' }, 'no trades')));
  };
  await refresh();
  const timer = setInterval(() => void refresh().catch(() => undefined), REFRESH_MS);
  const head = (...names: string[]): HTMLTableSectionElement => h('thead', {}, h('tr', {}, ...names.map((n) => h('th', {}, n))));
  const element = h(
    'div',
    { class: 'address' },
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Markets'), ' / address'),
    h('h2', { class: 'mono' }, address),
    h('section', { class: 'panel' }, h('h3', {}, 'Positions'), h('table', { class: 'grid' }, head('market', 'outcome', 'size', 'avg price', 'price', 'value', 'PnL', 'realized'), positions)),
    h('section', { class: 'panel' }, h('h3', {}, 'Open orders'), h('p', { class: 'note' }, "Open orders are private: only their owner can read them (GET /clob/data/orders with the owner's API key).")),
    h('section', { class: 'panel' }, h('h3', {}, 'Trades'), h('table', { class: 'grid' }, head('time', 'market', 'outcome', 'side', 'price', 'size'), trades)),
  );
  return { element, close: () => clearInterval(timer) };
}

const money = (x: number): string => x.toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 2 });

function positionRow(p: Position): HTMLTableRowElement {
  const pnl = `${money(p.cashPnl)} (${p.percentPnl.toFixed(1)}%)`;
  return h(
    'tr',
    {},
    h('td', {}, h('a', { href: `#/market/${p.conditionId}` }, p.title)),
    h('td', {}, p.outcome),
    h('td', {}, formatSize(p.size)),
    h('td', {}, p.avgPrice.toFixed(3)),
    h('td', {}, p.curPrice.toFixed(3)),
    h('td', {}, money(p.currentValue)),
    h('td', { class: p.cashPnl >= 0 ? 'up' : 'down' }, pnl),
    h('td', { class: p.realizedPnl >= 0 ? 'up' : 'down' }, money(p.realizedPnl)),
  );
}

function tradeRow(t: TradeFill): HTMLTableRowElement {
  return h(
    'tr',
    { class: t.side === 'BUY' ? 'buy' : 'sell' },
    h('td', {}, new Date(t.timestamp * 1000).toLocaleString('en-GB')),
    h('td', {}, h('a', { href: `#/market/${t.conditionId}` }, t.title)),
    h('td', {}, t.outcome),
    h('td', {}, t.side),
    h('td', {}, String(t.price)),
    h('td', {}, formatSize(t.size)),
  );
}
