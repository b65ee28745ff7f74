// Signer recovery with native secp256k1: the upstream vectors, agreement with ethers on random keys and
// digests, both v conventions, the refusal of high-s, and hostile input that never throws.

import t from 'tap';
import fc from 'fast-check';
import { SigningKey, Signature, computeAddress, getBytes, recoverAddress } from 'ethers';
import { recoverSigner, recoverSignerFromHex } from '../../auth/index.js';

const RUNS = Number(process.env.PMX_PROPERTY_RUNS ?? 150);
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const ORDER_HASH = '0x8c15548d83608d34832e3ef1cb06e1d822a7b8e2ac381a5f0d11c4dcdcfa3648';
const ORDER_SIG = '0x0247fdf6b4fd60944cdde6aee4dc8106176352480db802df31690c0a9438235c158b279108f3fcedb4a51080b6fef2b7168ea2dfc5be6347aab58818ae4e9bce1b';
const ANVIL0 = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';

const privateKeyArb = fc.bigInt({ min: 1n, max: N - 1n }).map((k) => '0x' + k.toString(16).padStart(64, '0'));
const digestArb = fc.uint8Array({ minLength: 32, maxLength: 32 });

function must(result: ReturnType<typeof recoverSigner>): string {
  if (!result.ok) throw new Error(`refused: ${result.detail}`);
  return result.value;
}

t.test('the upstream order vector recovers its signer', async (t) => {
  t.equal(must(recoverSignerFromHex(ORDER_HASH, ORDER_SIG)), ANVIL0);
  t.equal(must(recoverSignerFromHex(ORDER_HASH.slice(2), ORDER_SIG.slice(2).toUpperCase())), ANVIL0, 'no 0x, upper-case hex');
});

t.test('agrees with ethers recoverAddress on random keys and digests, v = 27/28 and 0/1', async (t) => {
  fc.assert(
    fc.property(privateKeyArb, digestArb, (key, digest) => {
      const signature = new SigningKey(key).sign(digest);
      const bytes = getBytes(signature.serialized);
      const expected = computeAddress(key).toLowerCase();
      if (must(recoverSigner(digest, bytes)) !== expected) return false;
      if (recoverAddress(digest, signature).toLowerCase() !== expected) return false;
      const raw = bytes.slice();
      raw[64] = (raw[64] ?? 27) - 27;
      return must(recoverSigner(digest, raw)) === expected;
    }),
    { numRuns: RUNS },
  );
  t.pass(`${RUNS} random keys`);
});

t.test('a random signature over a random digest recovers what ethers recovers, or is refused where ethers also fails or accepts high-s', async (t) => {
  fc.assert(
    fc.property(digestArb, fc.uint8Array({ minLength: 64, maxLength: 64 }), fc.constantFrom(27, 28), (digest, rs, v) => {
      const sig = new Uint8Array(65);
      sig.set(rs);
      sig[64] = v;
      const ours = recoverSigner(digest, sig);
      let theirs: string | undefined;
      try {
        // ethers refuses s >= 2^255 and accepts the rest, so it is the oracle wherever it answers.
        theirs = recoverAddress(digest, Signature.from({ r: '0x' + Buffer.from(rs.subarray(0, 32)).toString('hex'), s: '0x' + Buffer.from(rs.subarray(32)).toString('hex'), v })).toLowerCase();
      } catch {
        theirs = undefined;
      }
      if (ours.ok) return ours.value === theirs;
      return true;
    }),
    { numRuns: RUNS },
  );
  t.pass(`${RUNS} random signatures`);
});

t.test('high-s signatures are refused (OpenZeppelin ECDSA refuses them on chain)', async (t) => {
  const key = new SigningKey('0x' + '11'.repeat(32));
  const digest = getBytes('0x' + 'ab'.repeat(32));
  const low = key.sign(digest);
  const highS = (N - BigInt(low.s)).toString(16).padStart(64, '0');
  const flipped = Buffer.concat([Buffer.from(low.r.slice(2), 'hex'), Buffer.from(highS, 'hex'), Buffer.from([low.v === 27 ? 28 : 27])]);
  const ours = recoverSigner(digest, flipped);
  t.match(ours, { ok: false, error: 'invalid signature', detail: /upper half/ });
  const lowAgain = Buffer.concat([Buffer.from(low.r.slice(2), 'hex'), Buffer.from(low.s.slice(2), 'hex'), Buffer.from([low.v])]);
  t.equal(recoverSigner(digest, lowAgain).ok, true, 'the canonical form of the same signature passes');
  const halfN = Buffer.concat([Buffer.from(low.r.slice(2), 'hex'), Buffer.from((N / 2n).toString(16).padStart(64, '0'), 'hex'), Buffer.from([27])]);
  t.notMatch(recoverSigner(digest, halfN), { detail: /upper half/ }, 's = n/2 is still canonical');
  const halfNPlus1 = Buffer.concat([Buffer.from(low.r.slice(2), 'hex'), Buffer.from((N / 2n + 1n).toString(16).padStart(64, '0'), 'hex'), Buffer.from([27])]);
  t.match(recoverSigner(digest, halfNPlus1), { ok: false, detail: /upper half/ }, 's = n/2 + 1 is not');
});

t.test('malformed signatures are refused with a reason, never thrown', async (t) => {
  const digest = getBytes(ORDER_HASH);
  const good = getBytes(ORDER_SIG);
  const variant = (at: number, value: number): Uint8Array => {
    const copy = good.slice();
    copy[at] = value;
    return copy;
  };
  const cases: [string, Uint8Array, RegExp][] = [
    ['v = 29', variant(64, 29), /v must be/],
    ['v = 2', variant(64, 2), /v must be/],
    ['v = 37 (EIP-155)', variant(64, 37), /v must be/],
    ['r = 0', new Uint8Array([...new Uint8Array(32), ...good.slice(32)]), /r is out of range/],
    ['r = n', new Uint8Array([...getBytes('0x' + N.toString(16)), ...good.slice(32)]), /r is out of range/],
    ['s = 0', new Uint8Array([...good.slice(0, 32), ...new Uint8Array(32), 27]), /s is zero/],
    ['64 bytes', good.slice(0, 64), /65 bytes/],
  ];
  for (const [label, sig, detail] of cases) t.match(recoverSigner(digest, sig), { ok: false, detail }, label);
  t.match(recoverSigner(digest.slice(1), good), { ok: false, detail: /digest must be 32 bytes/ });
  t.match(recoverSignerFromHex(ORDER_HASH, '0x12zz'), { ok: false });
  t.match(recoverSignerFromHex(ORDER_HASH, 12 as unknown as string), { ok: false });
  t.match(recoverSignerFromHex('nope', ORDER_SIG), { ok: false, detail: /digest/ });
  // An x coordinate with no point on the curve: libsecp256k1 cannot recover a key.
  let noPoint: Uint8Array | undefined;
  for (let x = 5n; noPoint === undefined; x++) {
    const r = getBytes('0x' + x.toString(16).padStart(64, '0'));
    const sig = new Uint8Array([...r, ...good.slice(32, 64), 27]);
    const result = recoverSigner(digest, sig);
    if (!result.ok) noPoint = sig;
  }
  t.match(recoverSigner(digest, noPoint), { ok: false, detail: /no public key/ });
});

t.test('hostile input: any bytes, any text, never a throw', async (t) => {
  fc.assert(
    fc.property(fc.anything(), fc.anything(), (a, b) => {
      const r1 = recoverSignerFromHex(a as string, b);
      const r2 = recoverSigner(a as Uint8Array, b as Uint8Array);
      return r1.ok === false && r2.ok === false;
    }),
    { numRuns: RUNS * 2 },
  );
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 0, maxLength: 70 }), fc.uint8Array({ minLength: 0, maxLength: 70 }), (d, s) => {
      const result = recoverSigner(d, s);
      return result.ok ? d.length === 32 && s.length === 65 : typeof result.detail === 'string';
    }),
    { numRuns: RUNS * 2 },
  );
  t.pass('no throw');
});
