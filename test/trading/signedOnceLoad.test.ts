// End to end on the real clock: a signed order is posted near the end of its freshness window, cancelled,
// then re-posted by many concurrent clients across the moment the window closes, while other traders keep
// the engine busy. Not one re-post may be accepted: before the boundary the engine still remembers the id
// (Duplicated), after it the API or the engine refuses the order as stale.

import t from 'tap';
import { Wallet } from 'ethers';
import type { Market } from '../../engine/market.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { Trader, type WireOrder } from '../support/tradingClient.js';

const WINDOW_SEC = 3;
const REPOSTERS = 24;
const ROUNDS = 5;

const svc = await startTestService({ orderTimestampWindowSec: WINDOW_SEC });
t.teardown(() => svc.close());
const host = svc.service.engine;
const engine = host.engine;
const M = [...engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5)) as Market;
if (M === undefined) throw new Error('the demo catalog needs an active market with tick 0.01');
const [YES] = M.tokenIds;

async function funded(): Promise<Trader> {
  const tr = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet);
  await tr.signIn();
  await host.submit({ type: 'Deposit', account: tr.account, amount: units(100_000) });
  return tr;
}

const bid = (price: number, timestamp?: number): { side: 'BUY'; makerAmount: number; takerAmount: number; tokenId: string; timestamp?: number } => ({
  side: 'BUY', makerAmount: Math.round(price * 10 * 1_000_000), takerAmount: units(10), tokenId: YES as string, ...(timestamp === undefined ? {} : { timestamp }),
});

/** Other traders placing and cancelling orders until `until` (ms), to keep the engine's queue busy. */
async function background(tr: Trader, until: number): Promise<number> {
  let n = 0;
  while (Date.now() < until) {
    const placed = await tr.postOrder(await tr.signOrder(bid(0.05 + (n % 10) / 100)));
    if (placed.status === 200) await tr.l2('DELETE', '/order', { orderID: (placed.body as { orderID: string }).orderID });
    n += 1;
  }
  return n;
}

t.test('re-posts of a cancelled signed order across its window boundary under load: none accepted', async (tt) => {
  const owner = await funded();
  const others = await Promise.all(Array.from({ length: 8 }, funded));
  await background(owner, Date.now() + 300); // warm the paths up, so the first round starts on time
  let metRemembered = 0;
  let cameAfter = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const signedAt = Date.now() - (WINDOW_SEC * 1000 - 1500); // the window closes 1.5 s from now
    const order: WireOrder = await owner.signOrder(bid(0.02, signedAt));
    const first = await owner.postOrder(order);
    tt.equal(first.status, 200, `round ${round}: the first post is accepted (${first.text})`);
    const id = (first.body as { orderID: string }).orderID;
    tt.equal((await owner.l2('DELETE', '/order', { orderID: id })).status, 200, 'cancelled');

    const closesAt = signedAt + WINDOW_SEC * 1000;
    const stopAt = closesAt + 600;
    const load = Promise.all(others.map((o) => background(o, stopAt)));
    const answers = await Promise.all(
      Array.from({ length: REPOSTERS }, async () => {
        const seen: { status: number; error: string; at: number }[] = [];
        // Densest around the boundary, where admission and application can fall on either side of it.
        while (Date.now() < stopAt) {
          const now = Date.now();
          if (Math.abs(now - closesAt) > 40 && now < closesAt - 200) {
            await new Promise((resolve) => setTimeout(resolve, 1));
            continue;
          }
          const res = await owner.postOrder(order);
          seen.push({ status: res.status, error: (res.body as { error?: string }).error ?? '', at: Date.now() });
        }
        return seen;
      }),
    );
    const moved = (await load).reduce((a, b) => a + b, 0);
    const all = answers.flat();
    const accepted = all.filter((a) => a.status === 200);
    tt.equal(accepted.length, 0, `round ${round}: ${all.length} re-posts, none accepted (${moved} background orders)`);
    // Which side of the boundary a round's re-posts reach depends on how long the first post and its cancel
    // took: on a loaded machine a whole round can come after the window. Both sides are required over the rounds.
    if (all.some((a) => /Duplicated/.test(a.error))) metRemembered += 1;
    if (all.some((a) => a.at > closesAt + 100 && /Timestamp/.test(a.error))) cameAfter += 1;
    tt.ok(all.every((a) => a.status === 400), 'every re-post is a 400');
    await host.idle();
    tt.notOk(engine.order(id), 'the order is not on the book');
  }
  tt.ok(metRemembered > 0, `re-posts met the remembered id (in ${metRemembered} of ${ROUNDS} rounds)`);
  tt.ok(cameAfter > 0, `re-posts came after the window closed (in ${cameAfter} of ${ROUNDS} rounds)`);
});
