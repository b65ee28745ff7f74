// The demo traders on a fresh service: within seconds the demo markets' books have depth on both sides,
// trades print on the activity surface and price history fills, all through the public API (the traders are
// the official client over HTTP). They run on a thread of their own, never the request thread, and stop() ends
// it. They are off with --demo-traders false and whenever an upstream catalog is configured, and the start-up
// lines say which.

import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { demoTradersWanted } from '../../server/service.js';
import { startupLines } from '../../server/startupLines.js';
import { startTestService, testConfig } from '../support/serviceFixture.js';

interface Book {
  bids: { price: string; size: string }[];
  asks: { price: string; size: string }[];
}

async function json<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The names of this process's threads (Linux: /proc/self/task/<tid>/comm); undefined elsewhere. */
function threadNames(): string[] | undefined {
  if (!existsSync('/proc/self/task')) return undefined;
  const names: string[] = [];
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      names.push(readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim());
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return names;
}

async function until<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

t.test('demo traders make a live exchange: depth, trades, price history', async (t) => {
  const svc = await startTestService({ demoTraders: true, demoTraderCycleMs: 150, projectionIntervalMs: 50 });
  t.teardown(() => svc.close());
  const demo = svc.service.demo;
  if (demo === undefined) throw new Error('demo traders should run on the demo catalog');
  const open = [...svc.service.engine.engine.markets()].filter((m) => m.status === 'active').map((m) => m.conditionId);
  t.ok(open.length >= 30, `${open.length} open demo markets`);
  t.same([...demo.markets].sort(), open.sort(), 'the maker quotes every open demo market');
  t.match(startupLines(svc.service.config, svc.service).join('\n'), new RegExp(`demo traders: +ON: a market maker and takers trade ${open.length} demo markets`));
  const market = svc.service.engine.engine.market(demo.markets[0] as string);
  const [yes, no] = market?.tokenIds ?? ['', ''];

  const book = await until('a book with depth on both sides', 20_000, async () => {
    const b = await json<Book>(`${svc.baseUrl}/clob/book?token_id=${yes}`);
    return b.bids.length >= 2 && b.asks.length >= 2 ? b : undefined;
  });
  t.ok(Number(book.bids.at(-1)?.price) < Number(book.asks.at(-1)?.price), 'best bid below best ask');
  const mirror = await json<Book>(`${svc.baseUrl}/clob/book?token_id=${no}`);
  t.ok(mirror.bids.length >= 2 && mirror.asks.length >= 2, 'the other outcome shows the same liquidity, mirrored', { book: JSON.stringify(book), mirror: JSON.stringify(mirror) });

  // The maker replaces its ladders every cycle: the new one rests before the old one is cancelled, so a reader
  // never finds a side empty (a market buy then finds no match). Watched between every two turns of the event
  // loop for ~20 cycles of every market, on the engine itself.
  const engine = svc.service.engine.engine;
  let looks = 0;
  const empty: string[] = [];
  for (const end = Date.now() + 8_000; Date.now() < end; ) {
    await new Promise((resolve) => setImmediate(resolve));
    for (const m of demo.markets) {
      const token = engine.market(m)?.tokenIds[0] ?? '';
      const b = engine.book(token, 1);
      looks++;
      if (b === undefined || b.bids.length === 0 || b.asks.length === 0) empty.push(`${m}: ${b?.bids.length ?? '-'} bids, ${b?.asks.length ?? '-'} asks`);
    }
  }
  t.same(empty.slice(0, 5), [], `both sides of every demo book quoted at each of ${looks} looks while the maker requotes`);

  // The questions of each neg-risk event are quoted around prices that add up to 1, and the maker holds its
  // YES by converting the NO halves of the sets it splits (POST /convert), so each event paid conversions ahead.
  const events = [...engine.negRiskEvents()].filter((e) => e.questions.every((q) => q.status === 'active'));
  t.equal(events.length, 4, 'the open neg-risk events: the December Fed decision, the election, the Oscars, the AI race');
  for (const event of events) {
    const mids = await (await fetch(`${svc.baseUrl}/clob/midpoints`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(event.questions.map((q) => ({ token_id: q.tokenIds[0] }))) })).json() as Record<string, string>;
    const sum = event.questions.reduce((n, q) => n + Number(mids[q.tokenIds[0]]), 0);
    t.ok(Math.abs(sum - 1) <= 0.05, `the YES midpoints of ${event.id} add up to ${sum.toFixed(3)}`);
    t.ok(event.unbacked > 0, `the maker converted NO of ${event.id}`);
  }

  const trades = await until('trades on the activity surface', 30_000, async () => {
    const list = await json<{ conditionId: string }[]>(`${svc.baseUrl}/activity/trades?limit=50`);
    return list.length >= 3 ? list : undefined;
  });
  t.ok(trades.every((x) => demo.markets.includes(x.conditionId)), 'trades in the demo markets');

  const history = await until('price history', 30_000, async () => {
    for (const m of demo.markets) {
      const tokens = svc.service.engine.engine.market(m)?.tokenIds ?? [];
      for (const token of tokens) {
        const h = await json<{ history: { t: number; p: number }[] }>(`${svc.baseUrl}/clob/prices-history?market=${token}&interval=1h`);
        if (h.history.length > 0) return h.history;
      }
    }
    return undefined;
  });
  t.ok(history[0]!.p > 0 && history[0]!.p < 1, 'a price between 0 and 1');

  // The traders sign and post on their own thread (demo/demoThread.ts); stop() ends it, and the books stay.
  const before = threadNames();
  if (before !== undefined) t.equal(before.filter((n) => n === 'pmx-demo').length, 1, 'one thread of the process is the demo traders\'');
  await demo.stop();
  const after = threadNames();
  if (after !== undefined) t.notOk(after.includes('pmx-demo'), 'the thread is gone once the traders stopped');
  const books = async (): Promise<string> => {
    const sides = [];
    for (const m of demo.markets) {
      const b = await json<Book>(`${svc.baseUrl}/clob/book?token_id=${engine.market(m)?.tokenIds[0] ?? ''}`);
      sides.push([b.bids, b.asks]);
    }
    return JSON.stringify(sides);
  };
  const quiet = await books();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  t.equal(await books(), quiet, 'no order placed or cancelled after stop()');
});

t.test('demo traders run only on the demo catalog, and --demo-traders false turns them off', async (t) => {
  t.equal(demoTradersWanted(testConfig({ demoTraders: true })), true);
  t.equal(demoTradersWanted(testConfig({ demoTraders: false })), false);
  t.equal(demoTradersWanted(testConfig({ demoTraders: true, catalogUpstreamUrl: 'http://127.0.0.1:9/gamma' })), false, 'never beside an upstream catalog');
  t.equal(demoTradersWanted(testConfig({ demoTraders: true, demoCatalog: false })), false);
  t.match(startupLines(testConfig(), { port: 8080, demo: undefined }).join('\n'), /demo traders: +off/);
});
