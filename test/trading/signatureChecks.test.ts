// Both signature checkers (worker threads, and inline), which judge packed jobs, give exactly the verdicts
// of the reference checkOne (ids and failures) for valid orders, tampered ones, orders refused by the
// signer policy and unhashable ones, batched together; and a closed checker refuses.

import t from 'tap';
import { Wallet } from 'ethers';
import { OrderHasher, parseOrderPayload, type SignedOrder } from '../../auth/index.js';
import { checkOne } from '../../api/trading/signatureCheck.js';
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
const first = (orders[0] as { order: SignedOrder }).order;
const unhashable = { ...first, salt: -1n };
// Refused before recovery (signer policy), and a signature recovering nothing (r = 0).
orders.push({ order: { ...first, signatureType: 3 }, negRisk: false });
orders.push({ order: { ...first, maker: '0x' + '1'.repeat(40) }, negRisk: false });
orders.push({ order: { ...first, signature: '0x' + '0'.repeat(64) + first.signature.slice(66) }, negRisk: false });
const reference = new OrderHasher(TEST_DOMAINS);

const inline = new InlineSignatureChecker(TEST_DOMAINS);
const workers = new WorkerSignatureChecker(TEST_DOMAINS, 2);
t.teardown(() => workers.close());

t.test('identical verdicts, batched or not', async (tt) => {
  const expected = orders.map((o) => checkOne(reference, o));
  const batched = await Promise.all(orders.map((o) => workers.check(o.order, o.negRisk)));
  tt.same(batched, expected, 'worker verdicts are the reference verdicts');
  tt.same(await Promise.all(orders.map((o) => inline.check(o.order, o.negRisk))), expected, 'inline verdicts are the reference verdicts');
  tt.equal(expected.filter((v) => v.ok).length, orders.slice(0, 24).filter((_o, i) => i % 4 !== 1 && i % 6 !== 5).length, 'tampered, wrong-domain and policy-refused orders fail');
  tt.match(expected.slice(24).map((v) => v.detail), [/type 3/, /maker = signer/, /r is out of range/]);
  for (const o of orders.slice(0, 3)) tt.same(await workers.check(o.order, o.negRisk), await inline.check(o.order, o.negRisk), 'one at a time');
  const bad = await workers.check(unhashable, false);
  tt.same([bad.orderId, bad.ok], ['', false]);
  tt.match(bad.detail, /cannot be EIP-712 encoded/);
  tt.same(bad, await inline.check(unhashable, false));
});

t.test('checks arriving while the worker is busy wait and go as one batch', async (tt) => {
  const one = new WorkerSignatureChecker(TEST_DOMAINS, 1);
  tt.teardown(() => one.close());
  const valid = orders.slice(0, 24);
  const expected: unknown[] = [];
  const verdicts: Promise<unknown>[] = [];
  // 10 rounds of the 24 orders, one check per turn of the event loop: without coalescing, 240 messages.
  for (let i = 0; i < 240; i++) {
    const o = valid[i % valid.length] as (typeof orders)[number];
    expected.push(checkOne(reference, o));
    verdicts.push(one.check(o.order, o.negRisk));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  tt.same(await Promise.all(verdicts), expected, 'every verdict is the reference verdict, in order');
  tt.ok(one.batchesSent < 120, `240 checks in 240 turns went as ${one.batchesSent} batches`);
});

t.test('a closed checker refuses', async (tt) => {
  const closing = new WorkerSignatureChecker(TEST_DOMAINS, 1);
  await closing.close();
  await tt.rejects(closing.check((orders[0] as { order: SignedOrder }).order, false), /closed/);
});
