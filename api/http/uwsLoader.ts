// Loads uWebSockets.js (the npm alias of @trufflesuite/uws-js-unofficial). That package silently falls back
// to a slow JavaScript shim when its native binary does not load on this platform; the native module is
// the one that also exports SSLApp and getParts, which is how the fallback is told apart. The service
// refuses to run on the fallback unless explicitly allowed (--allow-slow-uws).

import { createRequire } from 'node:module';
import type * as Uws from 'uWebSockets.js';

export type UwsModule = typeof Uws;

export class SlowUwsError extends Error {
  override readonly name = 'SlowUwsError';
}

export function isNativeUws(mod: object): boolean {
  const m = mod as Record<string, unknown>;
  return typeof m.SSLApp === 'function' && typeof m.getParts === 'function';
}

export function loadUws(allowSlow: boolean): { uws: UwsModule; native: boolean } {
  const require = createRequire(import.meta.url);
  const uws = require('uWebSockets.js') as UwsModule;
  const native = isNativeUws(uws);
  if (!native && !allowSlow) {
    throw new SlowUwsError(
      "uWebSockets.js's native binary did not load on this platform (Node ABI " +
        `${process.versions.modules}, ${process.platform}-${process.arch}); it fell back to its slow JavaScript shim. ` +
        'Start with --allow-slow-uws (PMX_ALLOW_SLOW_UWS=true) to run on it anyway.',
    );
  }
  return { uws, native };
}
