// A market: for each outcome its best bid and ask, its ladder and its depth chart; the first outcome's price
// history with its intervals, following the live mark; the market's recent trades. Books are snapshots from
// GET /clob/book, replaced by the market channel's `book` events and changed by its `price_change` events;
// redrawn once per frame. A question of a neg-risk event also lists the event's markets, their prices and the
// sum (eventPanel.ts).

import { getJson, textArray, type BookSnapshot, type CatalogMarket, type TradeFill } from './api.js';
import { BookState } from './bookState.js';
import { DepthChart } from './depthChart.js';
import { h } from './dom.js';
import { eventPanel } from './eventPanel.js';
import { HistoryChart } from './historyChart.js';
import { renderLadder } from './ladder.js';
import { rewardsPanel } from './rewardsPanel.js';
import { MarketChannel, type LastTrade, type LiveState } from './marketChannel.js';
import { TradesTable, type TradeRow } from './tradesTable.js';

interface OutcomePane {
  readonly state: BookState;
  readonly label: string;
  readonly quote: HTMLElement;
  readonly ladder: HTMLTableSectionElement;
  readonly depth: DepthChart;
}

export interface View {
  readonly element: HTMLElement;
  close(): void;
}

export async function marketView(id: string, onLive: (state: LiveState) => void): Promise<View> {
  const market = await getJson<CatalogMarket>(`/catalog/markets/${encodeURIComponent(id)}`);
  const tokens = textArray(market.clobTokenIds);
  const labels = textArray(market.outcomes);
  const event = market.events?.[0];
  const books = h('section', { class: 'books' });
  const panes = new Map<string, OutcomePane>();
  tokens.forEach((token, i) => {
    const label = labels[i] ?? `Outcome ${i}`;
    const quote = h('div', { class: 'quote' });
    const ladder = h('tbody');
    const depthArea = h('div', { class: 'depth' });
    books.append(h('div', { class: 'pane', 'data-token': token }, h('h3', {}, label), quote, h('table', { class: 'ladder' }, h('thead', {}, h('tr', {}, h('th', {}, 'price'), h('th', {}, 'size'))), ladder), depthArea));
    panes.set(token, { state: new BookState(token), label, quote, ladder, depth: new DepthChart(depthArea) });
  });
  const history = new HistoryChart(tokens[0] ?? '');
  const trades = new TradesTable();
  // A question of a neg-risk event shows the event's markets and what their prices add up to.
  const siblings = market.negRisk === true && event !== undefined ? await eventPanel(event, market.conditionId).catch(() => undefined) : undefined;
  // A rewarded market shows its band on the ladders and, with an API key connected, the key's scoring orders.
  const rewards = await rewardsPanel(market.conditionId, tokens, books).catch(() => undefined);
  const element = h(
    'div',
    { class: 'market', 'data-condition-id': market.conditionId },
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, 'Markets'), event === undefined ? '' : ` / ${event.title}`),
    h('h2', {}, market.question),
    books,
    rewards?.element ?? '',
    siblings?.element ?? '',
    h('section', { class: 'panel' }, h('h3', {}, `${labels[0] ?? 'Outcome 0'} price`), history.element),
    h('section', { class: 'panel' }, h('h3', {}, 'Recent trades'), trades.element),
  );

  let frame = 0;
  const redraw = (): void => {
    if (frame !== 0) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      for (const pane of panes.values()) drawPane(pane);
      const first = panes.get(tokens[0] ?? '');
      const mark = first === undefined ? undefined : markOf(first.state);
      if (mark !== undefined) history.mark(Date.now() / 1000, mark);
    });
  };
  const outcomeOf = (asset: string): number => Math.max(0, tokens.indexOf(asset));
  const live = (t: LastTrade): TradeRow => {
    const o = outcomeOf(t.asset_id);
    const firstOutcomePrice = o === 0 ? Number(t.price) : 1 - Number(t.price);
    return { key: `${t.transaction_hash}|${t.size}|${firstOutcomePrice.toFixed(6)}`, timeMs: Number(t.timestamp), outcome: labels[o] ?? '', side: t.side, price: t.price, size: t.size };
  };

  const snapshots = await Promise.all(tokens.map((t) => getJson<BookSnapshot>(`/clob/book?token_id=${encodeURIComponent(t)}`)));
  for (const book of snapshots) panes.get(book.asset_id)?.state.replace(book);
  for (const pane of panes.values()) drawPane(pane);
  const fills = await getJson<TradeFill[]>(`/activity/trades?market=${encodeURIComponent(market.conditionId)}&limit=50`).catch(() => [] as TradeFill[]);
  trades.add(fills.map((f) => ({ key: `activity|${f.transactionHash}|${f.size}|${f.price}|${f.outcome}`, timeMs: f.timestamp * 1000, outcome: f.outcome, side: f.side, price: String(f.price), size: String(f.size), wallet: f.proxyWallet })));
  void history.load();

  const channel = new MarketChannel(
    tokens,
    {
      book: (book) => {
        panes.get(book.asset_id)?.state.replace(book);
        redraw();
      },
      priceChange: (changes) => {
        for (const c of changes) panes.get(c.asset_id)?.state.change(c);
        redraw();
      },
      lastTrade: (t) => {
        const pane = panes.get(t.asset_id);
        if (pane === undefined) return;
        pane.state.lastTradePrice = t.price;
        trades.add([live(t)]);
        redraw();
      },
    },
    onLive,
  );
  return {
    element,
    close: () => {
      channel.close();
      siblings?.close();
      rewards?.close();
    },
  };
}

/**
 * The price history's mark (projections/readModel/marks.ts, upstream's displayed price): the midpoint while
 * the spread is at most 0.10, else the last trade, else (never traded) the midpoint. Compared in micro-units,
 * as the server does, so that a spread of exactly 0.10 is not lost to floating point.
 */
function markOf(book: BookState): number | undefined {
  const micros = (decimal: string): number | undefined => (decimal === '' ? undefined : Math.round(Number(decimal) * 1_000_000));
  const bid = micros(book.bestBid());
  const ask = micros(book.bestAsk());
  const last = micros(book.lastTradePrice);
  const mark = bid !== undefined && ask !== undefined && (last === undefined || ask - bid <= 100_000) ? (bid + ask) / 2 : last;
  return mark === undefined ? undefined : mark / 1_000_000;
}

function drawPane(pane: OutcomePane): void {
  const bids = pane.state.bidLevels();
  const asks = pane.state.askLevels();
  renderLadder(pane.ladder, bids, asks);
  pane.depth.update(bids, asks);
  const item = (name: string, value: string, cls: string): HTMLElement => h('span', { class: cls, 'data-quote': cls }, h('small', {}, name), value === '' ? '–' : value);
  pane.quote.replaceChildren(item('best bid', pane.state.bestBid(), 'bid'), item('best ask', pane.state.bestAsk(), 'ask'), item('last', pane.state.lastTradePrice, 'last'));
}
