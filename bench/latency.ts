// Latency samples: one Float64Array of nanoseconds per run (preallocated), sorted once for percentiles.

export interface LatencySummary {
  readonly count: number;
  readonly meanNs: number;
  readonly p50Ns: number;
  readonly p90Ns: number;
  readonly p99Ns: number;
  readonly p999Ns: number;
  readonly maxNs: number;
}

/** Nearest-rank percentile of an ascending array, q in (0, 1]; 0 for no samples. */
export function rank(sorted: Float64Array, q: number): number {
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[i] ?? 0;
}

/** Sorts `samples` in place and summarises them. */
export function summarise(samples: Float64Array): LatencySummary {
  samples.sort();
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i] as number;
  return {
    count: samples.length,
    meanNs: samples.length === 0 ? 0 : sum / samples.length,
    p50Ns: rank(samples, 0.5),
    p90Ns: rank(samples, 0.9),
    p99Ns: rank(samples, 0.99),
    p999Ns: rank(samples, 0.999),
    maxNs: samples.length === 0 ? 0 : (samples[samples.length - 1] as number),
  };
}

/** Cost of the two `process.hrtime.bigint()` calls around an empty body, median of many, in ns. */
export function timerOverheadNs(samples = 200_000): number {
  const out = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    const t0 = process.hrtime.bigint();
    const t1 = process.hrtime.bigint();
    out[i] = Number(t1 - t0);
  }
  return summarise(out).p50Ns;
}

export function us(ns: number, digits = 2): number {
  return Number((ns / 1000).toFixed(digits));
}
