// Parsing the wire order: every accepted spelling, one precise problem per bad field, and hostile bodies
// that are refused without a throw.

import t from 'tap';
import fc from 'fast-check';
import { OrderHasher, parseOrderPayload, checkSignedOrder } from '../../auth/index.js';
import { DOMAINS, TEST_ADDRESS, VECTOR_HASH, VECTOR_ORDER, ZERO32 } from './fixtures.js';

const RUNS = Number(process.env.PMX_PROPERTY_RUNS ?? 300);
const hasher = new OrderHasher(DOMAINS);

function detail(body: unknown): string {
  const result = parseOrderPayload(body);
  if (result.ok) throw new Error('expected a refusal');
  t.equal(result.error, 'Invalid order payload');
  return result.detail;
}

t.test('the upstream body parses into exact values', async (t) => {
  const result = parseOrderPayload(VECTOR_ORDER);
  t.ok(result.ok);
  if (!result.ok) return;
  t.same(result.value, {
    salt: 479249096354n, maker: TEST_ADDRESS, signer: TEST_ADDRESS, tokenId: 1234n, makerAmount: 50_000_000n, takerAmount: 100_000_000n,
    side: 'BUY', signatureType: 0, timestamp: 1_710_000_000_000n, metadata: ZERO32, builder: ZERO32, expiration: 0n,
    signature: VECTOR_ORDER.signature,
  });
});

t.test('liberal spellings give the same order and the same id', async (t) => {
  const variants: [string, Record<string, unknown>][] = [
    ['salt as a decimal string', { salt: '479249096354' }],
    ['salt with leading zeros', { salt: '000479249096354' }],
    ['lower-case addresses', { maker: TEST_ADDRESS.toLowerCase(), signer: TEST_ADDRESS.toLowerCase() }],
    ['upper-case hex addresses', { maker: '0x' + TEST_ADDRESS.slice(2).toUpperCase() }],
    ['side in lower case', { side: 'buy' }],
    ['signatureType as a string', { signatureType: '0' }],
    ['amounts as JSON numbers', { makerAmount: 50_000_000, takerAmount: 100_000_000, tokenId: 1234, timestamp: 1_710_000_000_000 }],
    ['metadata and builder as ""', { metadata: '', builder: '' }],
    ['metadata and builder absent', { metadata: undefined, builder: undefined }],
    ['expiration absent', { expiration: undefined }],
    ['upper-case signature hex', { signature: '0x' + VECTOR_ORDER.signature.slice(2).toUpperCase() }],
    ['V1 leftovers ignored', { taker: '0x0000000000000000000000000000000000000000', nonce: '0', feeRateBps: '0' }],
  ];
  for (const [label, change] of variants) {
    const result = checkSignedOrder({ ...VECTOR_ORDER, ...change }, hasher, () => false);
    t.match(result, { ok: true, value: { orderId: VECTOR_HASH } }, label);
  }
  const withExpiry = parseOrderPayload({ ...VECTOR_ORDER, expiration: '1710000600' });
  t.equal(withExpiry.ok && withExpiry.value.expiration, 1_710_000_600n, 'expiration is read (it is not signed)');
});

t.test('hex fields come out as 0x + lower-case hex whatever their spelling (the lower-case form is taken as sent)', async (t) => {
  const lower = VECTOR_ORDER.signature.toLowerCase();
  const builder = '0x' + 'ab'.repeat(32);
  const spellings: [string, string, string][] = [
    ['lower case with 0x', lower, builder],
    ['upper case with 0x', '0x' + lower.slice(2).toUpperCase(), '0x' + builder.slice(2).toUpperCase()],
    ['upper-case prefix', '0X' + lower.slice(2), '0X' + builder.slice(2)],
    ['no prefix', lower.slice(2), builder.slice(2)],
  ];
  for (const [label, signature, code] of spellings) {
    const result = parseOrderPayload({ ...VECTOR_ORDER, signature, builder: code, metadata: code });
    t.match(result, { ok: true, value: { signature: lower, builder, metadata: builder } }, label);
  }
  t.match(detail({ ...VECTOR_ORDER, signature: lower + 'zz' }), /signature must be 65 bytes of hex/, 'not hex: refused');
  t.match(detail({ ...VECTOR_ORDER, signatureType: 3, signature: lower.slice(0, 100) }), /signature must be hex of 65 to/, 'type 3 still measured');
});

t.test('each bad field is named', async (t) => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['salt above 2^53 as a number', { salt: 2 ** 60 }, /salt must be a whole number from 0 to 2\^53 - 1 when sent as a JSON number/],
    ['fractional salt', { salt: 1.5 }, /salt must be a whole number/],
    ['negative salt', { salt: -1 }, /salt must be a whole number/],
    ['salt missing', { salt: undefined }, /salt is required/],
    ['tokenId in hex', { tokenId: '0x4d2' }, /tokenId must be a decimal string/],
    ['tokenId of 2^256', { tokenId: (2n ** 256n).toString() }, /tokenId must be below 2\^256/],
    ['makerAmount with a decimal point', { makerAmount: '50.5' }, /makerAmount must be a decimal string/],
    ['takerAmount negative', { takerAmount: '-1' }, /takerAmount must be a decimal string/],
    ['maker too short', { maker: '0x1234' }, /maker must be an address/],
    ['signer missing', { signer: undefined }, /signer is required/],
    ['side HOLD', { side: 'HOLD' }, /side must be "BUY" or "SELL"/],
    ['side numeric', { side: 0 }, /side must be/],
    ['signatureType 4', { signatureType: 4 }, /signatureType must be 0 \(EOA\)/],
    ['timestamp missing', { timestamp: undefined, nonce: undefined }, /timestamp is required/],
    ['expiration garbage', { expiration: 'never' }, /expiration must be a decimal string/],
    ['metadata short', { metadata: '0x1234' }, /metadata must be bytes32/],
    ['builder not hex', { builder: 'z'.repeat(64) }, /builder must be bytes32/],
    ['signature 64 bytes', { signature: '0x' + '11'.repeat(64) }, /signature must be 65 bytes of hex/],
    ['signature missing', { signature: undefined }, /signature is required/],
    ['signature odd length', { signature: VECTOR_ORDER.signature + '0' }, /signature must be 65 bytes/],
  ];
  for (const [label, change, expected] of cases) t.match(detail({ ...VECTOR_ORDER, ...change }), expected, label);
  t.match(detail({ ...VECTOR_ORDER, side: 'HOLD', maker: 'x', salt: 'abc' }), /salt .*; maker .*; side /, 'every problem, in field order');
  t.match(detail({ ...VECTOR_ORDER, timestamp: undefined, nonce: '0', feeRateBps: '0' }), /V1 order/, 'a V1 body is named as such');
  t.match(detail(null), /must be a JSON object/);
  t.match(detail([VECTOR_ORDER]), /must be a JSON object/);
  t.match(detail('order'), /must be a JSON object/);
  const wrapped = parseOrderPayload({ ...VECTOR_ORDER, signatureType: 3, signature: '0x' + 'ab'.repeat(400) });
  t.ok(wrapped.ok, 'type 3 takes a longer wrapped signature');
  t.match(detail({ ...VECTOR_ORDER, signatureType: 3, signature: '0x' + 'ab'.repeat(5000) }), /signature must be hex of 65 to 4096 bytes/);
});

t.test('hostile bodies: refused or accepted, never thrown', async (t) => {
  const fieldArb = fc.oneof(fc.anything(), fc.string(), fc.bigInt().map(String), fc.double(), fc.constant(undefined));
  fc.assert(
    fc.property(fc.dictionary(fc.constantFrom(...Object.keys(VECTOR_ORDER), '__proto__', 'constructor'), fieldArb), (changes) => {
      const body = { ...VECTOR_ORDER, ...changes };
      const result = checkSignedOrder(body, hasher, () => false);
      return result.ok || (result.error === 'Invalid order payload' && result.detail.length > 0);
    }),
    { numRuns: RUNS },
  );
  fc.assert(
    fc.property(fc.anything(), (body) => {
      const result = checkSignedOrder(body, hasher, () => true);
      return result.ok === false;
    }),
    { numRuns: RUNS },
  );
  t.pass('no throw');
});
