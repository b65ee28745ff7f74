// The process's CPU priority (--nice). Linux keeps a nice value per thread, and a new thread starts with its
// creator's; so every thread that runs now is set (the runtime's own, the main thread), and every thread made
// later inherits the value from a thread set here. Raising the value needs no privilege; lowering it again does,
// so a process never gives its priority back. Elsewhere setpriority(0) applies to the whole process.

import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Sets the nice value of every thread of this process; returns how many threads were set. */
export function setProcessNice(nice: number): number {
  let tids: number[];
  try {
    tids = readdirSync('/proc/self/task').map(Number).filter((tid) => Number.isInteger(tid) && tid > 0);
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
