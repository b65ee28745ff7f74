// The machine's speed, sampled while a long bench runs: a fixed piece of work (a SHA-256 of 1 MiB, native, and a
// JSON round trip of 2,000 small objects, JavaScript; ~5-10 ms on the benches' machines) timed by the CPU it
// takes, every few seconds, in the bench's own process. On a VM whose speed drifts by 10-40% within an hour, a
// service's CPU per minute moves with that drift as much as with anything it does; this probe's CPU moves with
// the machine and not with the service's work, so a figure beside it (relative to one reference minute) shows
// which of the two moved. Its size is its own: a few milliseconds of hashing and JSON slow by more than the
// service's mix when the machine slows (bench/soakSummary.ts).
//
// The probe's CPU is read with process.cpuUsage() (getrusage: the same accounting as /proc/<pid>/stat, which the
// benches read for the service), over the whole bench process; the bench's own threads are idle while it runs.

import { createHash } from 'node:crypto';
import { median } from './engineBenchShared.js';

const BYTES = Buffer.alloc(1 << 20, 0x5a);
const ROWS = Array.from({ length: 2000 }, (_, i) => ({ id: `order-${i}`, price: 0.01 * (i % 99), size: i * 1_000_000, side: i % 2 === 0 ? 'BUY' : 'SELL', open: i % 3 !== 0 }));

/** One probe: the CPU (ms, user + system) that the fixed work took. */
export function probeOnce(): number {
  const before = process.cpuUsage();
  let sink = createHash('sha256').update(BYTES).digest()[0] as number;
  const back = JSON.parse(JSON.stringify(ROWS)) as { size: number }[];
  sink += back.length;
  const spent = process.cpuUsage(before);
  if (sink < 0) throw new Error('unreachable');
  return (spent.user + spent.system) / 1000;
}

/**
 * Probes every `everyMs` until stopped; `take()` answers the median probe (ms) since the last `take()` (NaN when
 * none ran) and starts the next stretch.
 */
export function startSpeedProbe(everyMs = 5_000): { take(): number; stop(): void } {
  let samples: number[] = [];
  probeOnce(); // the first run compiles the JSON paths and warms the hash: not a sample
  const timer = setInterval(() => samples.push(probeOnce()), everyMs);
  timer.unref();
  return {
    take(): number {
      const stretch = samples;
      samples = [];
      return stretch.length === 0 ? Number.NaN : median(stretch);
    },
    stop(): void {
      clearInterval(timer);
    },
  };
}
