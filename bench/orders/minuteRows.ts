// The minutes of a long open-loop window (`BENCH_RATE=400 BENCH_ORDERS=240000 npm run bench:orders`: ten
// minutes): for each whole minute of the schedule, its orders' latency (p50, p99), the server's CPU per order in
// all and on its main thread, and its resident memory at the minute's end and at its peak so far. The CPU and
// memory are read from /proc/<pid> by this process (the load generator), so any build's server is measured the
// same way (bench:orders:compare runs an older build under this harness). Linux only; elsewhere no rows.

import { readFileSync } from 'node:fs';
import { rank } from '../latency.js';
import { ticksOf } from '../processProbe.js';

interface ProcessSample {
  /** CPU of every thread of the process, and of its main thread, in clock ticks (10 ms). */
  readonly ticks: number;
  readonly mainTicks: number;
  readonly rssMb: number;
  /** The peak RSS so far (VmHWM). */
  readonly peakMb: number;
}

export interface MinuteRow {
  readonly minute: number;
  readonly orders: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly cpuUsPerOrder: number;
  readonly mainUsPerOrder: number;
  readonly rssMb: number;
  readonly peakRssMb: number;
}

const TICK_US = 10_000;

function sample(pid: number): ProcessSample | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const mb = (name: string): number => Math.round(Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0) / 1024);
    return {
      ticks: ticksOf(readFileSync(`/proc/${pid}/stat`, 'utf8')),
      mainTicks: ticksOf(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')),
      rssMb: mb('VmRSS'),
      peakMb: mb('VmHWM'),
    };
  } catch {
    return undefined;
  }
}

export interface MinuteSampler {
  /** Stops sampling; the rows of the whole minutes, from the window's latencies (order i's at latencies[i]). */
  stop(latencies: Float64Array, firstOrderOfRequest: readonly number[], rate: number): MinuteRow[];
}

/** Samples the server process `pid` now and at every minute after, until stop(). */
export function startMinuteSampler(pid: number): MinuteSampler {
  const samples: ProcessSample[] = [];
  const first = sample(pid);
  if (first !== undefined) samples.push(first);
  const timer = setInterval(() => {
    const s = sample(pid);
    if (s !== undefined) samples.push(s);
  }, 60_000);
  return {
    stop(latencies, firstOrderOfRequest, rate) {
      clearInterval(timer);
      const rows: MinuteRow[] = [];
      const perMinute = Math.round(rate * 60);
      for (let m = 0; m + 1 < samples.length; m++) {
        const fromRequest = m * perMinute;
        const toRequest = (m + 1) * perMinute;
        if (toRequest > firstOrderOfRequest.length) break;
        const from = firstOrderOfRequest[fromRequest] as number;
        const to = toRequest < firstOrderOfRequest.length ? (firstOrderOfRequest[toRequest] as number) : latencies.length;
        const sorted = Float64Array.from(latencies.subarray(from, to)).sort();
        const a = samples[m] as ProcessSample;
        const b = samples[m + 1] as ProcessSample;
        const orders = to - from;
        rows.push({
          minute: m + 1,
          orders,
          p50Ms: Number(rank(sorted, 0.5).toFixed(2)),
          p99Ms: Number(rank(sorted, 0.99).toFixed(2)),
          cpuUsPerOrder: Math.round(((b.ticks - a.ticks) * TICK_US) / orders),
          mainUsPerOrder: Math.round(((b.mainTicks - a.mainTicks) * TICK_US) / orders),
          rssMb: b.rssMb,
          peakRssMb: b.peakMb,
        });
      }
      return rows;
    },
  };
}

/** The rows as a Markdown table. */
export function minuteTable(rows: readonly MinuteRow[]): string[] {
  return [
    '| minute | orders | p50 ms | p99 ms | server CPU us/order | main thread us/order | RSS MB | peak RSS MB |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.minute} | ${r.orders} | ${r.p50Ms} | ${r.p99Ms} | ${r.cpuUsPerOrder} | ${r.mainUsPerOrder} | ${r.rssMb} | ${r.peakRssMb} |`),
  ];
}
