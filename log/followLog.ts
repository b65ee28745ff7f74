// follow() of a log that is read from its files (the journal, and a journal's read-only tail): read what is
// there, then wait for more, until the signal aborts.

import type { LogRecord } from './eventLog.js';

export interface FollowedLog {
  /** The last position readable now. */
  lastPos(): number;
  /** Records from `from` up to the end as it is now. */
  read(from: number): AsyncIterable<LogRecord>;
  /** Resolves when more may be readable (or a while has passed, or `signal` aborted). */
  more(signal: AbortSignal): Promise<void>;
}

export async function* followLog(log: FollowedLog, from: number, signal: AbortSignal): AsyncGenerator<LogRecord> {
  let next = Math.max(from, 1);
  while (!signal.aborted) {
    if (next <= log.lastPos()) {
      for await (const record of log.read(next)) {
        yield record;
        next = record.pos + 1;
        if (signal.aborted) return;
      }
      continue;
    }
    await log.more(signal);
  }
}

/** Waits `ms`, or until `signal` aborts or `onWake` calls the function it is given; detaches everything after. */
export function waitAWhile(ms: number, signal: AbortSignal, onWake?: (wake: () => void) => () => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    const detach = onWake?.(done);
    signal.addEventListener('abort', done);
    function done(): void {
      clearTimeout(timer);
      detach?.();
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
