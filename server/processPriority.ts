// The process's CPU priority (--nice). Linux keeps a nice value per thread, and a new thread starts with its
// creator's; so every thread that runs now is set (the runtime's own, the main thread), and every thread made
// later inherits the value from a thread set here. Raising the value needs no privilege; lowering it again does,
// so a process never gives its priority back. Elsewhere setpriority(0) applies to the whole process.

import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The ids of this process's threads (Linux /proc; throws elsewhere). */
export function threadIds(): number[] {
  return readdirSync('/proc/self/task').map(Number).filter((tid) => Number.isInteger(tid) && tid > 0);
}

/** Sets the nice value of every thread of this process; returns how many threads were set. */
export function setProcessNice(nice: number): number {
  let tids: number[];
  try {
    tids = threadIds();
  } catch {
    setPriority(0, nice);
    return 1;
  }
  let set = 0;
  for (const tid of tids) {
    try {
      setPriority(tid, nice);
      set++;
    } catch (error) {
      // A thread that ended since the listing is not an error; anything else is.
      if ((error as { code?: string }).code !== 'ESRCH') throw error;
    }
  }
  return set;
}

/** The service's own threads: Node names all of its threads "node" (main, libuv's pool, V8's), and the service names its workers pmx-*. */
export function isServiceThread(comm: string): boolean {
  return comm === 'node' || comm.startsWith('pmx-') || comm === 'libuv-worker';
}

function niceOf(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

/**
 * Keeps the threads a native library starts in this process (the embedded ClickHouse's query, insert and merge
 * pools) at a higher nice value than the service's own, so that under load they take the CPU the engine, HTTP
 * and WebSocket threads leave instead of taking turns with them. Each apply() sets the threads it has not seen
 * before; a library's pools grow as it works, so the service calls it now and then. A thread whose value is not
 * the main thread's was set by its library on purpose and is left as it is. Linux only: elsewhere apply() sets
 * nothing.
 */
export class ForeignThreadNice {
  private readonly seen = new Set<number>();

  constructor(private readonly nice: number) {}

  /** Sets the value on the foreign threads seen since the last call; returns how many were set. */
  apply(): number {
    let tids: number[];
    let base: number;
    try {
      tids = threadIds();
      base = niceOf(readFileSync(`/proc/self/task/${process.pid}/stat`, 'latin1'));
    } catch {
      return 0;
    }
    const now = new Set(tids);
    for (const tid of this.seen) if (!now.has(tid)) this.seen.delete(tid); // a number the kernel may give again
    let set = 0;
    for (const tid of tids) {
      if (this.seen.has(tid)) continue;
      try {
        // Looked at again on every call: a library's new thread carries its creator's name until it names itself.
        if (isServiceThread(readFileSync(`/proc/self/task/${tid}/comm`, 'latin1').trim())) continue;
        this.seen.add(tid);
        if (niceOf(readFileSync(`/proc/self/task/${tid}/stat`, 'latin1')) !== base) continue;
        setPriority(tid, Math.max(base, this.nice));
        set++;
      } catch (error) {
        // A thread that ended since the listing is not an error; anything else is.
        const code = (error as { code?: string }).code;
        if (code !== 'ESRCH' && code !== 'ENOENT') throw error;
      }
    }
    return set;
  }
}

/**
 * ForeignThreadNice applied now and every `everyMs` until stop() (the timer keeps no process alive). A failure
 * is told to onError and ends it (the threads keep whatever value they have): a priority is worth no crash.
 */
export function keepForeignThreadsNiced(nice: number, onError: (error: unknown) => void, everyMs = 1000): { stop(): void } {
  const nicer = new ForeignThreadNice(nice);
  const apply = (): void => {
    try {
      nicer.apply();
    } catch (error) {
      clearInterval(timer);
      onError(error);
    }
  };
  const timer = setInterval(apply, everyMs);
  timer.unref();
  apply();
  return { stop: () => clearInterval(timer) };
}
