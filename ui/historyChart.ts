// The price history of a token (GET /clob/prices-history) over a chosen interval, drawn by uPlot. Its points
// are the token's mark per minute, t the minute's start: upstream's displayed price, the book's midpoint while
// the spread is at most 0.10, else the last trade (projections/readModel/marks.ts), so the line follows the
// trades when the book is wide. The market view feeds the live mark in the same form, so the line moves with the
// book and the trades.

import uPlot from 'uplot';
import { getJson, type PricePoint } from './api.js';
import { h } from './dom.js';

export const INTERVALS = ['1h', '6h', '1d', '1w', '1m', 'max'] as const;
export type Interval = (typeof INTERVALS)[number];

const HEIGHT = 220;

/** Seconds each interval spans back from now; `max` spans the data. */
const SPAN: Readonly<Record<Interval, number | undefined>> = { '1h': 3600, '6h': 21_600, '1d': 86_400, '1w': 604_800, '1m': 2_592_000, max: undefined };

const nowSec = (): number => Math.floor(Date.now() / 1000);

export class HistoryChart {
  readonly element: HTMLElement;
  private readonly plot: uPlot;
  private readonly buttons = new Map<Interval, HTMLButtonElement>();
  private times: number[] = [];
  private prices: number[] = [];
  private interval: Interval = 'max';
  private request = 0;

  constructor(private readonly tokenId: string) {
    const bar = h('div', { class: 'intervals' });
    for (const i of INTERVALS) {
      const b = h('button', { type: 'button', 'data-interval': i, onclick: () => void this.load(i) }, i);
      this.buttons.set(i, b);
      bar.append(b);
    }
    const area = h('div', { class: 'chart' });
    this.element = h('div', { class: 'history' }, bar, area);
    this.plot = new uPlot(
      {
        width: 600,
        height: HEIGHT,
        legend: { show: false },
        scales: {
          x: { range: (_u, min, max) => this.xRange(min, max) },
          y: { range: (_u, min, max) => [Math.max(0, min - 0.02), Math.min(1, max + 0.02)] },
        },
        axes: [{ stroke: '#8a94a6', grid: { stroke: '#eef0f4' } }, { stroke: '#8a94a6', grid: { stroke: '#eef0f4' }, size: 48 }],
        series: [{}, { label: 'price', stroke: '#2563eb', width: 2, fill: 'rgba(37,99,235,0.08)' }],
      },
      [[], []],
      area,
    );
    new ResizeObserver(() => this.plot.setSize({ width: Math.max(area.clientWidth, 200), height: HEIGHT })).observe(area);
  }

  /** Points drawn so far (for tests: the chart has data). */
  get points(): number {
    return this.times.length;
  }

  async load(interval: Interval = this.interval): Promise<void> {
    this.interval = interval;
    for (const [i, b] of this.buttons) b.classList.toggle('active', i === interval);
    const mine = ++this.request;
    const { history } = await getJson<{ history: PricePoint[] }>(`/clob/prices-history?market=${encodeURIComponent(this.tokenId)}&interval=${interval}`);
    if (mine !== this.request) return;
    this.times = history.map((x) => x.t);
    this.prices = history.map((x) => x.p);
    this.draw();
  }

  /** The mark is `price` at Unix second `t`: it becomes (or replaces) the point of t's minute. */
  mark(t: number, price: number): void {
    const bucket = Math.floor(t / 60) * 60;
    const last = this.times.at(-1);
    if (last !== undefined && bucket < last) return;
    if (last === bucket) {
      if (this.prices.at(-1) === price) return;
      this.prices[this.prices.length - 1] = price;
    } else {
      this.times.push(bucket);
      this.prices.push(price);
    }
    this.draw();
  }

  private xRange(min: number, max: number): [number, number] {
    const span = SPAN[this.interval];
    if (span !== undefined) return [nowSec() - span, nowSec()];
    return min === max ? [min - 1800, max + 60] : [min, max];
  }

  /** The last price holds until now, so the line runs to the right edge (and a single point is a line). */
  private draw(): void {
    const last = this.times.at(-1);
    const now = nowSec();
    const extend = last !== undefined && last < now;
    this.plot.setData([extend ? [...this.times, now] : this.times, extend ? [...this.prices, this.prices.at(-1) as number] : this.prices]);
    this.element.dataset.points = String(this.times.length);
  }
}
