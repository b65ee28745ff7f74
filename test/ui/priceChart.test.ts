// The market page's price chart follows the trades (issue 34: it drew a flat line while trades moved): against
// the running service, a market whose book stays wide (0.30 / 0.70: a spread over 0.10) trades at 0.40 in one
// minute of engine time and at 0.60 two minutes later. Its mark is upstream's displayed price, the last trade
// while the spread is over 0.10: GET /prices-history goes from 0.40 to 0.60 (the midpoint, 0.50 throughout,
// would be a flat line), and the line the page draws rises by as much. The engine's clock runs minutes behind
// the wall clock and only moves forward: to the start of a minute before the book is placed, and two minutes
// on between the trades, so that they fall in different minutes, both in the past of the API's clock.

import t from 'tap';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Page } from 'playwright-core';
import { startService } from '../../server/service.js';
import { launchChromium, SCREENSHOT_DIR } from '../support/browser.js';
import { freshDatabase } from '../support/projectionFixtures.js';
import { testConfig } from '../support/serviceFixture.js';
import { uiMarket } from '../support/uiMarket.js';

interface PricePoint {
  t: number;
  p: number;
}

let offset = -210_000;
const { ch, db } = await freshDatabase();
const svc = await startService(testConfig({ clickhouseDatabase: db, projectionIntervalMs: 50 }), pino({ level: 'silent' }), { clickhouse: ch, engineClock: () => Date.now() + offset });
t.teardown(() => svc.close());
const base = `http://127.0.0.1:${svc.port}`;
const host = svc.engine;
const { market: M, funded, place } = uiMarket(base, host);
const [T0] = M.tokenIds;

async function until(what: string, ms: number, probe: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function history(): Promise<PricePoint[]> {
  return ((await (await fetch(`${base}/clob/prices-history?market=${T0}&interval=1h`)).json()) as { history: PricePoint[] }).history;
}

/**
 * The rows of the chart's canvas where the price line (its colour, opaque) is drawn, in its leftmost and its
 * rightmost column, and over all of it.
 */
async function lineRows(page: Page): Promise<{ pixels: number; top: number; bottom: number; left: number; right: number }> {
  // Runs in the page; the canvas is typed loosely since these tests compile without the DOM library.
  return page.locator('.history canvas').first().evaluate((canvas) => {
    const { width, height } = canvas;
    const data: Uint8ClampedArray = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    const line = (x: number, y: number): boolean => {
      const i = 4 * (y * width + x);
      return Math.abs(data[i]! - 37) < 30 && Math.abs(data[i + 1]! - 99) < 30 && Math.abs(data[i + 2]! - 235) < 30 && data[i + 3]! > 200;
    };
    let pixels = 0;
    let top = height;
    let bottom = -1;
    const columns = new Map<number, number[]>();
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        if (!line(x, y)) continue;
        pixels++;
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
        columns.set(x, [...(columns.get(x) ?? []), y]);
      }
    }
    const xs = [...columns.keys()].sort((a, b) => a - b);
    const mean = (x: number | undefined): number => {
      const ys = columns.get(x ?? -1) ?? [];
      return ys.reduce((n, y) => n + y, 0) / Math.max(1, ys.length);
    };
    return { pixels, top, bottom, left: mean(xs[0]), right: mean(xs.at(-1)) };
  });
}

// The book and the first trade in one minute of engine time: from its second second.
const engineNow = Date.now() + offset;
offset += 60_000 - (engineNow % 60_000) + 1_000;
// A wide book that no trade below touches: its midpoint stays 0.50 throughout.
const maker = await funded(1000, 200);
await place(maker, 'BUY', 0.3, 50);
await place(maker, 'SELL', 0.7, 50);
const seller = await funded(100, 100);
const buyer = await funded(100);
// Minute A: a seller offers inside the spread and a buyer takes it all, at 0.40.
await place(seller, 'SELL', 0.4, 10);
await place(buyer, 'BUY', 0.4, 10, 'FAK');
await host.idle();
// Two minutes of engine time later (still before the wall clock): the same at 0.60.
offset += 120_000;
await place(seller, 'SELL', 0.6, 10);
await place(buyer, 'BUY', 0.6, 10, 'FAK');
await host.idle();

const browser = await launchChromium();
t.teardown(() => browser.close());
const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
const errors: string[] = [];
page.on('pageerror', (e) => errors.push(e.message));

t.test('trades move the price: /prices-history and the drawn line follow them', async (t) => {
  await until('the second trade in the price history', 10_000, async () => (await history()).at(-1)?.p === 0.6);
  const points = await history();
  const prices = [...new Set(points.map((x) => x.p))];
  t.ok(prices.includes(0.4) && prices.includes(0.6), `the marks of the two minutes: ${prices.join(', ')}`);
  const at = (p: number): number => points.find((x) => x.p === p)?.t ?? -1;
  t.ok(at(0.4) < at(0.6), '0.40 first, then 0.60');
  const mid = (await (await fetch(`${base}/clob/midpoint?token_id=${T0}`)).json()) as { mid: string };
  t.equal(Number(mid.mid), 0.5, 'while the midpoint stayed 0.50 (spread 0.40)');

  await page.goto(`${base}/ui#/market/${M.conditionId}`);
  await page.waitForSelector('body[data-view="market"] .history');
  await page.click('.intervals button[data-interval="max"]');
  await page.waitForFunction("Number(document.querySelector('.history')?.getAttribute('data-points') ?? '0') >= 2");
  await until('the price line', 5000, async () => (await lineRows(page)).pixels > 300);
  const drawn = await lineRows(page);
  t.comment(`the line spans rows ${drawn.top}..${drawn.bottom}; leftmost column at ${drawn.left.toFixed(1)}, rightmost at ${drawn.right.toFixed(1)}`);
  // The plot is about 170 px high for prices 0.38..0.62: 0.20 apart is over 100 px; a flat line spans its width (2 px).
  t.ok(drawn.bottom - drawn.top > 80, `the drawn line moves: ${drawn.bottom - drawn.top} px from its lowest to its highest row`);
  t.ok(drawn.left - drawn.right > 80, 'and rises from left to right (0.40, then 0.60)');
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'ui-price-chart.png'), fullPage: true });
  t.same(errors, [], 'no page error');
});
