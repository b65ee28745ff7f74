// The native public-key recovery built from native/secp256k1 (scripts/buildNative.sh, part of `npm run build`
// where cargo is installed): libsecp256k1 as the rust-secp256k1 crate vendors it, which recovers a key in about
// 80 µs where the `secp256k1` package's bundled 2019 build takes about 125 (bench:recover, one core of the AMD
// EPYC), and its keccak-256 in one call (keccak.ts; the `keccak` package's sponge takes four calls and an
// allocation, ~4.5 µs per hash). recoverSigner.ts and keccak.ts use it when it is built and the packages'
// bindings otherwise; the answers are the same (test/auth/nativeRecovery.test.ts).
//
// The addon is looked for at native/build/pmx_secp256k1.node under the repository, from this module's place
// in the sources (auth/) or in the build (dist/auth/). One that is there but does not load is an error, not a
// silent fallback: it means a broken build.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

// The buffers load() makes for the addon's results come from Node's pool (Buffer.allocUnsafe), as views of a
// shared ArrayBuffer: a caller that moves one to another thread copies it first.

/** The addon's functions (native/secp256k1/src/lib.rs); results go into the caller's buffers. */
interface Addon {
  recoverAddressInto(digest: Uint8Array, signature: Uint8Array, out: Uint8Array): boolean;
  keccak256Into(data: Uint8Array, out: Uint8Array): boolean;
  backend(): string;
}

export interface NativeRecovery {
  /** The 20-byte address that signed `digest` with `signature` (r ‖ s ‖ v), or null when no key recovers. */
  recoverAddress(digest: Uint8Array, signature: Uint8Array): Buffer | null;
  /** keccak-256 of `data` (32 bytes). */
  keccak256(data: Uint8Array): Buffer;
  /** Which libsecp256k1 it carries. */
  backend(): string;
}

const ADDON = join('native', 'build', 'pmx_secp256k1.node');

/** Where the addon is, if it was built. */
export function nativeRecoveryPath(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const root of [join(here, '..'), join(here, '..', '..')]) {
    const path = join(root, ADDON);
    if (existsSync(path)) return path;
  }
  return undefined;
}

function load(): NativeRecovery | undefined {
  const path = nativeRecoveryPath();
  if (path === undefined) return undefined;
  const addon = createRequire(import.meta.url)(path) as Addon;
  return {
    recoverAddress(digest, signature) {
      const out = Buffer.allocUnsafe(20);
      return addon.recoverAddressInto(digest, signature, out) ? out : null;
    },
    keccak256(data) {
      const out = Buffer.allocUnsafe(32);
      addon.keccak256Into(data, out);
      return out;
    },
    backend: () => addon.backend(),
  };
}

/** The native recovery, or undefined where it was not built. */
export const nativeRecovery: NativeRecovery | undefined = load();
