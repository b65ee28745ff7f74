// The minutes of a long open-loop window (`BENCH_RATE=400 BENCH_ORDERS=240000 npm run bench:orders`: ten
// minutes): for each whole minute of the schedule, its orders' latency (p50, p99), the server's CPU per order in
// all, on its main thread and on each of its busiest threads, and its resident memory at the minute's end and at
// its peak so far, and the hypervisor's steal over the minute (bench/machineSteal.ts). The CPU and memory are read from /proc/<pid> by this process (the load generator), so any
// build's server is measured the same way (bench:orders:compare runs an older build under this harness). Linux
// only; elsewhere no rows. A server that reports its own minute (`probe`: the longest GC pause, event-loop stall
// and journal append, the GC time) adds those; an older build's answers nothing and leaves them out.

import { readFileSync } from 'node:fs';
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';
import { rank } from '../latency.js';
import { threadCpuByTid, threadCpuMsBetween, ticksOf, type ThreadCpu } from '../processProbe.js';
import { cpuTimes, stealPercent, type CpuTimes } from '../machineSteal.js';

/** What the server measures of its own minute (bench/orders/ordersServer.ts, op 'minute'). */
export interface ServerMinute {
  readonly gcMs: number;
  readonly gcMaxMs: number;
  readonly majorGcMs: number;
  readonly stallMaxMs: number;
  readonly appendMaxMs: number;
  /** The service's request-time histogram over the minute: the bucket bound its p99 falls in, and the requests over 100 ms. */
  readonly serverP99UpToMs?: number;
  readonly serverOver100Ms?: number;
}

/** The load generator's own pauses over a minute: its latencies include them. */
interface ClientMinute {
  readonly gcMaxMs: number;
  readonly stallMaxMs: number;
}

interface ProcessSample {
  /** CPU of every thread of the process, and of its main thread, in clock ticks (10 ms). */
  readonly ticks: number;
  readonly mainTicks: number;
  readonly rssMb: number;
  /** The peak RSS so far (VmHWM). */
  readonly peakMb: number;
  /** CPU ms so far by thread id, with each thread's name (processProbe.threadCpuByTid). */
  readonly threads: ReadonlyMap<number, ThreadCpu>;
  /** The machine's CPU times (machineSteal.ts), for the hypervisor's steal over the minute. */
  readonly machine: CpuTimes | undefined;
  /** The server's own figures for the minute that ended at this sample. */
  server?: ServerMinute;
  client?: ClientMinute;
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
  /** CPU µs per order of the minute by thread name. */
  readonly threadsUsPerOrder: Record<string, number>;
  /** The hypervisor's steal over the minute, % of the time the VM's CPUs wanted (machineSteal.ts); off Linux, absent. */
  readonly stealPct?: number;
  readonly server?: ServerMinute;
  readonly client?: ClientMinute;
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
      threads: threadCpuByTid(pid),
      machine: cpuTimes(),
    };
  } catch {
    return undefined;
  }
}

export interface MinuteSampler {
  /** Stops sampling; the rows of the whole minutes, from the window's latencies (order i's at latencies[i]). */
  stop(latencies: Float64Array, firstOrderOfRequest: readonly number[], rate: number): MinuteRow[];
}

/** Samples the server process `pid` now and at every minute after, until stop(); `probe` asks the server for its own minute. */
export function startMinuteSampler(pid: number, probe?: () => Promise<ServerMinute | undefined>): MinuteSampler {
  const samples: ProcessSample[] = [];
  const first = sample(pid);
  if (first !== undefined) samples.push(first);
  // Starts the server's first minute with the window.
  void probe?.();
  // This process's own GC pauses and event-loop stalls, per minute.
  const delay = monitorEventLoopDelay({ resolution: 2 });
  delay.enable();
  let gcMaxMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMaxMs = Math.max(gcMaxMs, entry.duration);
  });
  gc.observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    const s = sample(pid);
    if (s === undefined) return;
    s.client = { gcMaxMs, stallMaxMs: Math.max(0, delay.max / 1e6 - 2) };
    gcMaxMs = 0;
    delay.reset();
    samples.push(s);
    void probe?.().then((server) => {
      if (server !== undefined) s.server = server;
    });
  }, 60_000);
  return {
    stop(latencies, firstOrderOfRequest, rate) {
      clearInterval(timer);
      delay.disable();
      gc.disconnect();
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
        const steal = stealPercent(a.machine, b.machine);
        rows.push({
          minute: m + 1,
          orders,
          p50Ms: Number(rank(sorted, 0.5).toFixed(2)),
          p99Ms: Number(rank(sorted, 0.99).toFixed(2)),
          cpuUsPerOrder: Math.round(((b.ticks - a.ticks) * TICK_US) / orders),
          mainUsPerOrder: Math.round(((b.mainTicks - a.mainTicks) * TICK_US) / orders),
          rssMb: b.rssMb,
          peakRssMb: b.peakMb,
          threadsUsPerOrder: Object.fromEntries(Object.entries(threadCpuMsBetween(a.threads, b.threads)).map(([name, ms]) => [name, Math.round((ms * 1000) / orders)])),
          ...(steal === undefined ? {} : { stealPct: steal }),
          ...(b.server === undefined ? {} : { server: b.server }),
          ...(b.client === undefined ? {} : { client: b.client }),
        });
      }
      return rows;
    },
  };
}

/** The rows as Markdown tables: the minutes, then their busiest threads and the server's own figures. */
export function minuteTable(rows: readonly MinuteRow[]): string[] {
  const total = new Map<string, number>();
  for (const r of rows) for (const [name, us] of Object.entries(r.threadsUsPerOrder)) total.set(name, (total.get(name) ?? 0) + us);
  const busiest = [...total].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([name]) => name);
  const server = rows.some((r) => r.server !== undefined);
  const ms = (x: number | undefined): string => (x === undefined ? '' : x.toFixed(1));
  const histogram = rows.some((r) => r.server?.serverP99UpToMs !== undefined);
  return [
    '| minute | orders | p50 ms | p99 ms | server CPU us/order | main thread us/order | RSS MB | peak RSS MB | steal % |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.minute} | ${r.orders} | ${r.p50Ms} | ${r.p99Ms} | ${r.cpuUsPerOrder} | ${r.mainUsPerOrder} | ${r.rssMb} | ${r.peakRssMb} | ${r.stealPct ?? ''} |`),
    '',
    `| minute | ${busiest.map((name) => `${name} us/order`).join(' | ')}${server ? ' | GC ms (major) | longest GC pause ms | longest loop stall ms | longest append ms' : ''} |`,
    `|---|${busiest.map(() => '---|').join('')}${server ? '---|---|---|---|' : ''}`,
    ...rows.map(
      (r) =>
        `| ${r.minute} | ${busiest.map((name) => r.threadsUsPerOrder[name] ?? 0).join(' | ')}${server ? ` | ${ms(r.server?.gcMs)} (${ms(r.server?.majorGcMs)}) | ${ms(r.server?.gcMaxMs)} | ${ms(r.server?.stallMaxMs)} | ${ms(r.server?.appendMaxMs)}` : ''} |`,
    ),
    '',
    `| minute | p99 ms (send -> reply) | load generator: longest GC pause ms | longest loop stall ms${histogram ? ' | service: p99 of its request times, up to ms | its requests over 100 ms' : ''} |`,
    `|---|---|---|---|${histogram ? '---|---|' : ''}`,
    ...rows.map((r) => `| ${r.minute} | ${r.p99Ms} | ${ms(r.client?.gcMaxMs)} | ${ms(r.client?.stallMaxMs)}${histogram ? ` | ${r.server?.serverP99UpToMs ?? ''} | ${r.server?.serverOver100Ms ?? ''}` : ''} |`),
  ];
}
