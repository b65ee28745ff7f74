// What a benchmark's server child reports about itself: CPU time per thread (Linux /proc, clock ticks of
// 10 ms) and the inspector's CPU profile of its main thread. Used by the servers of bench:http and
// bench:orders over their IPC channels.

import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector';
import { isServiceThread } from '../server/processPriority.js';

/** User + system CPU of a /proc/<pid>[/task/<tid>]/stat line, in clock ticks (10 ms). */
export function ticksOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU µs of the main thread; undefined where /proc is missing. */
export function mainThreadCpuUs(): number | undefined {
  try {
    return ticksOf(readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8')) * 10_000;
  } catch {
    return undefined;
  }
}

/** CPU ms by thread name ('main (JS)' for the main thread; numbered pool threads summed); {} without /proc. */
export function threadCpuMs(): Record<string, number> {
  return threadCpuMsOf(process.pid);
}

/** threadCpuMs of another process (`pid`), read from /proc/<pid>/task; {} where that cannot be read. */
export function threadCpuMsOf(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { name, ms } of threadCpuByTid(pid).values()) out[name] = (out[name] ?? 0) + ms;
  return out;
}

/** How often a thread went off its CPU so far: to sleep (a wait, a blocking call) or preempted by another thread. */
export interface ThreadSwitches {
  readonly sleeps: number;
  readonly preemptions: number;
}

const SLEEPS = /^voluntary_ctxt_switches:\s+(\d+)$/m;
const PREEMPTIONS = /^nonvoluntary_ctxt_switches:\s+(\d+)$/m;

/**
 * The context switches of this process's threads so far by name, as threadCpuMs groups them (voluntary and
 * nonvoluntary_ctxt_switches of /proc/self/task/<tid>/status); {} without /proc. Each costs the thread a switch
 * back onto the CPU, where it finds its caches as the threads that ran meanwhile left them.
 */
export function threadSwitches(): Record<string, ThreadSwitches> {
  const out: Record<string, ThreadSwitches> = {};
  for (const { name, text } of taskFiles(process.pid, 'status', (status) => /^Name:\s+(.*)$/m.exec(status)?.[1] ?? '')) {
    const was = out[name] ?? { sleeps: 0, preemptions: 0 };
    out[name] = { sleeps: was.sleeps + Number(SLEEPS.exec(text)?.[1] ?? 0), preemptions: was.preemptions + Number(PREEMPTIONS.exec(text)?.[1] ?? 0) };
  }
  return out;
}

/**
 * One file of each thread of process `pid` (/proc/<pid>/task/<tid>/<file>), with the thread's name as the probes
 * group it: 'main (JS)' for the main thread, otherwise its name (`comm`, read from the file) without a trailing
 * number, so that numbered pool threads add up. Threads that end between the listing and the read are left out;
 * nothing without /proc.
 */
function taskFiles(pid: number, file: 'stat' | 'status', commOf: (text: string) => string): { tid: number; name: string; text: string }[] {
  const out: { tid: number; name: string; text: string }[] = [];
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out; // not Linux, or the process is gone: no per-thread figures
  }
  for (const tid of tids) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/${file}`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    out.push({ tid: Number(tid), name: tid === String(pid) ? 'main (JS)' : commOf(text).replace(/[0-9]+$/, ''), text });
  }
  return out;
}

/** One thread's name (as threadCpuMs groups it) and CPU ms so far. */
export interface ThreadCpu {
  readonly name: string;
  readonly ms: number;
}

/** The CPU ms of each thread of process `pid` by thread id, with its name now; empty where /proc cannot be read. */
export function threadCpuByTid(pid: number): Map<number, ThreadCpu> {
  const out = new Map<number, ThreadCpu>();
  for (const { tid, name, text } of taskFiles(pid, 'stat', (stat) => stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')))) out.set(tid, { name, ms: ticksOf(text) * 10 });
  return out;
}

/**
 * CPU ms by thread name between two threadCpuByTid readings: each thread's own difference, under its name at the
 * second reading (a pool thread that renamed itself for another job takes its whole difference to the new
 * name, instead of leaving a negative one under the old). A thread that ended between them is not counted
 * (its last CPU is unknown); one that started between them counts whole; a thread id given again to a new thread
 * counts the new thread's CPU.
 */
export function threadCpuMsBetween(a: ReadonlyMap<number, ThreadCpu>, b: ReadonlyMap<number, ThreadCpu>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [tid, now] of b) {
    const before = a.get(tid)?.ms ?? 0;
    out[now.name] = (out[now.name] ?? 0) + (now.ms >= before ? now.ms - before : now.ms);
  }
  return out;
}

/**
 * CPU µs per order of the embedded ClickHouse between two threadCpuMs readings: every thread that is not the
 * service's own (chDB's pipeline, insert, merge and schedule pools) and libuv's pool, on which chDB runs each
 * query (nameThreadPool must have named it). Summed over names with the differences' signs kept: chDB's pool
 * threads rename themselves for each job, so a thread's CPU may leave one name and reach another within the
 * window. Undefined without per-thread figures.
 */
export function clickhouseShareUs(before: Record<string, number>, after: Record<string, number>, orders: number): number | undefined {
  if (Object.keys(after).length === 0 || orders <= 0) return undefined;
  let ms = 0;
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (name === 'main (JS)' || (isServiceThread(name) && name !== 'libuv-worker')) continue;
    ms += (after[name] ?? 0) - (before[name] ?? 0);
  }
  return Math.round((ms * 1000) / orders);
}

/**
 * Names the threads of libuv's pool `name` (the default 'libuv-worker', the name libuv gives them itself from
 * 1.45 on, and one the service counts as its own: server/processPriority.ts leaves them at its priority), so
 * that threadCpuMs tells them from V8's platform threads, which also carry the process's name ('node'):
 * chDB runs its queries on libuv's pool (the projector's inserts among them), V8 its GC and compiler tasks
 * on its platform threads. Each job writes /proc/thread-self/comm from the pool thread that runs it, and
 * enough are queued at once for every thread of the pool to take one, in rounds until all of it
 * (UV_THREADPOOL_SIZE, 4 by default) carries the name. Returns how many threads carry it afterwards (0
 * without /proc).
 */
export async function nameThreadPool(name = 'libuv-worker'): Promise<number> {
  const size = Math.max(1, Number(process.env.UV_THREADPOOL_SIZE ?? 4));
  let named = 0;
  // A round may leave a thread without a job (the others took them all): up to ten rounds.
  for (let round = 0; round < 10 && named < size; round++) {
    try {
      await Promise.all(Array.from({ length: 16 * size }, () => writeFile('/proc/thread-self/comm', name)));
    } catch {
      return 0; // not Linux: the threads keep their names
    }
    named = 0;
    for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
      try {
        if (readFileSync(`/proc/${process.pid}/task/${tid}/comm`, 'utf8').trim() === name) named++;
      } catch {
        // the thread ended between the listing and the read
      }
    }
  }
  return named;
}

/** One inspector session for both profilers (they may run at once), opened on first use. */
let session: Session | undefined;

function post<T>(method: string, params: object = {}): Promise<T> {
  if (session === undefined) {
    session = new Session();
    session.connect();
  }
  const open = session;
  return new Promise((resolve, reject) => {
    open.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T)));
  });
}

/** Writes a stopped profiler's profile to `file`, when given. */
function keep(profile: object, file: string | undefined): { file?: string } {
  if (file !== undefined) writeFileSync(file, JSON.stringify(profile));
  return { file };
}

/** Starts the main thread's CPU profiler, sampling every millisecond (finer sampling slows the server). */
export async function startCpuProfile(): Promise<void> {
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 1000 });
  await post('Profiler.start');
}

/** Stops the profiler and writes the profile to `file`, when given. */
export async function stopCpuProfile(file: string | undefined): Promise<{ file?: string }> {
  return keep((await post<{ profile: object }>('Profiler.stop')).profile, file);
}

/**
 * Starts the inspector's sampling heap profiler on the main thread, counting every allocation sampled
 * (about one per `intervalBytes`), those the garbage collector has since freed included: where the
 * allocation volume comes from, which is what young-generation collections cost.
 */
export async function startAllocationProfile(intervalBytes = 16_384): Promise<void> {
  await post('HeapProfiler.enable');
  await post('HeapProfiler.startSampling', { samplingInterval: intervalBytes, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}

/** Stops the sampling heap profiler and writes its profile (a .heapprofile) to `file`, when given. */
export async function stopAllocationProfile(file: string | undefined): Promise<{ file?: string }> {
  return keep((await post<{ profile: object }>('HeapProfiler.stopSampling')).profile, file);
}
