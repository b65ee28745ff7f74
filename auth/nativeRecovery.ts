// The native public-key recovery built from native/secp256k1 (scripts/buildNative.sh, part of `npm run build`
// where cargo is installed): libsecp256k1 as the rust-secp256k1 crate vendors it, which recovers a key in about
// 80 µs where the `secp256k1` package's bundled 2019 build takes about 125 (bench:recover, one core of the AMD
// EPYC). recoverSigner.ts uses it when it is built and the package's binding otherwise; the verdicts are the
// same (test/auth/nativeRecovery.test.ts).
//
// The addon is looked for at native/build/pmx_secp256k1.node under the repository, from this module's place
// in the sources (auth/) or in the build (dist/auth/). One that is there but does not load is an error, not a
// silent fallback: it means a broken build.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export interface NativeRecovery {
  /** The 20-byte address that signed `digest` with `signature` (r ‖ s ‖ v), or null when no key recovers. */
  recoverAddress(digest: Uint8Array, signature: Uint8Array): Buffer | null;
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
  return createRequire(import.meta.url)(path) as NativeRecovery;
}

/** The native recovery, or undefined where it was not built. */
export const nativeRecovery: NativeRecovery | undefined = load();
