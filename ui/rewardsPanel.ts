// A rewarded market's liquidity rewards (docs/rewards.md): its program (GET /clob/rewards/markets/{id}, public)
// and its band, the prices less than the max spread from the size-cutoff-adjusted midpoint, computed from the
// first outcome's ladder as drawn (the levels on each side from the best until the minimum size is reached)
// and marked on both ladders (`in-band` rows, the second outcome's mirrored). With an API key connected
// (address, key, secret and passphrase, kept for this tab only): the key's open orders in the market with
// whether each scores now (GET /clob/data/orders, POST /clob/orders-scoring), its share of a sample taken now
// (GET /clob/rewards/user/percentages) and the day's earnings so far (GET /clob/rewards/user?date=), every 5 s.
// A market without a program has no panel.

import { getJson } from './api.js';
import { fill, h } from './dom.js';
import { formatSize } from './ladder.js';
import { l2Json, storedKey, storeKey, type L2Key } from './l2Headers.js';

interface MarketReward {
  readonly rewards_max_spread: number;
  readonly rewards_min_size: number;
  readonly market_competitiveness: number;
  readonly rewards_config: readonly { readonly rate_per_day: number }[];
}

interface OpenOrder {
  readonly id: string;
  readonly side: string;
  readonly price: string;
  readonly original_size: string;
  readonly size_matched: string;
  readonly outcome: string;
}

const REFRESH_MS = 5_000;
const micro = (price: string | number): number => Math.round(Number(price) * 1_000_000);

export interface RewardsPanel {
  readonly element: HTMLElement;
  close(): void;
}

/** The size-cutoff-adjusted midpoint (micro-units) of levels as drawn, or undefined when a side is too thin. */
export function cutoffMidpoint(bids: readonly [number, number][], asks: readonly [number, number][], minShares: number): number | undefined {
  const cutoff = (levels: readonly [number, number][]): number | undefined => {
    let depth = 0;
    for (const [price, size] of levels) {
      depth += size;
      if (depth >= minShares) return price;
    }
    return undefined;
  };
  const bid = cutoff(bids);
  const ask = cutoff(asks);
  return bid === undefined || ask === undefined ? undefined : (bid + ask) / 2;
}

export async function rewardsPanel(conditionId: string, tokens: readonly string[], books: HTMLElement): Promise<RewardsPanel | undefined> {
  const page = await getJson<{ data: MarketReward[] }>(`/clob/rewards/markets/${encodeURIComponent(conditionId)}`);
  const program = page.data[0];
  if (program === undefined) return undefined;
  const v = Math.round(program.rewards_max_spread * 10_000);
  const rate = program.rewards_config.reduce((n, c) => n + c.rate_per_day, 0);
  const band = h('p', { class: 'band', 'data-band': '' });
  const mine = h('div', { class: 'rewards-key' });

  const rows = (token: string): HTMLTableRowElement[] => [...books.querySelectorAll<HTMLTableRowElement>(`.pane[data-token="${token}"] .ladder tr[data-side]`)];
  const drawBand = (): void => {
    const first = rows(tokens[0] ?? '');
    const level = (r: HTMLTableRowElement): [number, number] => [micro(r.dataset.price ?? '0'), Number(r.dataset.size ?? '0')];
    const bids = first.filter((r) => r.dataset.side === 'bid').map(level).sort((a, b) => b[0] - a[0]);
    const asks = first.filter((r) => r.dataset.side === 'ask').map(level).sort((a, b) => a[0] - b[0]);
    const mid = cutoffMidpoint(bids, asks, program.rewards_min_size);
    tokens.forEach((token, i) => {
      const center = mid === undefined ? undefined : i === 0 ? mid : 1_000_000 - mid;
      for (const r of rows(token)) r.classList.toggle('in-band', center !== undefined && Math.abs(micro(r.dataset.price ?? '0') - center) < v);
    });
    band.dataset.low = mid === undefined ? '' : String((mid - v) / 1e6);
    band.dataset.high = mid === undefined ? '' : String((mid + v) / 1e6);
    fill(
      band,
      mid === undefined
        ? `No band now: a side of the book holds less than ${formatSize(program.rewards_min_size)} shares.`
        : `Band ${((mid - v) / 1e6).toFixed(4).replace(/0+$/, '')} – ${((mid + v) / 1e6).toFixed(4).replace(/0+$/, '')}: less than ${program.rewards_max_spread}¢ from the size-cutoff-adjusted midpoint ${(mid / 1e6).toFixed(4).replace(/0+$/, '')} (highlighted on the ladders).`,
    );
  };
  const observer = new MutationObserver(() => drawBand());
  for (const token of tokens) {
    const ladder = books.querySelector(`.pane[data-token="${token}"] .ladder tbody`);
    if (ladder !== null) observer.observe(ladder, { childList: true });
  }
  drawBand();

  let timer: ReturnType<typeof setInterval> | undefined;
  const connectForm = (): HTMLFormElement => {
    const input = (name: string, placeholder: string): HTMLInputElement => h('input', { name, placeholder, autocomplete: 'off', spellcheck: false, required: true });
    const form = h('form', { class: 'connect' }, input('address', 'address 0x…'), input('apiKey', 'API key'), input('secret', 'secret'), input('passphrase', 'passphrase'), h('button', { type: 'submit' }, 'Connect an API key'));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const data = new FormData(form);
      const text = (name: string): string => String(data.get(name) ?? '').trim();
      storeKey({ address: text('address'), apiKey: text('apiKey'), secret: text('secret'), passphrase: text('passphrase') });
      void showKey();
    });
    return form;
  };
  const refresh = async (key: L2Key, body: HTMLTableSectionElement, summary: HTMLElement): Promise<void> => {
    const today = new Date().toISOString().slice(0, 10);
    const [orders, earned, shares] = await Promise.all([
      l2Json<{ data: OpenOrder[] }>(key, 'GET', '/data/orders', `?market=${encodeURIComponent(conditionId)}`),
      l2Json<{ data: { condition_id: string; earnings: number }[] }>(key, 'GET', '/rewards/user', `?date=${today}`),
      l2Json<Record<string, number>>(key, 'GET', '/rewards/user/percentages'),
    ]);
    const ids = orders.data.map((o) => o.id);
    const scoring = ids.length === 0 ? {} : await l2Json<Record<string, boolean>>(key, 'POST', '/orders-scoring', '', ids);
    const earnings = earned.data.filter((e) => e.condition_id === conditionId).reduce((n, e) => n + e.earnings, 0);
    summary.dataset.earnings = String(earnings);
    fill(summary, `Today's earnings so far: $${earnings.toFixed(2)} · share of a sample now: ${(shares[conditionId] ?? 0).toFixed(2)}%`);
    fill(
      body,
      ...orders.data.map((o) => {
        const scores = scoring[o.id] === true;
        return h(
          'tr',
          { 'data-order': o.id, 'data-scoring': String(scores), class: scores ? 'scoring' : '' },
          h('td', {}, o.outcome),
          h('td', {}, o.side),
          h('td', {}, o.price),
          h('td', {}, formatSize(Number(o.original_size) - Number(o.size_matched))),
          h('td', {}, scores ? 'yes' : 'no'),
        );
      }),
    );
    if (orders.data.length === 0) fill(body, h('tr', {}, h('td', { colspan: 5, class: 'empty' }, 'no open orders in this market')));
  };
  const showKey = async (): Promise<void> => {
    if (timer !== undefined) clearInterval(timer);
    timer = undefined;
    const key = storedKey();
    if (key === undefined) {
      fill(mine, connectForm());
      return;
    }
    const body = h('tbody');
    const summary = h('p', { class: 'earnings', 'data-earnings': '' });
    const problem = h('p', { class: 'error' });
    const disconnect = h('button', { type: 'button', onclick: () => { storeKey(undefined); void showKey(); } }, 'disconnect');
    fill(
      mine,
      h('p', {}, 'Connected: ', h('span', { class: 'mono' }, key.address), ' ', disconnect),
      summary,
      h('table', { class: 'grid' }, h('thead', {}, h('tr', {}, ...['outcome', 'side', 'price', 'size left', 'scoring'].map((n) => h('th', {}, n)))), body),
      problem,
    );
    const tick = (): void =>
      void refresh(key, body, summary).then(
        () => fill(problem),
        (error: unknown) => fill(problem, `Could not read the key's rewards: ${error instanceof Error ? error.message : String(error)}`),
      );
    tick();
    timer = setInterval(tick, REFRESH_MS);
  };
  await showKey();

  const element = h(
    'section',
    { class: 'panel rewards', 'data-rewards': '' },
    h('h3', {}, 'Liquidity rewards'),
    h('p', {}, `$${rate.toLocaleString('en-US')} a day, shared by the makers whose orders of at least ${formatSize(program.rewards_min_size)} shares rest within ${program.rewards_max_spread}¢ of the midpoint; paid at midnight UTC.`),
    band,
    mine,
  );
  return {
    element,
    close: () => {
      observer.disconnect();
      if (timer !== undefined) clearInterval(timer);
    },
  };
}
