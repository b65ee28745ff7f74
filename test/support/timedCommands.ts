// The host submits AdvanceTime on its own: at a heartbeat session's deadline and at the rewards sampler's
// minute (EngineHost.watchDeadlines). A test that asserts "this request changed nothing" (same state hash,
// same log position) across seconds of requests would catch one of those. `holdTimedCommands` stops them for
// the span of the check and settles one already queued, so the check sees only what the requests did.

import type { EngineHost } from '../../host/engineHost.js';

/** Stops the host's timed AdvanceTime commands and waits until none is queued; returns the release. */
export async function holdTimedCommands(host: EngineHost): Promise<() => void> {
  host.unwatchDeadlines();
  await host.idle();
  return () => host.watchDeadlines();
}
