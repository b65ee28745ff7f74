// Read-your-writes for the account reads: an order or trade a POST returned must be visible at once, so a
// read from ClickHouse first waits until the projector has reached the last log position this process
// acknowledged (host.position). Reads served from memory (projections/live/) wait the same way for the
// in-memory read model, which normally holds every acknowledged command already: the engine host hands each
// durable batch to it before any reply is released. The projector follows the durable log closely; when it cannot catch up
// within the wait the read is refused with a 503 rather than answered with stale data.

import { ApiError } from '../http/apiErrors.js';
import type { LiveState } from '../../projections/live/liveState.js';
import type { ProjectionProgress, TradingDeps } from './tradingDeps.js';

/** How long a read waits for the projections (ms). */
export const READ_WAIT_MS = 5_000;

/** Resolves once the projections hold every command acknowledged so far; throws a 503 ApiError otherwise. */
export function projectionsCaughtUp(deps: Pick<TradingDeps, 'host' | 'projection'>, timeoutMs = READ_WAIT_MS): Promise<void> {
  return projectionsReach(deps, deps.host.position, timeoutMs);
}

/**
 * The in-memory read model's state once it holds every command acknowledged so far; undefined when it is
 * off, still starting or stopped (the read then goes to ClickHouse). Throws a 503 ApiError when it cannot
 * catch up within the wait.
 */
export async function memoryCaughtUp(deps: Pick<TradingDeps, 'host' | 'live'>, timeoutMs = READ_WAIT_MS): Promise<LiveState | undefined> {
  const live = deps.live;
  if (live === undefined || !live.ready) return undefined;
  const target = deps.host.position;
  if (live.position < target) {
    try {
      await live.waitFor(target, timeoutMs);
    } catch {
      throw new ApiError('unavailable', { detail: `the in-memory read model did not reach log position ${target} within ${timeoutMs} ms; retry later` });
    }
  }
  return live.ready ? live.state : undefined;
}

/**
 * Waits (up to `timeoutMs`) for the projector to hold log position `target`. Resolves true once it does (at
 * once when it already does, or when there is no projector to wait for), false when the wait ran out; never
 * throws, so each caller states what a timeout means for its read (refuse with a 503, or answer from what the
 * tables hold).
 */
export async function projectorReaches(projection: ProjectionProgress | undefined, target: number, timeoutMs = READ_WAIT_MS): Promise<boolean> {
  if (projection === undefined || projection.position >= target) return true;
  return projection.waitFor(target, timeoutMs).then(
    () => true,
    () => false,
  );
}

/** Waits (within READ_WAIT_MS) for the projector to reach `pos`; throws a 503 ApiError otherwise. */
export async function projectionsReach(deps: Pick<TradingDeps, 'projection'>, pos: number, timeoutMs = READ_WAIT_MS): Promise<void> {
  if (!(await projectorReaches(deps.projection, pos, timeoutMs))) {
    throw new ApiError('unavailable', { detail: `the account projections did not reach log position ${pos} within ${timeoutMs} ms; retry later` });
  }
}
