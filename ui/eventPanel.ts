// A market's neg-risk event on its page: each open market of the event with its Yes midpoint, the one shown
// marked, and the sum of those prices (one of the event's outcomes happens, so about 100¢), refreshed every
// few seconds. Markets from GET /catalog/markets?closed=false, midpoints from POST /clob/midpoints.

import { getJson, textArray, type CatalogMarket, type EventSummary } from './api.js';
import { h } from './dom.js';
import { fetchMidpoints } from './midpoints.js';

const PRICES_MS = 5_000;

export interface EventPanel {
  readonly element: HTMLElement;
  close(): void;
}

export async function eventPanel(event: EventSummary, current: string): Promise<EventPanel> {
  const all = await getJson<CatalogMarket[]>('/catalog/markets?closed=false&limit=500');
  const markets = all.filter((m) => m.events?.[0]?.id === event.id);
  const yes = (m: CatalogMarket): string => textArray(m.clobTokenIds)[0] ?? '';
  const rows = markets.map((m) => ({ token: yes(m), price: h('span', { class: 'mid', 'data-token': yes(m) }), m }));
  const sum = h('span', { class: 'sum', 'data-tokens': rows.map((r) => r.token).join(',') }, '…');
  const element = h(
    'section',
    { class: 'panel event-panel', 'data-event-id': event.id },
    h('h3', {}, `${event.title}: one outcome happens`),
    h('ul', {}, ...rows.map((r) => h('li', r.m.conditionId === current ? { class: 'current' } : {}, h('a', { href: `#/market/${r.m.conditionId}` }, r.m.question), r.price))),
    h('p', { class: 'event-sum' }, 'Sum of Yes prices', sum),
  );
  const mids = new Map<string, string>();
  const paint = (): void => {
    for (const r of rows) {
      const mid = mids.get(r.token);
      r.price.textContent = mid === undefined ? '' : `${Math.round(Number(mid) * 100)}¢`;
    }
    const known = rows.every((r) => mids.has(r.token));
    const total = rows.reduce((n, r) => n + Number(mids.get(r.token) ?? 0), 0);
    sum.textContent = known ? `${Math.round(total * 100)}¢` : '…';
    if (known) sum.dataset.sum = total.toFixed(6);
  };
  const refresh = (): void => void fetchMidpoints(rows.map((r) => r.token), mids).then(paint, () => undefined);
  refresh();
  const timer = setInterval(refresh, PRICES_MS);
  return { element, close: () => clearInterval(timer) };
}
