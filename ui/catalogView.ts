// Markets grouped by event, open ones first, with a search box: the catalog surface's public search names the
// events that match (their titles, tags), and a market also matches on its own question.

import { getJson, type CatalogMarket, type SearchResult } from './api.js';
import { fill, h } from './dom.js';
import type { View } from './marketView.js';

const SEARCH_DELAY_MS = 150;

interface EventGroup {
  readonly id: string;
  readonly title: string;
  readonly markets: CatalogMarket[];
}

export async function catalogView(): Promise<View> {
  const markets = await getJson<CatalogMarket[]>('/catalog/markets?closed=false&limit=500');
  const groups = new Map<string, EventGroup>();
  for (const m of markets) {
    const e = m.events?.[0];
    const key = e?.id ?? `market-${m.id}`;
    const group = groups.get(key) ?? { id: key, title: e?.title ?? m.question, markets: [] };
    group.markets.push(m);
    groups.set(key, group);
  }
  const list = h('div', { class: 'events' });
  const count = h('span', { class: 'count' });
  const show = (eventIds: ReadonlySet<string> | undefined, words: string): void => {
    const shown = [...groups.values()]
      .map((g) => ({ ...g, markets: eventIds === undefined || eventIds.has(g.id) ? g.markets : g.markets.filter((m) => m.question.toLowerCase().includes(words)) }))
      .filter((g) => g.markets.length > 0);
    count.textContent = `${shown.reduce((n, g) => n + g.markets.length, 0)} markets in ${shown.length} events`;
    fill(list, ...shown.map(groupCard));
    if (shown.length === 0) fill(list, h('p', { class: 'empty' }, 'No market matches.'));
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
  return { element: h('div', { class: 'catalog' }, h('div', { class: 'toolbar' }, input, count), list), close: () => clearTimeout(timer) };
}

function groupCard(g: EventGroup): HTMLElement {
  return h(
    'section',
    { class: 'event', 'data-event-id': g.id },
    h('h3', {}, g.title),
    h('ul', {}, ...g.markets.map((m) => h('li', {}, h('a', { href: `#/market/${m.conditionId}`, 'data-condition-id': m.conditionId }, m.question), m.active ? '' : h('small', {}, ' (inactive)')))),
  );
}
