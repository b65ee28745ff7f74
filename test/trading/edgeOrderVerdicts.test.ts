// The header edge's signature verdicts end to end (auth/orderVerdicts.ts, --edge-verify-orders): an order that
// reaches an idle service is held at the edge, which judges its signature and sends the verdict with it, and
// the request thread takes the order's id from it instead of asking the signature worker. A refused signature
// gets no verdict and the same refusal as without the edge's; a client cannot send verdicts of its own, through
// the edge (it removes the header, in either spelling) or straight to uWS (--header-edge false: the server drops
// it); and with --edge-verify-orders false the edge judges nothing.

import t, { type Test } from 'tap';
import { Wallet } from 'ethers';
import { OrderHasher, parseOrderPayload } from '../../auth/index.js';
import { ORDER_VERDICTS_HEADER } from '../../auth/orderVerdicts.js';
import type { Market } from '../../engine/market.js';
import { units } from '../engine/scenario.js';
import { startTestService, type TestService } from '../support/serviceFixture.js';
import { TEST_DOMAINS, Trader, type WireOrder } from '../support/tradingClient.js';

const hasher = new OrderHasher(TEST_DOMAINS);

function idOf(order: WireOrder, negRisk = false): string {
  const parsed = parseOrderPayload(order);
  if (!parsed.ok) throw new Error(parsed.detail);
  return hasher.hash(parsed.value, negRisk);
}

async function setUp(t: Test, settings: Parameters<typeof startTestService>[0] = {}): Promise<{ svc: TestService; trader: Trader; market: Market; verdicts: () => number }> {
  const svc = await startTestService(settings);
  t.teardown(() => svc.close());
  const host = svc.service.engine;
  const market = [...host.engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk && m.params.minSize <= units(5)) as Market;
  // uWS alone drops a request with `_` in a header name: without the edge, the headers are spelt with `-`.
  const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet, settings.headerEdge === false ? { headerStyle: 'hyphen' } : {});
  await trader.signIn();
  await host.submit({ type: 'Deposit', account: trader.account, amount: units(1000) });
  return { svc, trader, market, verdicts: () => svc.service.edge?.stats.verdictRequests ?? 0 };
}

/** A resting bid of 5 shares at `cents`. */
function bid(market: Market, cents: number): { side: 'BUY'; makerAmount: number; takerAmount: number; tokenId: string } {
  return { side: 'BUY', makerAmount: cents * 50_000, takerAmount: units(5), tokenId: market.tokenIds[0] as string };
}

/** The same order with its signature's first byte changed: it recovers to someone else. */
function forged(order: WireOrder): WireOrder {
  const sig = String(order.signature);
  return { ...order, signature: sig.slice(0, 2) + (sig[2] === 'a' ? 'b' : 'a') + sig.slice(3) };
}

t.test('held orders are judged at the edge; the answers are those without it', async (t) => {
  const { svc, trader, market, verdicts } = await setUp(t);
  const key = trader.requireCreds().apiKey;

  const order = await trader.signOrder(bid(market, 20));
  const before = verdicts();
  const placed = await trader.postOrder(order);
  t.equal(placed.status, 200, placed.text);
  t.equal((placed.body as { orderID: string }).orderID, idOf(order), "the order's id is its EIP-712 hash");
  t.equal(verdicts(), before + 1, 'the edge judged the held request');
  t.ok(svc.service.engine.engine.order(idOf(order)) !== undefined, 'the order rests in the book');

  const good = await trader.signOrder(bid(market, 21));
  const bad = forged(await trader.signOrder(bid(market, 22)));
  const batch = await trader.l2('POST', '/orders', [good, bad].map((o) => ({ order: o, owner: key, orderType: 'GTC' })));
  t.equal(batch.status, 200, batch.text);
  const answers = batch.body as { success: boolean; orderID: string; errorMsg: string }[];
  t.same(answers.map((a) => [a.success, a.orderID]), [[true, idOf(good)], [false, '']], 'POST /orders: the judged order placed, the forged one refused');
  t.match(answers[1]?.errorMsg ?? '', /invalid order signature/, 'the refusal of a signature that does not recover, as the worker words it');
  t.equal(verdicts(), before + 2);

  const refused = await trader.postOrder(forged(await trader.signOrder(bid(market, 23))));
  t.equal(refused.status, 400);
  t.match((refused.body as { error: string }).error, /invalid order signature/);

  const metrics = await (await fetch(`${svc.baseUrl}/metrics`)).text();
  t.match(metrics, /^http_edge_order_verdict_requests_total [3-9]$/m, 'the metric counts the judged requests');
});

t.test("a neg-risk market's order is judged in the neg-risk exchange's domain", async (t) => {
  const { svc, trader, verdicts } = await setUp(t);
  const market = [...svc.service.engine.engine.markets()].find((m) => m.status === 'active' && m.params.negRisk && m.params.tickSize === 10_000 && m.params.minSize <= units(5));
  if (market === undefined) throw new Error('the demo catalog needs an active neg-risk market with tick 0.01');
  const order = await trader.signOrder({ ...bid(market, 20), negRisk: true });
  const before = verdicts();
  const placed = await trader.postOrder(order);
  t.equal(placed.status, 200, placed.text);
  t.equal((placed.body as { orderID: string }).orderID, idOf(order, true));
  t.equal(verdicts(), before + 1);
  const standard = await trader.signOrder({ ...bid(market, 21), negRisk: false });
  const refused = await trader.postOrder(standard);
  t.equal(refused.status, 400, "signed for the standard exchange: the edge's verdict names the other domain, and the worker refuses it");
  t.match((refused.body as { error: string }).error, /invalid order signature/);
});

t.test("a client's own verdicts are removed at the edge, in either spelling", async (t) => {
  const { svc, trader, market } = await setUp(t);
  const engine = svc.service.engine.engine;
  for (const name of [ORDER_VERDICTS_HEADER, ORDER_VERDICTS_HEADER.replaceAll('-', '_').toUpperCase()]) {
    const bad = forged(await trader.signOrder(bid(market, 30)));
    const body = JSON.stringify({ order: bad, owner: trader.requireCreds().apiKey, orderType: 'GTC' });
    const before = engine.stateHash();
    const res = await trader.request('POST', '/order', { headers: { ...trader.l2Headers('POST', '/order', body), [name]: `s${idOf(bad).slice(2)}` }, body });
    t.equal(res.status, 400, `${name}: refused`);
    t.match((res.body as { error: string }).error, /invalid order signature/, `${name}: the signature was checked`);
    await svc.service.engine.idle();
    t.equal(engine.stateHash(), before, `${name}: nothing moved`);
  }
});

t.test('straight to uWS (--header-edge false), a verdict header is ignored', async (t) => {
  const { svc, trader, market } = await setUp(t, { headerEdge: false });
  t.equal(svc.service.edge, undefined, 'no edge');
  const bad = forged(await trader.signOrder(bid(market, 31)));
  const body = JSON.stringify({ order: bad, owner: trader.requireCreds().apiKey, orderType: 'GTC' });
  const res = await trader.request('POST', '/order', { headers: { ...trader.l2Headers('POST', '/order', body), [ORDER_VERDICTS_HEADER]: `s${idOf(bad).slice(2)}` }, body });
  t.equal(res.status, 400);
  t.match((res.body as { error: string }).error, /invalid order signature/);
  const good = await trader.signOrder(bid(market, 32));
  t.equal((await trader.postOrder(good)).status, 200, 'a good order is placed, checked by the worker');
});

t.test('--edge-verify-orders false: the edge judges nothing, the workers check every order', async (t) => {
  const { trader, market, verdicts } = await setUp(t, { edgeVerifyOrders: false });
  const order = await trader.signOrder(bid(market, 40));
  const placed = await trader.postOrder(order);
  t.equal(placed.status, 200, placed.text);
  t.equal((placed.body as { orderID: string }).orderID, idOf(order));
  t.equal(verdicts(), 0);
});
