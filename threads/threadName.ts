// Names the calling thread for the operating system (top -H, /proc/<pid>/task/*/comm), so that an operator or
// a benchmark can tell the service's threads apart: Node names every thread "node". Linux only; elsewhere,
// or where /proc is read-only, nothing happens. Names longer than 15 bytes are cut by the kernel.

import { writeFileSync } from 'node:fs';

export function nameThisThread(name: string): void {
  try {
    writeFileSync('/proc/thread-self/comm', name.slice(0, 15));
  } catch {
    // not Linux, or not allowed: the thread keeps its name
  }
}
