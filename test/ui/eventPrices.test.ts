// The markets page under the demo traders: every open demo market shows a price (the maker quotes them all),
// and each neg-risk event shows its markets' YES prices with their sum, which adds up to about 100¢ (one of
// the event's outcomes happens; the maker quotes the questions around prices that add up to 1).

import t from 'tap';
import { join } from 'node:path';
import { launchChromium, SCREENSHOT_DIR } from '../support/browser.js';
import { startTestService } from '../support/serviceFixture.js';

const svc = await startTestService({ demoTraders: true, demoTraderCycleMs: 150, projectionIntervalMs: 50 });
t.teardown(() => svc.close());

async function until(what: string, ms: number, probe: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

t.test("the demo's event prices add up on the markets page", async (t) => {
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));

  await page.goto(`${svc.baseUrl}/ui#/`);
  await page.waitForSelector('.event[data-neg-risk] .sum');
  const cards = page.locator('.event[data-neg-risk]');
  t.equal(await cards.count(), 4, 'the open neg-risk events: the December Fed decision, the election, the Oscars, the AI race');

  // Every open market shows a midpoint: the maker quotes each of them.
  const mids = page.locator('.event .mid[data-token]');
  await until('a price for every open market', 30_000, async () => (await mids.evaluateAll((els) => els.filter((e) => e.textContent === '').length)) === 0);
  const open = [...svc.service.engine.engine.markets()].filter((m) => m.status === 'active').length;
  t.equal(await mids.count(), open, `all ${open} open markets are listed with a price`);

  const sums = async (): Promise<{ title: string; markets: number; sum: number; shown: string }[]> =>
    cards.evaluateAll((els) => els.map((el) => {
      const sum = el.querySelector('.sum');
      return { title: el.querySelector('h3')?.textContent ?? '', markets: el.querySelectorAll('.mid').length, sum: Number(sum?.getAttribute('data-sum') ?? NaN), shown: sum?.textContent ?? '' };
    }));
  await until('every event sum shown', 30_000, async () => (await sums()).every((s) => Number.isFinite(s.sum)));
  for (const s of await sums()) {
    t.ok(Math.abs(s.sum - 1) <= 0.05, `${s.title}: ${s.markets} markets whose Yes prices add up to ${s.shown} (${s.sum})`);
    t.match(s.shown, /^\d+¢$/, 'shown in cents');
    // The sum is of the prices shown beside the markets (each rounded to the cent there).
    const shown = await page.locator('.event[data-neg-risk]', { hasText: s.title }).locator('.mid').evaluateAll((els) => els.map((e) => Number((e.textContent ?? '').replace('¢', ''))));
    t.ok(Math.abs(shown.reduce((a, b) => a + b, 0) - s.sum * 100) <= shown.length, 'the markets shown with their prices');
  }
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'ui-event-prices.png'), fullPage: true });

  // A question's own page lists its event's markets with their prices and the sum.
  const question = await page.locator('.event[data-neg-risk] a[data-condition-id]').first().getAttribute('data-condition-id');
  await page.goto(`${svc.baseUrl}/ui#/market/${question}`);
  await page.waitForSelector('.event-panel .sum');
  await until('the event sum on the market page', 30_000, async () => (await page.locator('.event-panel .sum[data-sum]').count()) === 1);
  const panel = Number(await page.locator('.event-panel .sum').getAttribute('data-sum'));
  t.ok(Math.abs(panel - 1) <= 0.05, `the market page's event panel: the Yes prices add up to ${panel}`);
  t.equal(await page.locator('.event-panel li').count(), 4, 'the four markets of its event');
  t.equal(await page.locator('.event-panel li.current a').getAttribute('href'), `#/market/${question}`, 'the market shown is marked');
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'ui-event-panel.png'), fullPage: true });
  t.same(errors, [], 'no console error');
});
