// keccak-256 through the native binding of the `keccak` package (prebuilt binaries, from the authors of the
// `secp256k1` package used for recovery). Checking an order takes four keccak-256 hashes (the struct, the
// typed-data digest, the recovered public key, and the checksum of an address); ethers' JavaScript keccak
// cost about 8 times as much and was most of the time of checking an order. The binding is loaded directly
// (not the package's index, which falls back silently to JavaScript): when it cannot load, start-up fails.

import { createRequire } from 'node:module';

interface Hasher {
  update(data: Uint8Array | string, encoding?: BufferEncoding): Hasher;
  digest(): Buffer;
}

const load = createRequire(import.meta.url);
const createHash = load('keccak/bindings') as (algorithm: 'keccak256') => Hasher;

export function keccak256(data: Uint8Array): Buffer {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return createHash('keccak256').update(bytes).digest();
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
  const hash = createHash('keccak256').update(lower, 'latin1').digest();
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
