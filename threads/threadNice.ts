// Lowers the calling thread's CPU priority below the rest of the process: for a thread whose work can wait
// (the snapshot thread's exports of hundreds of thousands of orders, seconds of CPU each), so that on a machine
// whose cores the order path keeps busy it takes what the engine, HTTP and journal threads leave instead of
// taking turns with them. Linux keeps a nice value per thread (server/processPriority.ts); the thread's own id
// is read from /proc/thread-self. Raising the value needs no privilege. Elsewhere, or where /proc cannot be
// read, nothing happens.

import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Raises the calling thread's nice value by `by` (at most to 19); returns the value set, or undefined. */
export function niceThisThread(by: number): number | undefined {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return undefined;
    const nice = Math.min(19, getPriority(tid) + by);
    setPriority(tid, nice);
    return nice;
  } catch {
    return undefined;
  }
}
