// The market page (/ui) in a real browser (Chromium through playwright-core) against the whole running
// service: it loads without a console error and paints quickly; the catalog lists markets by event with their
// prices and searches; a market's ladders equal GET /book for both outcomes; a trade placed through the HTTP
// API shows on the page within a second and the ladders follow; the price and depth charts draw; an address
// shows its positions and trades. Screenshots go to .screenshots/.

import t from 'tap';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, SCREENSHOT_DIR } from '../support/browser.js';
import { startTestService } from '../support/serviceFixture.js';
import { uiMarket } from '../support/uiMarket.js';

interface Level {
  price: string;
  size: string;
}
interface Book {
  bids: Level[];
  asks: Level[];
}

const svc = await startTestService({ projectionIntervalMs: 50 });
t.teardown(() => svc.close());
const host = svc.service.engine;
const { market: M, funded, place } = uiMarket(svc.baseUrl, host);
const [T0, T1] = M.tokenIds;

async function book(token: string): Promise<Book> {
  return (await (await fetch(`${svc.baseUrl}/clob/book?token_id=${token}`)).json()) as Book;
}

/** The ladder of one outcome's pane, as GET /book lists it (bids and asks, each in the API's order). */
async function ladder(page: Page, token: string): Promise<Book> {
  const rows = await page.locator(`.pane[data-token="${token}"] .ladder tr[data-side]`).evaluateAll((trs) => trs.map((r) => [r.getAttribute('data-side'), r.getAttribute('data-price'), r.getAttribute('data-size')]));
  const side = (s: string): Level[] => rows.filter((r) => r[0] === s).map((r) => ({ price: String(r[1]), size: String(r[2]) }));
  return { bids: side('bid'), asks: side('ask') };
}

/** Both sides of a book by price, so that the ladder's order (asks top-down) does not matter. */
function byPrice(b: Book): Book {
  const sort = (l: Level[]) => [...l].sort((x, y) => Number(x.price) - Number(y.price));
  return { bids: sort(b.bids), asks: sort(b.asks) };
}

async function until(what: string, ms: number, probe: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Pixels of a canvas under `selector` close to the colour (r, g, b): how much of a series was drawn. */
async function pixelsOf(page: Page, selector: string, rgb: [number, number, number]): Promise<number> {
  // Runs in the page; the canvas is typed loosely since these tests compile without the DOM library.
  return page.locator(selector).first().evaluate((canvas, [r, g, b]) => {
    const data: Uint8ClampedArray = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (Math.abs(data[i]! - r) < 30 && Math.abs(data[i + 1]! - g) < 30 && Math.abs(data[i + 2]! - b) < 30 && data[i + 3]! > 200) n++;
    }
    return n;
  }, rgb);
}

// A resting book on the first outcome (and so, mirrored, on the second).
const maker = await funded(1000, 200);
await place(maker, 'BUY', 0.4, 10);
await place(maker, 'BUY', 0.42, 15);
await place(maker, 'SELL', 0.55, 12);
await place(maker, 'SELL', 0.58, 20);
await host.idle();

const browser = await launchChromium();
t.teardown(() => browser.close());
const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
const consoleErrors: string[] = [];
page.on('console', (m) => {
  if (m.type() === 'error') consoleErrors.push(m.text());
});
page.on('pageerror', (e) => consoleErrors.push(e.message));

t.test('the page and its bundle are served with their types and caching', async (t) => {
  const html = await fetch(`${svc.baseUrl}/ui`);
  t.equal(html.status, 200);
  t.match(html.headers.get('content-type'), /^text\/html/);
  t.equal(html.headers.get('cache-control'), 'no-cache');
  const text = await html.text();
  const script = /src="\/ui\/(main-[A-Z0-9]+\.js)"/.exec(text)?.[1];
  const style = /href="\/ui\/(main-[A-Z0-9]+\.css)"/.exec(text)?.[1];
  t.ok(script !== undefined && style !== undefined, 'the page names its hashed script and style');
  const js = await fetch(`${svc.baseUrl}/ui/${script}`);
  t.match(js.headers.get('content-type'), /^text\/javascript/);
  t.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  const size = (await js.text()).length;
  t.ok(size < 200_000, `the script is small (${size} bytes, every library inside)`);
  const css = await fetch(`${svc.baseUrl}/ui/${style}`);
  t.match(css.headers.get('content-type'), /^text\/css/);
  t.equal((await fetch(`${svc.baseUrl}/ui/main-NOPE.js`)).status, 404);
  t.match((await fetch(`${svc.baseUrl}/ui/`)).headers.get('content-type'), /^text\/html/, '/ui/ is the page too');
  t.equal(await (await fetch(`${svc.baseUrl}/`)).text(), 'OK', 'the root stays the CLOB health answer');
  const openapi = (await (await fetch(`${svc.baseUrl}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  t.notOk(Object.keys(openapi.paths).some((p) => p.startsWith('/ui')), 'the page is not in the OpenAPI document');
});

t.test('catalog: markets by event, search, and a quick first paint', async (t) => {
  await page.goto(`${svc.baseUrl}/ui`);
  await page.waitForSelector('body[data-view="catalog"] .event');
  const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1);
  t.comment(`first contentful paint: ${fcp.toFixed(0)} ms`);
  t.ok(fcp > 0 && fcp < 3000, `first paint under 3 s (${fcp.toFixed(0)} ms)`);
  t.ok(await page.locator(`a[data-condition-id="${M.conditionId}"]`).count(), 'the market is listed');
  const mid = page.locator(`.mid[data-token="${T0}"]`);
  await until('the midpoint beside the market', 5000, async () => ((await mid.textContent()) ?? '') !== '');
  t.match(await mid.textContent(), /^(48|49)¢$/, 'its first outcome at the midpoint of 0.42 and 0.55');
  const events = await page.locator('.event').count();
  const title = (await page.locator(`.event:has(a[data-condition-id="${M.conditionId}"]) h3`).textContent()) ?? '';
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'ui-catalog.png'), fullPage: true });
  await page.fill('input.search', title);
  await until('search results', 5000, async () => (await page.locator('.event').count()) < events);
  t.ok(await page.locator(`a[data-condition-id="${M.conditionId}"]`).count(), 'searching its event title keeps the market');
  await page.fill('input.search', 'zzzz no such market zzzz');
  await page.waitForSelector('.events .empty');
  t.pass('a search that matches nothing says so');
});

t.test('market: ladders equal GET /book, trades show within a second, charts draw', async (t) => {
  await page.goto(`${svc.baseUrl}/ui#/market/${M.conditionId}`);
  await page.waitForSelector('body[data-view="market"] .pane .ladder tr[data-side]');
  await page.waitForSelector('#live[data-state="live"]');
  for (const token of [T0, T1] as string[]) {
    t.same(byPrice(await ladder(page, token)), byPrice(await book(token)), `the ladder of ${token === T0 ? 'the first' : 'the second'} outcome equals GET /book`);
  }
  const quote = await page.locator(`.pane[data-token="${T0}"] [data-quote="bid"]`).textContent();
  t.match(quote, /0\.42/, 'best bid shown');

  const taker = await funded(1000);
  const sent = Date.now();
  await place(taker, 'BUY', 0.55, 3.33, 'FAK');
  await page.waitForSelector('.trades tr[data-size="3.33"]', { timeout: 1000 });
  t.comment(`trade on the page ${Date.now() - sent} ms after the order was sent`);
  t.pass('the trade shows within a second');
  const after = await book(T0 as string);
  t.ok(after.asks.some((l) => l.price === '0.55' && Number(l.size) === 12 - 3.33), 'the book changed');
  await until('the ladder to follow the book', 1000, async () => JSON.stringify(byPrice(await ladder(page, T0 as string))) === JSON.stringify(byPrice(after)));
  t.same(byPrice(await ladder(page, T1 as string)), byPrice(await book(T1 as string)), 'and the other outcome too');

  t.ok((await pixelsOf(page, '.pane .depth canvas', [22, 163, 74])) > 50, 'depth chart draws bids');
  t.ok((await pixelsOf(page, '.pane .depth canvas', [220, 38, 38])) > 50, 'depth chart draws asks');
  // The projection writes price history a moment after the trade; then the chart loads it from the API.
  await until('price history', 10_000, async () => {
    const h = (await (await fetch(`${svc.baseUrl}/clob/prices-history?market=${T0}&interval=1h`)).json()) as { history: unknown[] };
    return h.history.length > 0;
  });
  // `max` spans the data up to now, so even one point of history is a line across the chart.
  await page.click('.intervals button[data-interval="max"]');
  await page.waitForSelector('.history[data-points]:not([data-points="0"])');
  await until('the price line', 2000, async () => (await pixelsOf(page, '.history canvas', [37, 99, 235])) > 300);
  t.pass('the price history chart draws');
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'ui-market.png'), fullPage: true });

  // An address: the taker's position and trade, from the activity surface.
  await page.fill('#address-form input', taker.account);
  await page.press('#address-form input', 'Enter');
  await page.waitForSelector('body[data-view="address"]');
  await until('the position on the activity surface', 15_000, async () => (await page.locator('.address table.grid').first().locator('td a').count()) > 0);
  t.match(await page.locator('.address table.grid').first().textContent(), /3\.33/, 'the position of 3.33 shares');
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'ui-address.png'), fullPage: true });

  t.same(consoleErrors, [], 'no console error');
});
