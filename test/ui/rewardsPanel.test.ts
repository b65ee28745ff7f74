// The market page's liquidity rewards panel in a real browser (Chromium) against the running service: a
// rewarded demo market shows its program and its band (less than the max spread from the size-cutoff-adjusted
// midpoint) marked on both ladders; an API key connected in the page lists its open orders in the market with
// whether each scores, and the day's earnings so far once a minute of engine time has been sampled. The
// engine's clock is set off the wall clock (under 15 s ahead, or behind) so that a minute comes soon.

import t from 'tap';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { pino } from 'pino';
import { demoConditionId } from '../../catalog/demo/buildDemoCatalog.js';
import { startService } from '../../server/service.js';
import { units } from '../engine/scenario.js';
import { launchChromium, SCREENSHOT_DIR } from '../support/browser.js';
import { freshDatabase } from '../support/projectionFixtures.js';
import { testConfig } from '../support/serviceFixture.js';
import { Trader } from '../support/tradingClient.js';

const ahead = 60_000 - (Date.now() % 60_000) - 25_000;
const offset = ahead > 15_000 ? ahead - 60_000 : ahead;
const { ch, db } = await freshDatabase();
const svc = await startService(testConfig({ clickhouseDatabase: db, projectionIntervalMs: 50 }), pino({ level: 'silent' }), { clickhouse: ch, engineClock: () => Date.now() + offset });
t.teardown(() => svc.close());
const base = `http://127.0.0.1:${svc.port}`;
// Rewarded by the demo catalog: $100 a day, 4.5 cents, 50 shares.
const CID = demoConditionId('will-it-rain-in-london-on-december-24-2026');
const market = svc.engine.engine.market(CID);
if (market === undefined || !svc.engine.engine.rewardTerms().has(CID)) throw new Error('the demo catalog should reward the London rain market');
const [T0, T1] = market.tokenIds;

const maker = new Trader(base, Wallet.createRandom() as unknown as Wallet);
await maker.signIn();
await svc.engine.submit({ type: 'Deposit', account: maker.account, amount: units(1000) });
await svc.engine.submit({ type: 'Split', account: maker.account, conditionId: CID, amount: units(300) });
const place = async (side: 'BUY' | 'SELL', price: number, size: number): Promise<string> => {
  const shares = units(size);
  const cash = Math.round(price * size * 1_000_000);
  const res = await maker.postOrder(await maker.signOrder(side === 'BUY' ? { side, makerAmount: cash, takerAmount: shares, tokenId: T0 } : { side, makerAmount: shares, takerAmount: cash, tokenId: T0 }));
  if (res.status !== 200) throw new Error(`order refused: ${res.status} ${res.text}`);
  return (res.body as { orderID: string }).orderID;
};
// Bids 100 at 0.50 and 100 at 0.40, asks 100 at 0.54 and 20 at 0.53: the ask side reaches 50 shares at 0.54,
// so the adjusted midpoint is 0.52 (the raw one 0.515) and the band 0.475 – 0.565.
const inside = await place('BUY', 0.5, 100);
const far = await place('BUY', 0.4, 100);
await place('SELL', 0.54, 100);
const small = await place('SELL', 0.53, 20);

const browser = await launchChromium();
t.teardown(() => browser.close());
const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
const errors: string[] = [];
page.on('pageerror', (e) => errors.push(e.message));

t.test('the band on the ladders, and a connected key\'s scoring orders and earnings', async (t) => {
  await page.goto(`${base}/ui#/market/${CID}`);
  const band = page.locator('.rewards [data-band]');
  await band.waitFor();
  // Page functions as text: these tests compile without the DOM library.
  await page.waitForFunction("document.querySelector('.rewards [data-band]')?.getAttribute('data-low') !== ''");
  t.equal(await band.getAttribute('data-low'), '0.475');
  t.equal(await band.getAttribute('data-high'), '0.565');
  t.match(await page.locator('.rewards').innerText(), /\$100 a day/);
  const marked = async (token: string): Promise<string[]> =>
    page.locator(`.pane[data-token="${token}"] .ladder tr.in-band`).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-price') ?? '').sort());
  t.same(await marked(T0), ['0.5', '0.53', '0.54'], 'the first outcome: 0.40 is outside the band');
  t.same(await marked(T1), ['0.46', '0.47', '0.5'], 'the second outcome, mirrored');

  const creds = maker.requireCreds();
  await page.fill('.rewards input[name=address]', maker.address);
  await page.fill('.rewards input[name=apiKey]', creds.apiKey);
  await page.fill('.rewards input[name=secret]', creds.secret);
  await page.fill('.rewards input[name=passphrase]', creds.passphrase);
  await page.click('.rewards button[type=submit]');
  await page.locator(`.rewards tr[data-order="${inside}"]`).waitFor();
  const scoring = async (id: string): Promise<string | null> => page.locator(`.rewards tr[data-order="${id}"]`).getAttribute('data-scoring');
  t.equal(await scoring(inside), 'true', 'a bid 2 cents from the midpoint scores');
  t.equal(await scoring(far), 'false', 'a bid 12 cents away does not');
  t.equal(await scoring(small), 'false', 'an ask under the 50-share minimum does not');
  await page.waitForFunction("Number(document.querySelector('.rewards [data-earnings]')?.getAttribute('data-earnings') ?? '0') > 0", undefined, { timeout: 60_000 });
  t.match(await page.locator('.rewards .earnings').innerText(), /Today's earnings so far: \$0\.\d\d · share of a sample now: 100\.00%/);
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'rewards-panel.png'), fullPage: true });
  t.same(errors, [], 'no page error');
});
