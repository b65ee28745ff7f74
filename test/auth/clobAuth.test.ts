// L1 (ClobAuth) verification: both upstream vectors, headers made by the official client, SVC_* and
// case-insensitive names, freshness either way, and every refusal with its reason, never a throw.

import t from 'tap';
import fc from 'fast-check';
import { Wallet } from 'ethers';
import { createL1Headers } from '@polymarket/clob-client-v2';
import { clobAuthDigest, verifyL1Headers, type HeaderBag } from '../../auth/index.js';
import { TEST_ADDRESS, clientSigner } from './fixtures.js';

const RUNS = Number(process.env.PMX_PROPERTY_RUNS ?? 300);
const VECTOR_AMOY = {
  POLY_ADDRESS: TEST_ADDRESS, POLY_TIMESTAMP: '10000000', POLY_NONCE: '23',
  POLY_SIGNATURE: '0xf62319a987514da40e57e2f4d7529f7bac38f0355bd88bb5adbb3768d80de6c1682518e0af677d5260366425f4361e7b70c25ae232aff0ab2331e2b164a1aedc1b',
};
const VECTOR_POLYGON = {
  POLY_ADDRESS: TEST_ADDRESS, POLY_TIMESTAMP: '100000', POLY_NONCE: '0',
  POLY_SIGNATURE: '0xfdfb5abf512e439ea61c8595c18e527e718bf16010acf57cef51d09e15893098275d3c6f73038f36ec0cd0ce55436fca14dc64b11611f4dce896e354207508cc1b',
};

t.test('both upstream vectors verify', async (t) => {
  t.same(verifyL1Headers(VECTOR_AMOY, { chainId: 80002, nowSec: 10_000_000, freshnessSec: 30 }), { ok: true, value: { address: TEST_ADDRESS, nonce: '23', timestamp: 10_000_000 } });
  t.same(verifyL1Headers(VECTOR_POLYGON, { chainId: 137, nowSec: 100_000, freshnessSec: 30 }), { ok: true, value: { address: TEST_ADDRESS, nonce: '0', timestamp: 100_000 } });
  t.match(verifyL1Headers(VECTOR_AMOY, { chainId: 137, nowSec: 10_000_000, freshnessSec: 30 }), { ok: false, error: 'Invalid L1 Request headers', detail: /not made by POLY_ADDRESS/ }, 'wrong chain id');
  const { POLY_NONCE: _n, ...noNonce } = VECTOR_POLYGON;
  t.match(verifyL1Headers(noNonce, { chainId: 137, nowSec: 100_000, freshnessSec: 30 }), { ok: true, value: { nonce: '0' } }, 'POLY_NONCE defaults to 0');
});

t.test('headers made by the official clob-client-v2 verify, for a random nonce', async (t) => {
  const wallet = Wallet.createRandom();
  const now = Math.floor(Date.now() / 1000);
  const headers = await createL1Headers(clientSigner(wallet), 137, 987654321, now);
  t.match(verifyL1Headers(headers as unknown as HeaderBag, { chainId: 137, nowSec: now, freshnessSec: 30 }), { ok: true, value: { address: wallet.address, nonce: '987654321', timestamp: now } });
});

t.test('header names: SVC_*, any case, dashes; conflicts are refused', async (t) => {
  const opts = { chainId: 137, nowSec: 100_000, freshnessSec: 30 };
  const svc = Object.fromEntries(Object.entries(VECTOR_POLYGON).map(([k, v]) => [k.replace('POLY_', 'SVC_'), v]));
  t.match(verifyL1Headers(svc, opts), { ok: true }, 'SVC_*');
  const lower = Object.fromEntries(Object.entries(VECTOR_POLYGON).map(([k, v]) => [k.toLowerCase(), v]));
  t.match(verifyL1Headers(lower, opts), { ok: true }, 'lower case (node)');
  const dashed = Object.fromEntries(Object.entries(VECTOR_POLYGON).map(([k, v]) => [k.toLowerCase().replace('_', '-'), v]));
  t.match(verifyL1Headers(dashed, opts), { ok: true }, 'poly-address');
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, svc_address: VECTOR_POLYGON.POLY_ADDRESS }, opts), { ok: true }, 'agreeing duplicates');
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, SVC_NONCE: '1' }, opts), { ok: false, detail: /POLY_NONCE and SVC_NONCE disagree/ });
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_NONCE: ['0', '1'] }, opts), { ok: false, detail: /more than once/ });
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_NONCE: ['0', '0'] }, opts), { ok: true }, 'a repeated header with one value');
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_ADDRESS: TEST_ADDRESS.toLowerCase() }, opts), { ok: true, value: { address: TEST_ADDRESS } }, 'address in lower case, returned checksummed');
});

t.test('freshness either way, as a parameter', async (t) => {
  const at = (nowSec: number, freshnessSec = 30) => verifyL1Headers(VECTOR_POLYGON, { chainId: 137, nowSec, freshnessSec });
  t.match(at(100_030), { ok: true }, '30 s late');
  t.match(at(99_970), { ok: true }, '30 s early');
  t.match(at(100_031), { ok: false, detail: /31 s behind the server clock \(allowed: 30 s/ });
  t.match(at(99_969), { ok: false, detail: /31 s ahead of the server clock/ });
  t.match(at(100_300, 300), { ok: true }, 'a wider window');
});

t.test('each refusal says why', async (t) => {
  const opts = { chainId: 137, nowSec: 100_000, freshnessSec: 30 };
  const without = (name: keyof typeof VECTOR_POLYGON): HeaderBag => Object.fromEntries(Object.entries(VECTOR_POLYGON).filter(([k]) => k !== name));
  t.match(verifyL1Headers(without('POLY_ADDRESS'), opts), { ok: false, detail: 'missing header POLY_ADDRESS' });
  t.match(verifyL1Headers(without('POLY_SIGNATURE'), opts), { ok: false, detail: 'missing header POLY_SIGNATURE' });
  t.match(verifyL1Headers(without('POLY_TIMESTAMP'), opts), { ok: false, detail: 'missing header POLY_TIMESTAMP' });
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_ADDRESS: '0x1234' }, opts), { ok: false, detail: /POLY_ADDRESS must be an address/ });
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_NONCE: '-1' }, opts), { ok: false, detail: /POLY_NONCE must be a decimal uint256/ });
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_NONCE: (2n ** 256n).toString() }, opts), { ok: false, detail: /POLY_NONCE/ });
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_TIMESTAMP: '100000.0' }, opts), { ok: false, detail: /unix seconds/ });
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_TIMESTAMP: '100001' }, opts), { ok: false, detail: /not made by POLY_ADDRESS/ }, 'the timestamp is signed');
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_NONCE: '1' }, opts), { ok: false, detail: /not made by POLY_ADDRESS/ }, 'the nonce is signed');
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_ADDRESS: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }, opts), { ok: false, detail: /not made by POLY_ADDRESS/ }, 'another address');
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_SIGNATURE: '0x1234' }, opts), { ok: false, detail: /POLY_SIGNATURE: the signature must be 65 bytes/ });
  t.match(verifyL1Headers({ ...VECTOR_POLYGON, POLY_SIGNATURE: 'x'.repeat(5000) }, opts), { ok: false, detail: /too long/ });
});

t.test('a digest signed by a random wallet recovers that wallet', async (t) => {
  const wallet = Wallet.createRandom();
  const digest = clobAuthDigest(137, wallet.address, '1700000000', 5n);
  const signature = wallet.signingKey.sign(digest).serialized;
  t.match(verifyL1Headers({ POLY_ADDRESS: wallet.address, POLY_SIGNATURE: signature, POLY_TIMESTAMP: '1700000000', POLY_NONCE: '0005' }, { chainId: 137, nowSec: 1_700_000_000, freshnessSec: 1 }), { ok: true, value: { nonce: '5' } }, 'a nonce with leading zeros is the same uint256');
});

t.test('hostile headers never throw', async (t) => {
  const opts = { chainId: 137, nowSec: 100_000, freshnessSec: 30 };
  const valueArb = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.constant(undefined), fc.uint8Array({ maxLength: 70 }).map((b) => '0x' + Buffer.from(b).toString('hex')));
  fc.assert(
    fc.property(fc.dictionary(fc.constantFrom('POLY_ADDRESS', 'poly_signature', 'POLY-TIMESTAMP', 'SVC_NONCE', 'svc_address', 'other'), valueArb), (changes) => {
      const result = verifyL1Headers({ ...VECTOR_POLYGON, ...changes }, opts);
      return result.ok || result.error === 'Invalid L1 Request headers';
    }),
    { numRuns: RUNS },
  );
  fc.assert(fc.property(fc.anything(), (bag) => verifyL1Headers((bag ?? {}) as HeaderBag, opts).ok === false), { numRuns: RUNS });
  t.pass('no throw');
});
