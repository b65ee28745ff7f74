// The kind of host CPU a bench ran on, for its machine line. This VM's CPU reports its model name as the bare
// "Intel(R) Xeon(R) Processor" on hosts of different generations, which run the same build at very different
// speeds (the same libsecp256k1 recovery loop at ~24,000 and ~34,500 a second on one core); its family, model and
// stepping numbers and its last-level cache size, from /proc/cpuinfo, tell those hosts apart. Linux only: elsewhere,
// or where /proc/cpuinfo cannot be read, the model name alone.

import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** The first processor's identifying fields of /proc/cpuinfo; absent fields are undefined. */
export interface CpuKind {
  readonly modelName: string | undefined;
  readonly family: number | undefined;
  readonly model: number | undefined;
  readonly stepping: number | undefined;
  /** The cache size the kernel reports (the last level's), in KB. */
  readonly cacheKb: number | undefined;
}

/** The first processor's block of /proc/cpuinfo text, read into its identifying fields. */
export function parseCpuInfo(text: string): CpuKind {
  const first = text.split(/\n\s*\n/)[0] ?? '';
  const field = (name: string): string | undefined => {
    const m = new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm').exec(first);
    return m?.[1]?.trim();
  };
  const int = (name: string): number | undefined => {
    const v = field(name);
    if (v === undefined || !/^\d+/.test(v)) return undefined;
    return Number.parseInt(v, 10);
  };
  return { modelName: field('model name'), family: int('cpu family'), model: int('model'), stepping: int('stepping'), cacheKb: int('cache size') };
}

/** One phrase for a machine line: "Intel(R) Xeon(R) Processor (family 6 model 167 stepping 1, 480 MB cache)". */
export function describeCpu(kind: CpuKind, fallback: string): string {
  const name = kind.modelName ?? fallback;
  const ids = kind.family !== undefined && kind.model !== undefined ? `family ${kind.family} model ${kind.model}${kind.stepping === undefined ? '' : ` stepping ${kind.stepping}`}` : undefined;
  const cache = kind.cacheKb === undefined ? undefined : kind.cacheKb >= 1024 ? `${Math.round(kind.cacheKb / 1024)} MB cache` : `${kind.cacheKb} KB cache`;
  const extra = [ids, cache].filter((s): s is string => s !== undefined).join(', ');
  return extra === '' ? name : `${name} (${extra})`;
}

/** This machine's CPU, described for a bench's machine line. */
export function cpuDescription(): string {
  const fallback = cpus()[0]?.model ?? 'unknown CPU';
  try {
    return describeCpu(parseCpuInfo(readFileSync('/proc/cpuinfo', 'utf8')), fallback);
  } catch {
    return fallback;
  }
}

/** A bench's whole machine phrase: the CPU, its core count and Node's version. */
export function machineDescription(): string {
  return `${cpuDescription()}, ${cpus().length} cores, Node ${process.version}`;
}
