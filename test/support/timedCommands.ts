// The host submits AdvanceTime on its own: at a heartbeat session's deadline and at the rewards sampler's
// minute (EngineHost.watchDeadlines). A test that asserts "this request changed nothing" (same state hash,
// same log position) would catch one of those now and then. `holdTimedCommands` stops them for the span of
// the check and settles one already queued, so the check sees only what the requests did; a check across a
// restart, where the new host watches again, waits with `clearOfTimedCommands` until none is due soon.

import type { Engine } from '../../engine/engine.js';
import type { EngineHost } from '../../host/engineHost.js';

/** Stops the host's timed AdvanceTime commands and waits until none is queued; returns the release. */
export async function holdTimedCommands(host: EngineHost): Promise<() => void> {
  host.unwatchDeadlines();
  await host.idle();
  return () => host.watchDeadlines();
}

/**
 * Waits, when the host is about to submit an AdvanceTime of its own (within `marginMs`), until that command is
 * in, and again for every next one due within `marginMs`, so that the next one is at least `marginMs` away: time
 * for a restart to read the same state. A due command counts as in once the engine's next due has moved past it
 * (a timer that fires late, on a busy machine, is waited for rather than raced).
 */
export async function clearOfTimedCommands(host: EngineHost, marginMs: number): Promise<void> {
  for (let round = 0; ; round++) {
    const engine: Engine = host.engine;
    const dues = [engine.nextRewardSample(), engine.nextHeartbeatDeadline()].filter((d): d is number => d !== undefined);
    if (dues.length === 0) return;
    const wait = Math.min(...dues) - Date.now();
    if (wait > marginMs) return;
    if (round >= 50) throw new Error(`a timed command due in ${wait} ms is still not in after ${round} waits`);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait) + 300));
    await host.idle();
  }
}
