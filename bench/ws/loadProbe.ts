// What a bench:ws process measures about itself over one run, so a latency figure comes with the load it
// was measured under: CPU ms per thread of this process (bench/processProbe.ts), its main event loop's delay,
// and how busy the whole machine was (every process, ours and anyone else's). Linux /proc; elsewhere the CPU
// figures are empty or NaN.

import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { threadCpuMs } from '../processProbe.js';

export interface LoadFigures {
  /** CPU ms per thread of this process during the run ('main (JS)', 'libuv-worker', …; only threads that ran). */
  readonly threadsMs: Record<string, number>;
  /** CPU ms of the whole process in user and in kernel mode (the kernel's share is its sockets' work). */
  readonly userMs: number;
  readonly systemMs: number;
  /** Event-loop delay of the main thread (ms; a timer's lateness, sampled every 1 ms). */
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
  /** Share of all the machine's CPU time that was busy (0..1), whoever used it. */
  readonly machineBusy: number;
}

/** [busy, total] jiffies of all CPUs; undefined without /proc/stat. */
function machineJiffies(): [number, number] | undefined {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] as string;
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    return [total - idle, total];
  } catch {
    return undefined;
  }
}

export interface LoadProbe {
  stop(): LoadFigures;
}

/**
 * `loopDelay` false: no event-loop delay figures (NaN), and none of the timer wake-ups that measuring them costs
 * (a thousand a second): for a process that only waits while another does the work.
 */
export function startLoadProbe(loopDelay = true): LoadProbe {
  const cpu0 = threadCpuMs();
  const usage0 = process.cpuUsage();
  const machine0 = machineJiffies();
  const delay = monitorEventLoopDelay({ resolution: 1 });
  if (loopDelay) delay.enable();
  return {
    stop() {
      if (loopDelay) delay.disable();
      const cpu1 = threadCpuMs();
      const usage = process.cpuUsage(usage0);
      const threadsMs: Record<string, number> = {};
      for (const [name, ms] of Object.entries(cpu1)) {
        const d = ms - (cpu0[name] ?? 0);
        if (d > 0) threadsMs[name] = d;
      }
      const machine1 = machineJiffies();
      const machineBusy = machine0 === undefined || machine1 === undefined ? NaN : (machine1[0] - machine0[0]) / Math.max(1, machine1[1] - machine0[1]);
      return { threadsMs, userMs: usage.user / 1000, systemMs: usage.system / 1000, loopDelayP99Ms: loopDelay ? delay.percentile(99) / 1e6 : NaN, loopDelayMaxMs: loopDelay ? delay.max / 1e6 : NaN, machineBusy };
    },
  };
}

/** One line: each thread's CPU as a share of one core over `seconds`, user and kernel, and the loop delay. */
export function describeLoad(load: LoadFigures, seconds: number): string {
  const threads = Object.entries(load.threadsMs)
    .filter(([, ms]) => ms / seconds >= 10)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${Math.round(ms / seconds / 10)}%`)
    .join(', ');
  const share = (ms: number): string => `${Math.round(ms / seconds / 10)}%`;
  const delay = Number.isNaN(load.loopDelayP99Ms) ? '' : `; loop delay p99 ${load.loopDelayP99Ms.toFixed(1)} ms, max ${load.loopDelayMaxMs.toFixed(1)} ms`;
  return `${threads || 'idle'} (user ${share(load.userMs)}, kernel ${share(load.systemMs)})${delay}`;
}
