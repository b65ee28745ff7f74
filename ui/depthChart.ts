// A token's depth chart: cumulative size against price, bids (green) from the best bid down, asks (red) from
// the best ask up, drawn as steps by uPlot.

import uPlot from 'uplot';
import type { BookLevel } from './api.js';

const HEIGHT = 180;

export class DepthChart {
  private readonly plot: uPlot;

  constructor(parent: HTMLElement) {
    // Between two bid prices the depth is that of the higher one (align -1); between two asks, the lower one's.
    const bidSteps = uPlot.paths.stepped?.({ align: -1 });
    const askSteps = uPlot.paths.stepped?.({ align: 1 });
    const opts: uPlot.Options = {
      width: Math.max(parent.clientWidth, 200),
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false }, y: { range: (_u, _min, max) => [0, Math.max(1, max) * 1.1] } },
      axes: [{ stroke: '#8a94a6', grid: { stroke: '#eef0f4' } }, { stroke: '#8a94a6', grid: { stroke: '#eef0f4' }, size: 56 }],
      series: [
        {},
        { label: 'bids', stroke: '#16a34a', fill: 'rgba(22,163,74,0.18)', paths: bidSteps, points: { show: false } },
        { label: 'asks', stroke: '#dc2626', fill: 'rgba(220,38,38,0.18)', paths: askSteps, points: { show: false } },
      ],
    };
    this.plot = new uPlot(opts, [[], [], []], parent);
    new ResizeObserver(() => this.plot.setSize({ width: Math.max(parent.clientWidth, 200), height: HEIGHT })).observe(parent);
  }

  /** bids best first (descending), asks best first (ascending). */
  update(bids: readonly BookLevel[], asks: readonly BookLevel[]): void {
    const xs: number[] = [];
    const bidDepth: (number | null)[] = [];
    const askDepth: (number | null)[] = [];
    const bidPoints = cumulative(bids).reverse();
    const askPoints = cumulative(asks);
    // Each side runs on a little past its last level, so that level's step has a width.
    const low = bidPoints[0]?.[0] ?? askPoints[0]?.[0] ?? 0;
    const high = askPoints.at(-1)?.[0] ?? bidPoints.at(-1)?.[0] ?? 1;
    const pad = Math.max(0.01, (high - low) * 0.08);
    const lowest = bidPoints[0];
    if (lowest !== undefined) bidPoints.unshift([Math.max(0, lowest[0] - pad), lowest[1]]);
    const highest = askPoints.at(-1);
    if (highest !== undefined) askPoints.push([Math.min(1, highest[0] + pad), highest[1]]);
    for (const [p, q] of bidPoints) {
      xs.push(p);
      bidDepth.push(q);
      askDepth.push(null);
    }
    for (const [p, q] of askPoints) {
      xs.push(p);
      bidDepth.push(null);
      askDepth.push(q);
    }
    this.plot.setData([xs, bidDepth, askDepth]);
  }
}

function cumulative(levels: readonly BookLevel[]): [number, number][] {
  let total = 0;
  return levels.map((l) => {
    total += Number(l.size);
    return [Number(l.price), total];
  });
}
