// keccak-256: the service's own native build where it is built (nativeRecovery.ts: one call per hash), else
// through the native sponge of the `keccak` package (prebuilt binaries, from the authors of the
// `secp256k1` package used for recovery). Checking an order takes four keccak-256 hashes (the struct, the
// typed-data digest, the recovered public key, and the checksum of an address); ethers' JavaScript keccak
// cost about 8 times as much and was most of the time of checking an order. The package's own hasher wraps
// each hash in a new stream object (about 3 µs, a tenth of a signature worker's time per order besides
// recovery), so the native state is used directly: one per thread (each worker loads this module anew),
// reset for every hash; hashing is synchronous, so no two hashes share it at once. The binding is loaded
// the way the package loads it (node-gyp-build picks the prebuilt binary), never its JavaScript fallback:
// when it cannot load, start-up fails.

import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { nativeRecovery } from './nativeRecovery.js';

/** The native sponge (keccak's KeccakState). */
interface Sponge {
  initialize(rate: number, capacity: number): void;
  absorb(data: Buffer): void;
  absorbLastFewBits(bits: number): void;
  squeeze(length: number): Buffer;
}

const load = createRequire(import.meta.url);
const keccakDir = dirname(load.resolve('keccak/package.json'));
const KeccakState = createRequire(join(keccakDir, 'package.json'))('node-gyp-build')(keccakDir) as unknown;
if (typeof KeccakState !== 'function') throw new Error('the native keccak binding did not load');
const sponge = new (KeccakState as new () => Sponge)();

/** keccak-256: rate 1088 bits, capacity 512, the original Keccak padding (suffix 0x01, not SHA-3's 0x06). */
function hashBytes(bytes: Buffer): Buffer {
  sponge.initialize(1088, 512);
  sponge.absorb(bytes);
  sponge.absorbLastFewBits(0x01);
  return sponge.squeeze(32);
}

/** The service's own build's keccak (nativeRecovery.ts), one native call per hash, where it is built. */
const nativeKeccak = nativeRecovery?.keccak256;

export function keccak256(data: Uint8Array): Buffer {
  return nativeKeccak !== undefined ? nativeKeccak(data) : packageKeccak256(data);
}

/** keccak-256 through the `keccak` package's sponge, whatever is built: what the native one is held to. */
export function packageKeccak256(data: Uint8Array): Buffer {
  return hashBytes(Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
}

/**
 * Checksummed forms already computed, keyed by the lowercase address. Every authenticated request and every
 * order checksums an address or two, and a trader sends many: hashing each time cost ~10 µs (the binding
 * allocates a hasher per call) on the request thread. Bounded: emptied when it reaches its size.
 */
const CHECKSUM_CACHE_SIZE = 65_536;
const checksummed = new Map<string, string>();

/** The EIP-55 mixed-case form of a `0x` + 40 hex address given in any case (the caller checks the shape). */
export function checksumAddress(address: string): string {
  const lower = address.toLowerCase().slice(2);
  const known = checksummed.get(lower);
  if (known !== undefined) return known;
  const hash = keccak256(Buffer.from(lower, 'latin1'));
  let out = '0x';
  for (let i = 0; i < 40; i++) {
    const c = lower.charCodeAt(i);
    const nibble = ((hash[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += c >= 97 && nibble >= 8 ? String.fromCharCode(c - 32) : lower[i];
  }
  if (checksummed.size >= CHECKSUM_CACHE_SIZE) checksummed.clear();
  checksummed.set(lower, out);
  return out;
}
