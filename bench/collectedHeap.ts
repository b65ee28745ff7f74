// What the memory benchmarks share: the JS heap in use after forced full collections (the process must run
// with --expose-gc), and the hex ids they make their histories with.

const gc = (globalThis as { gc?: () => void }).gc;

/** Heap bytes in use after two full collections (the second finishes what the first's finalisers freed). */
export function collectedHeap(): number {
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** `0x` + `prefix` + `n` in hex, zero-padded to `width` digits in all (40: an address, 64: an id). */
export function hexId(prefix: string, n: number, width: number): string {
  return `0x${prefix}${n.toString(16).padStart(width - prefix.length, '0')}`;
}
