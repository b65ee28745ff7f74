// The hypervisor's steal: the share of the VM's CPU time during which a virtual CPU wanted to run and the host ran
// something else (its other guests), from the first line of /proc/stat. A guest kernel with paravirtual time
// accounting (CONFIG_PARAVIRT_TIME_ACCOUNTING) leaves stolen time out of its threads' CPU times, so the benches'
// CPU per order does not count it; but the host's load shows in that CPU too (shared caches, a busy sibling
// hyper-thread), and on this kind of VM the same work costs up to twice as much in hours of high steal. The
// benches print it beside their figures so that runs compare by the machine's state, not only by the hour.
// Linux only: elsewhere, or where /proc/stat cannot be read, undefined.

import { readFileSync } from 'node:fs';

/** The machine's CPU times in clock ticks, summed over its CPUs: run (user, nice, system, irq, softirq) and stolen. */
export interface CpuTimes {
  readonly busy: number;
  readonly steal: number;
}

/** The machine's CPU times now; undefined where /proc/stat is not there. */
export function cpuTimes(): CpuTimes | undefined {
  try {
    return parseCpuLine(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The first ("cpu") line of /proc/stat: user nice system idle iowait irq softirq steal guest guest_nice (guest time
 * is counted in user and nice too). Undefined if the line is not there.
 */
export function parseCpuLine(stat: string): CpuTimes | undefined {
  const line = /^cpu\s+(.*)$/m.exec(stat)?.[1];
  if (line === undefined) return undefined;
  const f = line.trim().split(/\s+/).slice(0, 8).map(Number);
  if (f.length < 8 || f.some((x) => !Number.isFinite(x))) return undefined;
  const [user, nice, system, , , irq, softirq, steal] = f as [number, number, number, number, number, number, number, number];
  return { busy: user + nice + system + irq + softirq, steal };
}

/**
 * Between two readings, the share of the time the VM's CPUs wanted to run that the host gave to something else:
 * steal / (run + steal), in percent with one decimal. Idle time is left out, so a lightly loaded run and a
 * saturated one read alike under the same host. Undefined without both readings or with no time wanted.
 */
export function stealPercent(from: CpuTimes | undefined, to: CpuTimes | undefined): number | undefined {
  if (from === undefined || to === undefined) return undefined;
  const wanted = to.busy - from.busy + (to.steal - from.steal);
  if (wanted <= 0) return undefined;
  return Math.round(((to.steal - from.steal) / wanted) * 1000) / 10;
}
