// The V2 order: the upstream vector (hash and signature), equality with ethers' TypedDataEncoder.hash on
// random orders, the neg-risk domain, orders built and signed by the official clob-client-v2, and the
// signature rules per signature type.

import t from 'tap';
import fc from 'fast-check';
import { TypedDataEncoder, Wallet, verifyTypedData } from 'ethers';
import { OrderBuilder, OrderType, orderToJsonV2, Side } from '@polymarket/clob-client-v2';
import { ORDER_TYPES, OrderHasher, checkSignedOrder, encodeOrderStruct, orderDomain, orderMessage, parseOrderPayload, verifyOrderSignature, type SignedOrder } from '../../auth/index.js';
import { DOMAINS, TEST_ADDRESS, TEST_KEY, VECTOR_HASH, VECTOR_ORDER, ZERO32, clientSigner } from './fixtures.js';

const RUNS = Number(process.env.PMX_PROPERTY_RUNS ?? 100);
const hasher = new OrderHasher(DOMAINS);

function parsed(body: unknown): SignedOrder {
  const result = parseOrderPayload(body);
  if (!result.ok) throw new Error(result.detail);
  return result.value;
}

t.test('the upstream vector: hash 0x8c15548d… and its signature', async (t) => {
  const order = parsed(VECTOR_ORDER);
  t.equal(hasher.hash(order, false), VECTOR_HASH);
  t.equal(TypedDataEncoder.hash(orderDomain(DOMAINS, false), ORDER_TYPES, orderMessage(order)), VECTOR_HASH, 'same as the static ethers hash');
  t.equal(verifyTypedData(orderDomain(DOMAINS, false), ORDER_TYPES, orderMessage(order), VECTOR_ORDER.signature), TEST_ADDRESS, 'ethers agrees on the signer');
  t.match(verifyOrderSignature(order, VECTOR_HASH), { ok: true, value: { orderId: VECTOR_HASH, makerBound: true } });
  t.match(checkSignedOrder(VECTOR_ORDER, hasher, () => false), { ok: true, value: { orderId: VECTOR_HASH } });
});

t.test('the neg-risk exchange is another domain: another id, and the signature does not verify there', async (t) => {
  const order = parsed(VECTOR_ORDER);
  const negRiskId = hasher.hash(order, true);
  t.not(negRiskId, VECTOR_HASH);
  t.equal(negRiskId, TypedDataEncoder.hash(orderDomain(DOMAINS, true), ORDER_TYPES, orderMessage(order)));
  t.match(checkSignedOrder(VECTOR_ORDER, hasher, (token) => token === '1234'), { ok: false, error: 'Invalid order payload', detail: /not made by the order's signer/ });
  t.match(checkSignedOrder(VECTOR_ORDER, new OrderHasher({ ...DOMAINS, chainId: 80002 }), () => false), { ok: false }, 'another chain id');
});

const uint = (max: bigint) => fc.bigInt({ min: 0n, max });
const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => '0x' + Buffer.from(b).toString('hex'));
const wireOrderArb = fc.record({
  salt: fc.oneof(fc.nat({ max: Number.MAX_SAFE_INTEGER }), uint(2n ** 256n - 1n).map(String)),
  maker: hex(20),
  signer: hex(20),
  tokenId: uint(2n ** 256n - 1n).map(String),
  makerAmount: uint(10n ** 18n).map(String),
  takerAmount: uint(10n ** 18n).map(String),
  side: fc.constantFrom('BUY', 'SELL', 'buy', 'Sell'),
  signatureType: fc.constantFrom(0, 1, 2, 3),
  timestamp: uint(2n ** 64n).map(String),
  expiration: uint(2n ** 40n).map(String),
  metadata: fc.oneof(hex(32), fc.constant('')),
  builder: fc.oneof(hex(32), fc.constant('')),
  signature: hex(65),
});

t.test('random orders hash exactly as ethers TypedDataEncoder.hash, in both domains', async (t) => {
  fc.assert(
    fc.property(wireOrderArb, fc.boolean(), (wire, negRisk) => {
      const order = parsed(wire);
      return hasher.hash(order, negRisk) === TypedDataEncoder.hash(orderDomain(DOMAINS, negRisk), ORDER_TYPES, orderMessage(order));
    }),
    { numRuns: RUNS },
  );
  t.pass(`${RUNS} random orders`);
});

t.test('the struct encoding is ethers encodeData, and values out of range are refused', async (t) => {
  const encoder = TypedDataEncoder.from(ORDER_TYPES);
  fc.assert(
    fc.property(wireOrderArb, (wire) => {
      const order = parsed(wire);
      return '0x' + encodeOrderStruct(order).toString('hex') === encoder.encodeData('Order', orderMessage(order));
    }),
    { numRuns: RUNS },
  );
  const order = parsed(VECTOR_ORDER);
  for (const [label, bad] of [
    ['negative salt', { salt: -1n }],
    ['tokenId of 2^256', { tokenId: 2n ** 256n }],
    ['short maker', { maker: '0x1234' }],
    ['bad metadata', { metadata: '0x12' }],
    ['bad side', { side: 'HOLD' }],
    ['bad signature type', { signatureType: 7 }],
    ['number instead of bigint', { timestamp: 5 }],
  ] as const) {
    t.throws(() => hasher.hash({ ...order, ...bad } as unknown as SignedOrder, false), RangeError, label);
  }
});

t.test('orders signed with random keys verify, and not with a changed field', async (t) => {
  await fc.assert(
    fc.asyncProperty(wireOrderArb, fc.bigInt({ min: 1n, max: 2n ** 255n }), fc.boolean(), async (wire, secret, negRisk) => {
      const wallet = new Wallet('0x' + secret.toString(16).padStart(64, '0'));
      const type = wire.signatureType === 3 ? 0 : wire.signatureType;
      const unsigned = parsed({ ...wire, maker: type === 0 ? wallet.address : wire.maker, signer: wallet.address, signatureType: type });
      const signature = await wallet.signTypedData(orderDomain(DOMAINS, negRisk), ORDER_TYPES, orderMessage(unsigned));
      const body = { ...wire, maker: unsigned.maker, signer: wallet.address, signatureType: type, signature };
      const good = checkSignedOrder(body, hasher, () => negRisk);
      if (!good.ok || good.value.makerBound !== (type === 0)) return false;
      const tampered = checkSignedOrder({ ...body, makerAmount: (BigInt(wire.makerAmount) + 1n).toString() }, hasher, () => negRisk);
      return !tampered.ok;
    }),
    { numRuns: Math.ceil(RUNS / 4) },
  );
  t.pass('signed orders verify');
});

t.test('orders built and signed by the official clob-client-v2 parse, hash and verify', async (t) => {
  const wallet = new Wallet(TEST_KEY);
  const builder = new OrderBuilder(clientSigner(wallet), 137);
  const token = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
  for (const negRisk of [false, true]) {
    for (const side of [Side.BUY, Side.SELL]) {
      const signed = await builder.buildOrder({ tokenID: token, price: 0.57, size: 21.5, side }, { tickSize: '0.01', negRisk }, 2);
      const body = JSON.parse(JSON.stringify(orderToJsonV2(signed as Parameters<typeof orderToJsonV2>[0], 'owner-key', OrderType.GTC))) as { order: unknown };
      const result = checkSignedOrder(body.order, hasher, () => negRisk);
      t.ok(result.ok, `${side} negRisk=${negRisk}: ${result.ok ? 'verified' : result.detail}`);
      if (result.ok) {
        t.equal(result.value.order.tokenId.toString(), token);
        t.equal(result.value.order.side, side);
        t.equal(result.value.order.timestamp.toString().length, 13, 'timestamp in ms');
      }
      t.match(checkSignedOrder(body.order, hasher, () => !negRisk), { ok: false }, 'the other exchange refuses it');
    }
  }
});

t.test('signature rules per signature type', async (t) => {
  const order = parsed(VECTOR_ORDER);
  t.match(verifyOrderSignature({ ...order, maker: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }, VECTOR_HASH), { ok: false, detail: /must have maker = signer/ }, 'EOA with a foreign maker');
  t.match(verifyOrderSignature({ ...order, signatureType: 3 }, VECTOR_HASH), { ok: false, detail: /POLY_1271.*not supported/ });
  t.match(verifyOrderSignature({ ...order, signer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', maker: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }, VECTOR_HASH), { ok: false, detail: /not made by the order's signer/ });
  t.match(verifyOrderSignature({ ...order, signature: '0x' + '00'.repeat(65) }, VECTOR_HASH), { ok: false, detail: /invalid order signature: .*r is out of range/ });
  const proxy = parsed({ ...VECTOR_ORDER, signatureType: 1, maker: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' });
  const proxyId = hasher.hash(proxy, false);
  const proxySig = await new Wallet(TEST_KEY).signTypedData(orderDomain(DOMAINS, false), ORDER_TYPES, orderMessage(proxy));
  t.match(verifyOrderSignature({ ...proxy, signature: proxySig }, proxyId), { ok: true, value: { makerBound: false } }, 'a proxy order verifies its signer; the maker binding is the caller\'s');
  t.same(ZERO32.length, 66);
});
