// The worker-thread signature checker gives exactly the inline checker's verdicts (ids and failures), for
// valid orders, tampered ones and unhashable ones, batched together; and a closed checker refuses.

import t from 'tap';
import { Wallet } from 'ethers';
import { parseOrderPayload, type SignedOrder } from '../../auth/index.js';
import { InlineSignatureChecker, WorkerSignatureChecker } from '../../api/trading/signatureChecks.js';
import { TEST_DOMAINS, Trader } from '../support/tradingClient.js';

const trader = new Trader('http://unused', Wallet.createRandom() as unknown as Wallet);
const orders: { order: SignedOrder; negRisk: boolean }[] = [];
for (let i = 0; i < 24; i++) {
  const negRisk = i % 3 === 0;
  const wire = await trader.signOrder({ tokenId: String(1000 + i), side: i % 2 === 0 ? 'BUY' : 'SELL', makerAmount: 1_000_000 + i, takerAmount: 2_000_000, negRisk });
  const parsed = parseOrderPayload(i % 4 === 1 ? { ...wire, takerAmount: '2000001' } : wire);
  if (!parsed.ok) throw new Error(parsed.detail);
  // Every 4th order (i % 4 === 1) was changed after signing; every 6th is checked in the wrong domain.
  orders.push({ order: parsed.value, negRisk: i % 6 === 5 ? !negRisk : negRisk });
}
const unhashable = { ...(orders[0] as { order: SignedOrder }).order, salt: -1n };

const inline = new InlineSignatureChecker(TEST_DOMAINS);
const workers = new WorkerSignatureChecker(TEST_DOMAINS, 2);
t.teardown(() => workers.close());

t.test('identical verdicts, batched or not', async (tt) => {
  const expected = await Promise.all(orders.map((o) => inline.check(o.order, o.negRisk)));
  const batched = await Promise.all(orders.map((o) => workers.check(o.order, o.negRisk)));
  tt.same(batched, expected);
  tt.equal(expected.filter((v) => v.ok).length, orders.filter((_o, i) => i % 4 !== 1 && i % 6 !== 5).length, 'tampered and wrong-domain orders fail');
  for (const o of orders.slice(0, 3)) tt.same(await workers.check(o.order, o.negRisk), await inline.check(o.order, o.negRisk), 'one at a time');
  const bad = await workers.check(unhashable, false);
  tt.same([bad.orderId, bad.ok], ['', false]);
  tt.match(bad.detail, /cannot be EIP-712 encoded/);
  tt.same(bad, await inline.check(unhashable, false));
});

t.test('a closed checker refuses', async (tt) => {
  const closing = new WorkerSignatureChecker(TEST_DOMAINS, 1);
  await closing.close();
  await tt.rejects(closing.check((orders[0] as { order: SignedOrder }).order, false), /closed/);
});
