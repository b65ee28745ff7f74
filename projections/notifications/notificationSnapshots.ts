// Snapshots of the notifications (notificationState.ts), so that a restart reads the log only after the newest
// one instead of from its start. A snapshot holds the whole state at one log position: the notifications kept
// (log order), the open orders' notes, the holdings of markets not resolved yet, the engine time and the
// position. Restoring it and applying the records after it gives the state that applying every record gives
// (test/projections/notifications.test.ts).
//
// Files: `notifications-<pos>.v8` (v8.serialize) in their own directory (projections/snapshotFiles.ts).

import { deserialize, serialize } from 'node:v8';
import { SnapshotFiles } from '../snapshotFiles.js';
import { NotificationState, type Notification, type NotificationStateOptions, type OpenOrderNote } from './notificationState.js';

export const NOTIFICATION_SNAPSHOT_FORMAT = 1;

export interface NotificationSnapshot {
  readonly format: typeof NOTIFICATION_SNAPSHOT_FORMAT;
  readonly pos: number;
  readonly now: number;
  readonly notifications: readonly Notification[];
  readonly orders: readonly [string, OpenOrderNote][];
  readonly holdings: readonly [string, [string, [number, number]][]][];
}

/** The state's snapshot as bytes, taken and serialised at once (so it is the state at its position). */
export function snapshotBytes(state: NotificationState): Buffer {
  const snapshot: NotificationSnapshot = {
    format: NOTIFICATION_SNAPSHOT_FORMAT,
    pos: state.pos,
    now: state.now,
    notifications: [...state.kept()],
    orders: [...state.orders],
    holdings: [...state.holdings].map(([conditionId, holders]) => [conditionId, [...holders]]),
  };
  return serialize(snapshot);
}

/** Reads snapshot bytes; throws when they are not a snapshot of this format. */
export function readSnapshot(bytes: Buffer): NotificationSnapshot {
  const snapshot = deserialize(bytes) as Partial<NotificationSnapshot> | null;
  if (snapshot === null || typeof snapshot !== 'object' || snapshot.format !== NOTIFICATION_SNAPSHOT_FORMAT || typeof snapshot.pos !== 'number') {
    throw new Error(`not a notifications snapshot of format ${NOTIFICATION_SNAPSHOT_FORMAT}`);
  }
  return snapshot as NotificationSnapshot;
}

/** A fresh state as of the snapshot's position. */
export function restoreSnapshot(snapshot: NotificationSnapshot, options: NotificationStateOptions = {}): NotificationState {
  const state = new NotificationState(options);
  for (const n of snapshot.notifications) state.restore(n);
  for (const [orderId, note] of snapshot.orders) state.orders.set(orderId, note);
  for (const [conditionId, holders] of snapshot.holdings) state.holdings.set(conditionId, new Map(holders));
  state.now = snapshot.now;
  state.pos = snapshot.pos;
  return state;
}

/** The notifications' snapshot files (`notifications-<pos>.v8`). */
export class NotificationSnapshots extends SnapshotFiles<NotificationSnapshot> {
  constructor(dir: string, keep = 2) {
    super(dir, 'notifications', readSnapshot, keep);
  }
}
