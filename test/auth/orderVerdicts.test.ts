// The header edge's signature verdicts (auth/orderVerdicts.ts): each order's entry agrees with the reference
// check (OrderHasher.hash + verifyOrderSignature) in the domain it names, anything else gets no verdict, and the
// header's value reads back to the same verdicts.

import t from 'tap';
import { Wallet } from 'ethers';
import { OrderHasher, ORDER_TYPES, orderDomain, parseOrderPayload, verifyOrderSignature } from '../../auth/index.js';
import { ORDER_VERDICTS_HEADER, orderVerdictsLine, readOrderVerdicts, verdictEntry } from '../../auth/orderVerdicts.js';
import { DOMAINS, TEST_KEY, VECTOR_HASH, VECTOR_ORDER, ZERO32 } from './fixtures.js';

const hasher = new OrderHasher(DOMAINS);
const wallet = new Wallet(TEST_KEY);

async function signed(negRisk: boolean, salt: number): Promise<Record<string, unknown>> {
  const order = { ...VECTOR_ORDER, salt };
  const message = { ...order, salt: BigInt(salt), tokenId: BigInt(order.tokenId), makerAmount: BigInt(order.makerAmount), takerAmount: BigInt(order.takerAmount), side: 0, timestamp: BigInt(order.timestamp), metadata: ZERO32, builder: ZERO32 };
  const { signature: _unsigned, ...fields } = order;
  return { ...fields, signature: await wallet.signTypedData(orderDomain(DOMAINS, negRisk), ORDER_TYPES, message) };
}

const envelope = (order: unknown): Record<string, unknown> => ({ order, owner: 'k', orderType: 'GTC' });

t.test('an entry names the domain the signature recovers in, with the reference hash', async (t) => {
  t.equal(verdictEntry(envelope(VECTOR_ORDER), hasher), 's' + VECTOR_HASH.slice(2), 'the upstream vector: standard domain, its known hash');
  const negRisk = await signed(true, 7);
  const parsed = parseOrderPayload(negRisk);
  if (!parsed.ok) throw new Error(parsed.detail);
  const id = hasher.hash(parsed.value, true);
  t.ok(verifyOrderSignature(parsed.value, id).ok, 'the reference check passes it in the neg-risk domain');
  t.equal(verdictEntry(envelope(negRisk), hasher), 'n' + id.slice(2), 'a neg-risk order: n + its neg-risk hash');
});

t.test('no verdict for what the reference check refuses or cannot read', (t) => {
  const flipped = VECTOR_ORDER.signature.slice(0, -4) + (VECTOR_ORDER.signature.endsWith('1b') ? '001c' : '001b');
  t.equal(verdictEntry(envelope({ ...VECTOR_ORDER, signature: flipped }), hasher), '-', 'a signature that recovers to someone else');
  t.equal(verdictEntry(envelope({ ...VECTOR_ORDER, makerAmount: '50000001' }), hasher), '-', 'a field changed after signing');
  t.equal(verdictEntry(envelope({ ...VECTOR_ORDER, maker: '0x' + '11'.repeat(20) }), hasher), '-', 'an EOA order whose maker is not its signer');
  t.equal(verdictEntry(envelope({ ...VECTOR_ORDER, signatureType: 3 }), hasher), '-', 'signature type 3');
  t.equal(verdictEntry(envelope({ ...VECTOR_ORDER, tokenId: 'x' }), hasher), '-', 'a malformed order');
  t.equal(verdictEntry(envelope(undefined), hasher), '-', 'no order');
  t.equal(verdictEntry([envelope(VECTOR_ORDER)], hasher), '-', 'an array is not an envelope');
  t.equal(verdictEntry(null, hasher), '-', 'null');
  t.end();
});

t.test('the header line of a body, and its value read back', async (t) => {
  const negRisk = await signed(true, 9);
  const bad = { ...VECTOR_ORDER, makerAmount: '1' };
  const single = orderVerdictsLine(Buffer.from(JSON.stringify(envelope(VECTOR_ORDER))), hasher);
  t.equal(single?.toString('latin1'), `${ORDER_VERDICTS_HEADER}: s${VECTOR_HASH.slice(2)}\r\n`, 'POST /order: one entry');
  const batch = orderVerdictsLine(Buffer.from(JSON.stringify([envelope(bad), envelope(VECTOR_ORDER), envelope(negRisk)])), hasher);
  const value = batch?.toString('latin1').slice(ORDER_VERDICTS_HEADER.length + 2, -2);
  const read = readOrderVerdicts(value);
  t.equal(read.length, 3, 'POST /orders: one entry per order, in order');
  t.equal(read[0], undefined, 'the refused one has none');
  t.same(read[1], { negRisk: false, orderId: VECTOR_HASH });
  t.equal(read[2]?.negRisk, true);
  t.equal(orderVerdictsLine(Buffer.from(JSON.stringify([envelope(bad)])), hasher), undefined, 'no line when no order has a verdict');
  t.equal(orderVerdictsLine(Buffer.from('{"order": '), hasher), undefined, 'not JSON');
  t.equal(orderVerdictsLine(Buffer.from('[]'), hasher), undefined, 'an empty batch');
  t.equal(orderVerdictsLine(Buffer.from(JSON.stringify(Array.from({ length: 16 }, () => envelope(VECTOR_ORDER)))), hasher), undefined, 'more orders than a batch may hold');
  t.same(readOrderVerdicts(undefined), []);
  t.same(readOrderVerdicts(''), []);
  t.same(readOrderVerdicts(`x${VECTOR_HASH.slice(2)},s${VECTOR_HASH.slice(2).toUpperCase()},s12,-`), [undefined, undefined, undefined, undefined], 'anything but s/n + 64 lower-case hex is no verdict');
});
