// Sliding-window request counting, per window and per caller key (an API key where the request carries
// one, else the client IP). Each key keeps the count of the current and the previous fixed window; the
// estimate weights the previous one by how much of it still overlaps the sliding window (the approach
// Cloudflare describes; within a few percent of an exact log, in O(1) memory per key). A request that
// would overflow any of its windows is refused and counted in none, so a refused burst does not extend
// the wait. Time is passed in, never read here.

import type { RateWindow } from './rateLimits.js';

interface Counter {
  start: number;
  current: number;
  previous: number;
}

export interface Admission {
  readonly ok: boolean;
  /** Seconds until the fullest window has room again (ok = false). */
  readonly retryAfterSec: number;
  readonly window?: string;
}

/** The limiter key of requests that name an API key (others count per client IP, `ip:<address>`). */
export function apiKeyRateKey(apiKey: string): string {
  return `key:${apiKey}`;
}

const ADMITTED: Admission = { ok: true, retryAfterSec: 0 };

export class RateLimiter {
  private readonly counters = new Map<string, Map<string, Counter>>();

  constructor(private readonly windows: Readonly<Record<string, RateWindow>>) {}

  /** Admits a request of `cost` (default 1) against every named window, or refuses it against none. */
  admit(names: readonly string[], key: string, now: number, cost = 1): Admission {
    for (const name of names) {
      const window = this.windows[name];
      if (window === undefined) continue;
      const c = this.counter(name, key, window, now);
      const overlap = 1 - (now - c.start) / window.windowMs;
      const estimate = c.previous * overlap + c.current;
      if (estimate + cost > window.limit) {
        // Room returns when the previous window's weight has decayed enough, or at the latest when the
        // current window ends.
        const excess = estimate + cost - window.limit;
        const decayMs = c.previous > 0 ? (excess / c.previous) * window.windowMs : window.windowMs - (now - c.start);
        const waitMs = Math.min(Math.max(decayMs, 1), window.windowMs - (now - c.start) + window.windowMs);
        return { ok: false, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)), window: name };
      }
    }
    for (const name of names) {
      const window = this.windows[name];
      if (window !== undefined) this.counter(name, key, window, now).current += cost;
    }
    return ADMITTED;
  }

  private counter(name: string, key: string, window: RateWindow, now: number): Counter {
    let byKey = this.counters.get(name);
    if (byKey === undefined) {
      byKey = new Map();
      this.counters.set(name, byKey);
    }
    const start = now - (now % window.windowMs);
    let c = byKey.get(key);
    if (c === undefined) {
      c = { start, current: 0, previous: 0 };
      byKey.set(key, c);
    } else if (c.start !== start) {
      c.previous = start - c.start === window.windowMs ? c.current : 0;
      c.current = 0;
      c.start = start;
    }
    return c;
  }

  /** Forgets keys idle for two windows (call periodically; memory stays bounded by active callers). */
  prune(now: number): void {
    for (const [name, byKey] of this.counters) {
      const window = this.windows[name];
      if (window === undefined) continue;
      for (const [key, c] of byKey) if (now - c.start >= 2 * window.windowMs) byKey.delete(key);
    }
  }

  /** Number of tracked (window, key) pairs. */
  get size(): number {
    let n = 0;
    for (const byKey of this.counters.values()) n += byKey.size;
    return n;
  }
}
