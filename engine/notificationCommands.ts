// DropNotifications: the engine keeps no notification state (projections/notifications/ builds it from the
// log); it only checks the command's shape and records the drop as NotificationsDropped, so that a drop is
// durable and every rebuild of the notifications (restart, replay, another API node) applies it at the same
// point. Refusals, all INVALID_COMMAND: an account that is not a lower-case `0x` + 40 hex address; ids that
// are not an array of 1 to MAX_DROPPED_NOTIFICATIONS non-negative safe integers. Repeated ids are kept once.

import type { DropNotifications } from './commands.js';
import { isAddress } from './commandChecks.js';
import type { EngineState } from './state.js';

/** Most notification ids one DropNotifications may name (the API's DELETE /notifications has the same cap). */
export const MAX_DROPPED_NOTIFICATIONS = 1_000;

function isNotificationId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function dropNotifications(state: EngineState, cmd: DropNotifications): void {
  const where = { account: typeof cmd.account === 'string' ? cmd.account : '' };
  if (!isAddress(cmd.account)) return state.reject('DropNotifications', 'INVALID_COMMAND', {}, { detail: 'account must be lower-case 0x + 40 hex' });
  const ids: unknown = cmd.ids;
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_DROPPED_NOTIFICATIONS || !ids.every(isNotificationId)) {
    return state.reject('DropNotifications', 'INVALID_COMMAND', where, { detail: `ids must be 1 to ${MAX_DROPPED_NOTIFICATIONS} non-negative integers` });
  }
  state.emit({ type: 'NotificationsDropped', account: cmd.account, ids: [...new Set(ids as number[])] });
}
