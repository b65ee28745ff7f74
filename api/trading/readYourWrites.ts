// Read-your-writes for the account reads: an order or trade a POST returned must be visible at once, so a
// read from ClickHouse first waits until the projector has reached the last log position this process
// acknowledged (host.position). The projector follows the durable log closely; when it cannot catch up
// within the wait the read is refused with a 503 rather than answered with stale data.

import { ApiError } from '../http/apiErrors.js';
import type { TradingDeps } from './tradingDeps.js';

/** How long a read waits for the projections (ms). */
export const READ_WAIT_MS = 5_000;

/** Resolves once the projections hold every command acknowledged so far; throws a 503 ApiError otherwise. */
export async function projectionsCaughtUp(deps: Pick<TradingDeps, 'host' | 'projection'>, timeoutMs = READ_WAIT_MS): Promise<void> {
  const target = deps.host.position;
  try {
    await deps.projection.waitFor(target, timeoutMs);
  } catch {
    throw new ApiError('unavailable', { detail: `the account projections did not reach log position ${target} within ${timeoutMs} ms; retry later` });
  }
}
