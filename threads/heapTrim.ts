// Full collections of a thread's JS heap at light load, so that the process's resident memory follows its live
// data there and not the phase of V8's collection cycle. The service runs with an old generation that may
// double before V8 collects it in full (scripts/node-flags, --heap-growing-percent=100: a growing book is not
// marked at every tenth it grows). At light load that room is only garbage waiting: a heap of 36 MB live
// cycles up to ~72 MB committed and back, and the demo traders' thread, which promotes ~8 MB of garbage a
// minute, cycles the same way. Every `intervalMs` this looks at the old generation in use, and when it has grown
// by a quarter over its size after the last full collection (TRIM_GROWTH) while it grew by less than
// `maxGrowthBytes` since the previous look (light load), starts a full collection; V8 runs its marking
// alongside the thread (gc's async execution), as for a collection of its own. At load the heap grows faster
// than `maxGrowthBytes` between two looks and V8 keeps its room.
//
// The collection is Node's gc(), there only when the process runs with --expose-gc (scripts/node-flags); in a
// process without it startHeapTrim returns undefined and nothing runs.

import { getHeapSpaceStatistics } from 'node:v8';

/** A full collection of this thread's heap, resolved when it is done. */
export type FullCollection = () => Promise<void>;

/** Growth over the heap's low since the last full collection that starts one (1.25: a quarter). */
export const TRIM_GROWTH = 1.25;

/** Growth between two looks below which the thread counts as lightly loaded (main thread's default). */
export const LIGHT_LOAD_GROWTH_BYTES = 4 * 1024 * 1024;

export interface HeapTrimOptions {
  /** How often the heap is looked at, in ms (> 0). */
  readonly intervalMs: number;
  /** At most this growth of the heap in use between two looks for a collection to start (default LIGHT_LOAD_GROWTH_BYTES; Infinity: any). */
  readonly maxGrowthBytes?: number;
  /** The collection (default: Node's gc, when exposed). */
  readonly collect?: FullCollection;
  /** Bytes of the heap in use (default: oldGenerationUsedBytes). */
  readonly usedBytes?: () => number;
}

export interface HeapTrim {
  /** Full collections this has started and seen finish. */
  readonly collections: number;
  /** One look now (what the timer does): resolves true when it collected. */
  check(): Promise<boolean>;
  stop(): void;
}

/**
 * Bytes in use in this thread's old generation (every space but the young generation's): it falls only when a
 * full collection runs, so a fall between two looks is V8's own full collection, and the young generation's
 * garbage (up to a semi-space, 16 MiB here) does not count as growth.
 */
export function oldGenerationUsedBytes(): number {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) if (space.space_name !== 'new_space' && space.space_name !== 'new_large_object_space') used += space.space_used_size;
  return used;
}

let collectedOnThisThread = 0;

/** Full collections every trim started on this thread has seen finish (for /metrics). */
export function heapTrimCollections(): number {
  return collectedOnThisThread;
}

/** Node's gc() as a FullCollection when the process runs with --expose-gc; undefined otherwise. */
export function exposedFullCollection(): FullCollection | undefined {
  const gc = (globalThis as { gc?: (options: { type: 'major'; execution: 'async' }) => Promise<void> }).gc;
  if (typeof gc !== 'function') return undefined;
  return () => gc({ type: 'major', execution: 'async' });
}

/** Starts the looks on this thread (the timer does not keep it alive); undefined when there is no collection to run. */
export function startHeapTrim(options: HeapTrimOptions): HeapTrim | undefined {
  const collect = options.collect ?? exposedFullCollection();
  if (collect === undefined || !(options.intervalMs > 0)) return undefined;
  const usedBytes = options.usedBytes ?? oldGenerationUsedBytes;
  const maxGrowth = options.maxGrowthBytes ?? LIGHT_LOAD_GROWTH_BYTES;
  let low = usedBytes();
  let previous = low;
  let collections = 0;
  let collecting = false;
  const check = async (): Promise<boolean> => {
    if (collecting) return false;
    const used = usedBytes();
    const grew = used - previous;
    previous = used;
    if (grew < 0) {
      // V8 collected on its own since the last look: this is the new low.
      low = used;
      return false;
    }
    if (used < low * TRIM_GROWTH || grew >= maxGrowth) return false;
    collecting = true;
    try {
      await collect();
      collections++;
      collectedOnThisThread++;
    } finally {
      collecting = false;
      low = usedBytes();
      previous = low;
    }
    return true;
  };
  const timer = setInterval(() => void check(), options.intervalMs);
  timer.unref();
  return {
    get collections() {
      return collections;
    },
    check,
    stop: () => clearInterval(timer),
  };
}
