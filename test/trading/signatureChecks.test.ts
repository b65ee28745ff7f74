// Both signature checkers (worker threads, and inline), which judge packed jobs, give exactly the verdicts
// of the reference checkOne (ids and failures) for valid orders, tampered ones, orders refused by the
// signer policy and unhashable ones, batched together; the workers judge the requests' HMACs beside them
// (one too large for a batch's shared memory is judged on the request thread); more checks than a batch holds
// go as several; a worker that dies is replaced; and a closed checker refuses.

import t from 'tap';
import { createHmac } from 'node:crypto';
import type { Worker } from 'node:worker_threads';
import { Wallet } from 'ethers';
import { macMatches, OrderHasher, parseOrderPayload, type L2Mac, type SignedOrder } from '../../auth/index.js';
import { MAX_JOBS, SLOT_BYTES } from '../../api/trading/signatureMemory.js';
import { checkOne } from '../../api/trading/signatureCheck.js';
import { InlineSignatureChecker, WorkerSignatureChecker } from '../../api/trading/signatureChecks.js';
import { watchTallies } from '../../threads/answerWatch.js';
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

t.test('close: a worker still loading ends by itself, the batch it holds is answered, checks not sent reject, later ones are refused', async (tt) => {
  const closing = new WorkerSignatureChecker(TEST_DOMAINS, 1);
  const worker = (closing as unknown as { slots: { worker: Worker }[] }).slots[0]?.worker as Worker;
  const exitCode = new Promise<number>((resolve) => worker.once('exit', resolve));
  const o = orders[0] as (typeof orders)[number];
  const sent = closing.check(o.order, o.negRisk);
  // Posted on the next turn, while the worker is still loading its modules.
  await new Promise<void>((resolve) => setImmediate(resolve));
  const unsent = tt.rejects(closing.check(o.order, o.negRisk), /closed/, 'a check not yet sent is rejected');
  await closing.close();
  // terminate() gives 1; 0 is the worker leaving its loop, never interrupted inside a native module's load.
  tt.equal(await exitCode, 0, 'the worker exited by itself');
  tt.same(await sent, checkOne(reference, o), 'the batch it held was answered');
  await unsent;
  await tt.rejects(closing.check(o.order, o.negRisk), /closed/, 'a closed checker refuses');
  await closing.close();
});

/** A MAC over `message` with `key`: the true one, or with a byte of it changed. */
function macOf(key: string, message: string, body: string, tampered: boolean): L2Mac {
  const presented = createHmac('sha256', Buffer.from(key)).update(message, 'utf8').update(body).digest();
  if (tampered) presented[0] = (presented[0] ?? 0) ^ 1;
  return { key: Buffer.from(key), message, body, presented };
}

t.test("HMACs travel with the jobs and are judged beside them, one larger than a batch's memory here", async (tt) => {
  const one = new WorkerSignatureChecker(TEST_DOMAINS, 1);
  tt.teardown(() => one.close());
  const huge = 'x'.repeat(SLOT_BYTES);
  const cases = orders.map((o, i) => ({ o, mac: i % 5 === 4 ? undefined : macOf(`key-${i}`, `message ${i}`, i % 7 === 3 ? huge : `{"order":${i}}`, i % 3 === 0) }));
  const got = await Promise.all(cases.map(({ o, mac }) => one.check(o.order, o.negRisk, mac)));
  const expected = cases.map(({ o, mac }) => {
    const verdict = checkOne(reference, o);
    return mac !== undefined && !macMatches(mac) ? { ...verdict, macRefused: true } : verdict;
  });
  tt.same(got, expected, 'each verdict is the reference verdict, marked when its HMAC does not match');
  tt.ok(got.some((v) => v.macRefused === true) && got.some((v, i) => v.macRefused === undefined && cases[i]?.mac !== undefined), 'both kinds are there');
});

t.test("more checks than a batch's memory holds go as several batches, each verdict right", async (tt) => {
  const one = new WorkerSignatureChecker(TEST_DOMAINS, 1);
  tt.teardown(() => one.close());
  const valid = orders.slice(0, 24);
  const count = MAX_JOBS + 50;
  const checks = Array.from({ length: count }, (_, i) => valid[i % valid.length] as (typeof orders)[number]);
  const expected = valid.map((o) => checkOne(reference, o));
  const got = await Promise.all(checks.map((o) => one.check(o.order, o.negRisk)));
  tt.ok(got.every((v, i) => JSON.stringify(v) === JSON.stringify(expected[i % valid.length])), `${count} verdicts, all the reference's`);
  tt.ok(one.batchesSent >= 2, `${one.batchesSent} batches`);
});

t.test('a worker that dies is replaced: the checks it held reject, later ones are judged', async (tt) => {
  const one = new WorkerSignatureChecker(TEST_DOMAINS, 1);
  tt.teardown(() => one.close());
  const o = orders[0] as (typeof orders)[number];
  // Terminated once its modules are loaded (see close() in signatureChecks.ts for why never before).
  await one.check(o.order, o.negRisk);
  const held = Array.from({ length: 400 }, () => one.check(o.order, o.negRisk));
  await new Promise<void>((resolve) => setImmediate(resolve));
  await (one as unknown as { slots: { worker: Worker }[] }).slots[0]?.worker.terminate();
  const settled = await Promise.allSettled(held);
  tt.ok(settled.some((r) => r.status === 'rejected'), 'checks the worker held reject');
  for (const r of settled) if (r.status === 'rejected') tt.match(String(r.reason), /exited/);
  tt.same(await one.check(o.order, o.negRisk), checkOne(reference, o), 'the next check is judged by the new worker');
});

t.test("verdicts come when the worker's wake-up (Atomics.waitAsync) never does: the fallback read", async (tt) => {
  const one = new WorkerSignatureChecker(TEST_DOMAINS, 1);
  tt.teardown(() => one.close());
  const real = Atomics.waitAsync;
  // As a lost wake-up looks from this thread: the wait is armed and never resolves.
  Atomics.waitAsync = ((): { async: true; value: Promise<'ok'> } => ({ async: true, value: new Promise<'ok'>(() => undefined) })) as unknown as typeof Atomics.waitAsync;
  try {
    const settlesBefore = watchTallies().get('signatures')?.fallbackSettles ?? 0;
    const valid = orders.slice(0, 6);
    for (const o of valid) {
      const verdict = await Promise.race([one.check(o.order, o.negRisk), new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), 5_000))]);
      tt.same(verdict, checkOne(reference, o), 'the verdict, read by the fallback');
    }
    tt.equal((watchTallies().get('signatures')?.fallbackSettles ?? 0) - settlesBefore, valid.length, 'each batch settled by the fallback read, and counted');
  } finally {
    Atomics.waitAsync = real;
  }
});
