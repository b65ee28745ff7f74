// The market page kept live under the demo traders' constant activity: while they trade, trades print on the
// page from the market channel and the ladders move; once they stop, each ladder equals GET /book. So the page
// applies every `price_change` it receives, not just the snapshot it opened with.

import t from 'tap';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, SCREENSHOT_DIR } from '../support/browser.js';
import { startTestService } from '../support/serviceFixture.js';

interface Level {
  price: string;
  size: string;
}

const svc = await startTestService({ demoTraders: true, demoTraderCycleMs: 150, projectionIntervalMs: 50 });
t.teardown(() => svc.close());
const demo = svc.service.demo;
if (demo === undefined) throw new Error('demo traders should run on the demo catalog');
const conditionId = demo.markets[0] as string;
const tokens = svc.service.engine.engine.market(conditionId)?.tokenIds ?? [];

async function until(what: string, ms: number, probe: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One side of a book, sorted by price: the ladder's and GET /book's orders differ. */
const sorted = (levels: Level[]): Level[] => [...levels].sort((a, b) => Number(a.price) - Number(b.price));

async function ladderText(page: Page, token: string): Promise<string> {
  const rows = await page.locator(`.pane[data-token="${token}"] .ladder tr[data-side]`).evaluateAll((trs) => trs.map((r) => [r.getAttribute('data-side'), r.getAttribute('data-price'), r.getAttribute('data-size')]));
  const side = (s: string): Level[] => sorted(rows.filter((r) => r[0] === s).map((r) => ({ price: String(r[1]), size: String(r[2]) })));
  return JSON.stringify({ bids: side('bid'), asks: side('ask') });
}

async function bookText(token: string): Promise<string> {
  const b = (await (await fetch(`${svc.baseUrl}/clob/book?token_id=${token}`)).json()) as { bids: Level[]; asks: Level[] };
  return JSON.stringify({ bids: sorted(b.bids), asks: sorted(b.asks) });
}

t.test('the page follows a busy book and its trades', async (t) => {
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));

  await until('a book with depth', 20_000, async () => JSON.parse(await bookText(tokens[0] as string)).asks.length >= 2);
  await page.goto(`${svc.baseUrl}/ui#/market/${conditionId}`);
  await page.waitForSelector('#live[data-state="live"]');
  const opened = await ladderText(page, tokens[0] as string);
  const tradesAtOpen = await page.locator('.trades tbody tr[data-size]').count();
  // The takers trade every open demo market at random, so one market's trades come a few seconds apart.
  await until('trades printed live and a ladder that moved', 60_000, async () => (await page.locator('.trades tbody tr[data-size]').count()) > tradesAtOpen + 2 && (await ladderText(page, tokens[0] as string)) !== opened);
  t.pass('trades print and the ladder moves while the demo traders trade');

  await demo.stop();
  await svc.service.engine.idle();
  for (const token of tokens) {
    const want = await bookText(token);
    await until(`the ladder of ${token} to settle on GET /book`, 3000, async () => (await ladderText(page, token)) === want);
    t.equal(await ladderText(page, token), want, 'the ladder equals GET /book once trading stops');
  }
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'ui-live-market.png'), fullPage: true });
  t.same(errors, [], 'no console error');
});
