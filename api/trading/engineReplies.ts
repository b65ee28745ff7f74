// Engine refusals as HTTP errors: the status comes from the engine's reject catalogue (engine/rejectReasons.ts)
// and the message is the one the engine wrote into its event, so the API never rewords a refusal.

import { REJECT, type EngineEvent, type RejectCode } from '../../engine/index.js';
import { ApiError } from '../http/apiErrors.js';

export function rejection(code: RejectCode, message: string): ApiError {
  return new ApiError(REJECT[code].http === 404 ? 'engine_rejected_not_found' : 'engine_rejected', { detail: message });
}

/** The refusal among a command's events (CommandRejected, OrderRejected or CancelRejected), if any. */
export function refusalOf(events: readonly EngineEvent[]): ApiError | undefined {
  for (const e of events) {
    if (e.type === 'CommandRejected' || e.type === 'OrderRejected' || e.type === 'CancelRejected') return rejection(e.code, e.message);
  }
  return undefined;
}
