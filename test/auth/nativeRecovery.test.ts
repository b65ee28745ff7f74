// The service's own libsecp256k1 build (native/secp256k1, auth/nativeRecovery.ts): built and in use wherever
// cargo is (as on the CI machine), and giving the `secp256k1` package's answers on valid signatures, on
// signatures whose r is no x-coordinate of the curve, on out-of-range values and on wrong lengths; its
// keccak-256 the `keccak` package's on any input.

import t from 'tap';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SigningKey, getBytes } from 'ethers';
import { RECOVERY_BACKEND } from '../../auth/index.js';
import { nativeRecovery, nativeRecoveryPath } from '../../auth/nativeRecovery.js';
import { keccak256, packageKeccak256 } from '../../auth/keccak.js';

const RUNS = Number(process.env.PMX_PROPERTY_RUNS ?? 150);
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

interface PackageBinding {
  ecdsaRecover(signature: Uint8Array, recid: number, digest: Uint8Array, compressed: boolean): Uint8Array;
}
const secp256k1 = createRequire(import.meta.url)('secp256k1') as PackageBinding;

/** The package binding's address for (digest, r ‖ s ‖ v), or null where it refuses. */
function packageAddress(digest: Uint8Array, signature: Uint8Array): string | null {
  const v = signature[64] ?? 0;
  try {
    const key = secp256k1.ecdsaRecover(signature.subarray(0, 64), v >= 27 ? v - 27 : v, digest, false);
    return packageKeccak256(key.subarray(1)).toString('hex', 12);
  } catch {
    return null;
  }
}

/** Whether scripts/buildNative.sh finds cargo: on PATH, or where rustup puts it. */
function cargoInstalled(): boolean {
  for (const cargo of ['cargo', join(process.env.CARGO_HOME ?? join(homedir(), '.cargo'), 'bin', 'cargo')]) {
    try {
      execFileSync(cargo, ['--version'], { stdio: 'ignore' });
      return true;
    } catch {
      // the next place
    }
  }
  return false;
}

t.test('built and in use where cargo is installed; the package binding otherwise', async (t) => {
  if (cargoInstalled()) {
    t.ok(nativeRecoveryPath(), 'scripts/buildNative.sh (npm run build, npm test) made native/build/pmx_secp256k1.node');
    t.ok(nativeRecovery, 'and it loads');
    t.match(RECOVERY_BACKEND, /rust-secp256k1/);
  } else {
    t.equal(nativeRecovery, undefined);
    t.match(RECOVERY_BACKEND, /secp256k1 package/);
  }
});

const native = nativeRecovery;
t.test('the same addresses as the package binding', { skip: native === undefined ? 'not built here (no cargo)' : false }, async (t) => {
  if (native === undefined) return;
  const hex = (b: Buffer | null): string | null => (b === null ? null : b.toString('hex'));
  const keyArb = fc.bigInt({ min: 1n, max: N - 1n }).map((k) => '0x' + k.toString(16).padStart(64, '0'));
  const digestArb = fc.uint8Array({ minLength: 32, maxLength: 32 });
  fc.assert(
    fc.property(keyArb, digestArb, fc.boolean(), (key, digest, raw) => {
      const signature = getBytes(new SigningKey(key).sign(digest).serialized);
      if (raw) signature[64] = (signature[64] ?? 27) - 27;
      const expected = packageAddress(digest, signature);
      return expected !== null && hex(native.recoverAddress(digest, signature)) === expected;
    }),
    { numRuns: RUNS },
  );
  // Arbitrary r and s (most r are no x-coordinate of a point; some are), v 27/28: both refuse, or both give one address.
  const wordArb = fc.bigInt({ min: 1n, max: N - 1n }).map((v) => Buffer.from(v.toString(16).padStart(64, '0'), 'hex'));
  fc.assert(
    fc.property(digestArb, wordArb, wordArb, fc.constantFrom(27, 28), (digest, r, s, v) => {
      const signature = Buffer.concat([r, s, Buffer.from([v])]);
      return hex(native.recoverAddress(digest, signature)) === packageAddress(digest, signature);
    }),
    { numRuns: RUNS * 4 },
  );
  const digest = Buffer.alloc(32, 7);
  const good = Buffer.from(getBytes(new SigningKey('0x' + '11'.repeat(32)).sign(digest).serialized));
  t.equal(native.recoverAddress(digest.subarray(1), good), null, 'a short digest');
  t.equal(native.recoverAddress(digest, good.subarray(1)), null, 'a short signature');
  t.equal(native.recoverAddress(digest, Buffer.concat([good.subarray(0, 64), Buffer.from([29])])), null, 'v = 29');
  t.equal(native.recoverAddress(digest, Buffer.concat([Buffer.from(N.toString(16), 'hex'), good.subarray(32)])), null, 'r = n');
  t.equal(native.recoverAddress(digest, Buffer.concat([Buffer.alloc(32), good.subarray(32)])), null, 'r = 0');
  t.equal(hex(native.recoverAddress(new Uint8Array(digest), new Uint8Array(good))), packageAddress(digest, good), 'plain Uint8Arrays');
  const inside = Buffer.concat([Buffer.alloc(3), good, Buffer.alloc(5)]);
  t.equal(hex(native.recoverAddress(digest, inside.subarray(3, 68))), packageAddress(digest, good), 'a view into a larger buffer');
});

t.test('keccak-256: the keccak package\'s hashes, of any length and from views', { skip: native === undefined ? 'not built here (no cargo)' : false }, async (t) => {
  if (native === undefined) return;
  t.equal(native.keccak256(Buffer.alloc(0)).toString('hex'), 'c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470', 'the empty input');
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 1200 }), fc.nat(8), (bytes, cut) => {
      const view = bytes.subarray(Math.min(cut, bytes.length));
      return native.keccak256(view).equals(packageKeccak256(view)) && keccak256(view).equals(packageKeccak256(view));
    }),
    { numRuns: RUNS * 4 },
  );
});
