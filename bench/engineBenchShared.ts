// What the engine benchmark's parent process (engineBench.ts) and its side processes (engineBenchSide.ts)
// exchange: the configuration going down on the command line, one report coming back over the IPC channel.
// Plain JSON data only.

import type { LatencySummary } from './latency.js';
import type { WorkloadConfig, WorkloadStats } from './workload.js';

export type BenchSide = 'ours' | 'peer';

export interface SideConfig {
  readonly workload: WorkloadConfig;
  /** Operations of each warm-up loop (plain and timed), on throwaway engines or books. */
  readonly warmup: number;
  /** Largest fraction of orders a side may refuse before the run counts as failed. */
  readonly maxRejectedFraction: number;
  /** Also do the latency run (every operation timed) after the throughput run. */
  readonly latency: boolean;
}

/** One book's levels in outcome 0's terms, best first: [price in micro-units, size in base units]. */
export interface BookLevels {
  readonly bids: [number, number][];
  readonly asks: [number, number][];
}

/** What one side process measured, and how its last run's engine or books ended. */
export interface SideReport {
  readonly side: BenchSide;
  readonly genSeconds: number;
  readonly warmupSeconds: number;
  readonly stats: WorkloadStats;
  /** Orders placed in the timed part (limit + FAK + FOK). */
  readonly placed: number;
  /** The plain-loop run: commands per second of wall time and per CPU-second (user + system, all threads). */
  readonly opsPerSec: number;
  readonly cpuOpsPerSec: number;
  /** The latency run, when asked for. */
  readonly latency?: { readonly summary: LatencySummary; readonly opsPerSec: number };
  /** Most orders refused in a run. */
  readonly rejected: number;
  /** Resting orders and every market's levels (workload market order) at the end of the last run. */
  readonly resting: number;
  readonly books: BookLevels[];
  /** Heap used (bytes, after GC) holding the last run's engine/books and the runtime, workload dropped. */
  readonly heapEndBytes: number;
  /** Refused workload, replay mismatches, broken invariants, too many refused orders; empty when sound. */
  readonly failures: string[];
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}
