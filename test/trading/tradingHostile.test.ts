// Hostile bodies on the trading writes, properly authenticated (so they reach the handlers): random JSON,
// valid orders with one field replaced by an odd value, and non-JSON bytes. Every answer must be a 4xx with
// an `{error}` (or a 200 batch whose items carry errorMsg), never a 5xx, and the engine's books and balances
// must not move. The state hash may only change when the engine itself logged a refusal.

import fc from 'fast-check';
import t from 'tap';
import { Wallet } from 'ethers';
import type { Market } from '../../engine/market.js';
import { units } from '../engine/scenario.js';
import { startTestService } from '../support/serviceFixture.js';
import { holdTimedCommands } from '../support/timedCommands.js';
import { Trader, balancesText } from '../support/tradingClient.js';
import { checkSignedOrder, OrderHasher } from '../../auth/index.js';

const svc = await startTestService();
t.teardown(() => svc.close());
const host = svc.service.engine;
const engine = host.engine;
const M = [...engine.markets()].find((m) => m.status === 'active' && m.params.tickSize === 10_000 && !m.params.negRisk) as Market;
const trader = new Trader(svc.baseUrl, Wallet.createRandom() as unknown as Wallet);
await trader.signIn();
await host.submit({ type: 'Deposit', account: trader.account, amount: units(1000) });
const key = trader.requireCreds().apiKey;
const valid = await trader.signOrder({ tokenId: M.tokenIds[0], side: 'BUY', makerAmount: 2_000_000, takerAmount: 10_000_000 });
const checked = checkSignedOrder(valid, new OrderHasher(svc.service.config), () => M.params.negRisk);
if (!checked.ok) throw new Error(checked.detail);
const validId = checked.value.orderId;


const ODD = [null, true, false, 0, -1, 1.5, 1e308, '', ' ', '0x', '0x' + 'f'.repeat(64), '-1', '1e6', '１２', 'NaN', [], {}, [1], { a: 1 }, '9'.repeat(100), 2 ** 53 + 1];

const bodyArb = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record({ order: fc.jsonValue({ maxDepth: 2 }), owner: fc.constantFrom(key, 'x', null), orderType: fc.constantFrom('GTC', 'FOK', 'gtd', 'XYZ', 3) }),
  fc.tuple(fc.constantFrom(...Object.keys(valid), 'conditionId', 'extra'), fc.constantFrom(...ODD)).map(([field, value]) => ({ order: { ...valid, [field]: value }, owner: key, orderType: 'GTC' })),
  fc.tuple(fc.constantFrom('orderType', 'postOnly', 'deferExec', 'owner'), fc.constantFrom(...ODD)).map(([field, value]) => ({ order: valid, owner: key, orderType: 'GTC', [field]: value })),
);

function ledger(): string {
  return balancesText(engine, trader.account) + engine.openOrders(trader.account).length;
}

const writes: readonly ['POST' | 'DELETE', string][] = [['POST', '/order'], ['POST', '/orders'], ['DELETE', '/order'], ['DELETE', '/orders'], ['DELETE', '/cancel-market-orders'], ['POST', '/split'], ['POST', '/merge'], ['POST', '/redeem']];

t.test('hostile JSON bodies: 4xx (or per-item errors), no 5xx, nothing moves', async (tt) => {
  let runs = 0;
  let placed = 0;
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...writes), bodyArb, async ([method, path], body) => {
      await host.idle();
      const before = ledger();
      const res = await trader.l2(method, path, body);
      runs += 1;
      if (res.status >= 500) throw new Error(`${method} ${path} ${JSON.stringify(body)} → ${res.status} ${res.text}`);
      if (res.status === 200) {
        // A body can still carry the valid signed order in an equivalent form (metadata "" is zero, extra keys
        // are ignored): only that order may be placed. It is cancelled again so that nothing has moved.
        const items = (Array.isArray(res.body) ? res.body : [res.body]) as { errorMsg?: string; orderID?: string }[];
        for (const item of items) {
          if (method !== 'POST' || !path.startsWith('/order') || item.errorMsg !== '') continue;
          if (item.orderID !== validId) throw new Error(`an order other than the signed one was placed from ${JSON.stringify(body)}`);
          await trader.l2('DELETE', '/order', { orderID: validId });
          placed += 1;
        }
      } else if (typeof (res.body as { error?: unknown }).error !== 'string') {
        throw new Error(`${res.status} without {error}: ${res.text}`);
      }
      await host.idle();
      if (ledger() !== before) throw new Error(`${method} ${path} moved funds or orders: ${JSON.stringify(body)}`);
    }),
    { numRuns: 300, seed: 20261122 },
  );
  tt.equal(runs, 300);
  tt.ok(placed <= 1, 'the signed order was placed at most once (a second time is a duplicate)');
});

t.test('non-JSON and oversized-looking bodies', async (tt) => {
  tt.teardown(await holdTimedCommands(host));
  for (const [method, path] of writes) {
    for (const raw of ['{', 'null', '"', '\u0000', '[[[[[[[[', 'x'.repeat(5000)]) {
      const before = engine.stateHash();
      const res = await trader.request(method, path, { headers: trader.l2Headers(method, path, raw), body: raw });
      tt.ok(res.status >= 400 && res.status < 500, `${method} ${path} ${JSON.stringify(raw.slice(0, 10))}: ${res.status}`);
      tt.equal(engine.stateHash(), before, 'state unchanged');
    }
  }
});
