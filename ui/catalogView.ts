// Markets grouped by event, with a search box: the catalog surface's public search names the events that match
// (their titles, tags), and a market also matches on its own question. Each market shows its first outcome's
// midpoint (POST /clob/midpoints), refreshed every few seconds. A neg-risk event (its outcomes exclusive, one
// market resolves YES) also shows the sum of its markets' YES midpoints, which should be about 100¢.

import { getJson, textArray, type CatalogMarket, type SearchResult } from './api.js';
import { fill, h } from './dom.js';
import { fetchMidpoints } from './midpoints.js';
import type { View } from './marketView.js';

const SEARCH_DELAY_MS = 150;
const PRICES_MS = 5_000;

interface EventGroup {
  readonly id: string;
  readonly title: string;
  readonly markets: CatalogMarket[];
  /** Every open market of the event, whatever the search shows (the sum is the event's). */
  readonly all: CatalogMarket[];
  readonly negRisk: boolean;
}

export async function catalogView(): Promise<View> {
  const markets = await getJson<CatalogMarket[]>('/catalog/markets?closed=false&limit=500');
  const groups = new Map<string, EventGroup>();
  for (const m of markets) {
    const e = m.events?.[0];
    const key = e?.id ?? `market-${m.id}`;
    const group = groups.get(key) ?? { id: key, title: e?.title ?? m.question, markets: [], all: [], negRisk: e !== undefined && m.negRisk === true };
    group.markets.push(m);
    group.all.push(m);
    groups.set(key, group);
  }
  const mids = new Map<string, string>();
  const firstToken = (m: CatalogMarket): string => textArray(m.clobTokenIds)[0] ?? '';
  const list = h('div', { class: 'events' });
  const paintPrices = (): void => {
    for (const el of list.querySelectorAll<HTMLElement>('.mid[data-token]')) {
      const mid = mids.get(el.dataset.token ?? '');
      el.textContent = mid === undefined ? '' : `${Math.round(Number(mid) * 100)}¢`;
    }
    // The sum once every market of the event has a midpoint; data-sum holds it unrounded.
    for (const el of list.querySelectorAll<HTMLElement>('.sum[data-tokens]')) {
      const all = (el.dataset.tokens ?? '').split(',').map((t) => mids.get(t));
      const known = all.every((mid) => mid !== undefined);
      const sum = all.reduce((n, mid) => n + Number(mid ?? 0), 0);
      el.textContent = known ? `${Math.round(sum * 100)}¢` : '…';
      if (known) el.dataset.sum = sum.toFixed(6);
      else delete el.dataset.sum;
    }
  };
  const loadPrices = async (): Promise<void> => {
    await fetchMidpoints(markets.map(firstToken).filter((x) => x !== ''), mids);
    paintPrices();
  };
  const count = h('span', { class: 'count' });
  const show = (eventIds: ReadonlySet<string> | undefined, words: string): void => {
    const shown = [...groups.values()]
      .map((g) => ({ ...g, markets: eventIds === undefined || eventIds.has(g.id) ? g.markets : g.markets.filter((m) => m.question.toLowerCase().includes(words)) }))
      .filter((g) => g.markets.length > 0);
    count.textContent = `${shown.reduce((n, g) => n + g.markets.length, 0)} markets in ${shown.length} events`;
    fill(list, ...shown.map((g) => groupCard(g, firstToken)));
    if (shown.length === 0) fill(list, h('p', { class: 'empty' }, 'No market matches.'));
    paintPrices();
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let latest = 0;
  const search = (q: string): void => {
    clearTimeout(timer);
    const words = q.trim().toLowerCase();
    if (words === '') {
      show(undefined, '');
      return;
    }
    timer = setTimeout(() => {
      const mine = ++latest;
      getJson<SearchResult>(`/catalog/public-search?q=${encodeURIComponent(words)}`)
        .catch(() => ({ events: [] }) as SearchResult)
        .then((r) => {
          if (mine === latest) show(new Set(r.events.map((e) => String(e.id))), words);
        });
    }, SEARCH_DELAY_MS);
  };
  const input = h('input', { type: 'search', class: 'search', placeholder: 'Search markets and events', oninput: (e) => search((e.target as HTMLInputElement).value) });
  show(undefined, '');
  const refresh = (): void => void loadPrices().catch(() => undefined);
  refresh();
  const prices = setInterval(refresh, PRICES_MS);
  const close = (): void => {
    clearTimeout(timer);
    clearInterval(prices);
  };
  return { element: h('div', { class: 'catalog' }, h('div', { class: 'toolbar' }, input, count), list), close };
}

function groupCard(g: EventGroup, firstToken: (m: CatalogMarket) => string): HTMLElement {
  const sum = g.negRisk && g.all.length > 1
    ? h('p', { class: 'event-sum', title: 'One market of this event resolves Yes: its Yes prices should add up to about 100¢' }, 'Sum of Yes prices', h('span', { class: 'sum', 'data-tokens': g.all.map(firstToken).join(',') }, '…'))
    : '';
  return h(
    'section',
    { class: 'event', 'data-event-id': g.id, ...(g.negRisk ? { 'data-neg-risk': 'true' } : {}) },
    h('h3', {}, g.title),
    h('ul', {}, ...g.markets.map((m) => h('li', {}, h('a', { href: `#/market/${m.conditionId}`, 'data-condition-id': m.conditionId }, m.question), m.active ? '' : h('small', {}, ' (inactive)'), h('span', { class: 'mid', 'data-token': firstToken(m) })))),
    sum,
  );
}
