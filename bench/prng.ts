// A small seeded PRNG (mulberry32) and the id generators the benchmark uses. Everything the benchmark
// generates comes from here, so a seed reproduces the workload exactly.

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Next 32-bit unsigned integer (mulberry32). */
  nextU32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Log-uniform integer in [lo, hi]: small values are common, large ones rare. */
  logUniform(lo: number, hi: number): number {
    return Math.min(hi, Math.floor(Math.exp(Math.log(lo) + this.next() * (Math.log(hi + 1) - Math.log(lo)))));
  }

  /** Geometric-ish offset: 0 with probability 1-p, each further step with probability p, capped at `max`. */
  geometric(p: number, max: number): number {
    let k = 0;
    while (k < max && this.next() < p) k += 1;
    return k;
  }
}

const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102];

/**
 * `0x` followed by `nibbles` random hex digits, as a flat one-byte string (built in a Buffer, not by
 * concatenation, so it is laid out the way an id decoded from a request would be).
 */
export function hexId(rng: Rng, nibbles: number): string {
  const buf = Buffer.allocUnsafe(2 + nibbles);
  buf[0] = 48; // '0'
  buf[1] = 120; // 'x'
  let bits = 0;
  let left = 0;
  for (let i = 0; i < nibbles; i++) {
    if (left === 0) {
      bits = rng.nextU32();
      left = 8;
    }
    buf[2 + i] = HEX[bits & 15] as number;
    bits >>>= 4;
    left -= 1;
  }
  return buf.toString('latin1');
}

/** A 66-character order id or condition id (`0x` + 64 hex digits, like an EIP-712 hash). */
export function hash66(rng: Rng): string {
  return hexId(rng, 64);
}

/** A 42-character address (`0x` + 40 hex digits). */
export function address(rng: Rng): string {
  return hexId(rng, 40);
}

/** A 77-digit decimal token id, the shape of a CTF position id. */
export function tokenId(rng: Rng): string {
  const buf = Buffer.allocUnsafe(77);
  buf[0] = 49 + rng.int(9);
  for (let i = 1; i < 77; i++) buf[i] = 48 + rng.int(10);
  return buf.toString('latin1');
}
