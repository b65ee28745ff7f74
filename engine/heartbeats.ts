// Heartbeat sessions (the dead-man's switch of upstream's `POST /v1/heartbeats`): once an account has sent a
// heartbeat, another must reach the engine within the session's window, or every open order of the account is
// cancelled (reason 'heartbeat') and the session ends.
//
// The engine decides from engine time alone: before each command, time moves to the command's time, and every
// session whose deadline is then past expires, earliest deadline first (ties by account), before the command
// runs. A replay of the log therefore cancels the same orders at the same event; a service that was down past
// a deadline cancels at its first command after restart; the host submits AdvanceTime at the earliest deadline
// (EngineHost) so that a silent market still cancels on time.
//
// The chain: each accepted heartbeat names the id the next one must carry (`heartbeatId`, made outside the
// engine). A heartbeat with `previousId` '' starts a session, or restarts the account's live one (a client
// that lost its id, e.g. after its own restart); one with a non-empty previousId that is not the session's
// current id is refused (HEARTBEAT_INVALID, carrying the current id, '' when none) and changes nothing.
// The window travels on the command (`timeoutMs`), so the log alone decides, whatever the settings of a
// later run. State: one entry per account with a live session; ended sessions are forgotten.

import type { Heartbeat } from './commands.js';
import { isId } from './commandChecks.js';
import { MinHeap } from './minHeap.js';
import { cancelOpenOrder } from './orderEntry.js';
import type { EngineState } from './state.js';

/** Bounds of a session's window (ms): from one second to one hour. */
export const HEARTBEAT_MIN_TIMEOUT_MS = 1_000;
export const HEARTBEAT_MAX_TIMEOUT_MS = 3_600_000;
const HEARTBEAT_ID = /^[0-9a-zA-Z-]{1,64}$/;

export interface HeartbeatSession {
  /** The id the next heartbeat must carry. */
  readonly id: string;
  /** Engine time (ms) after which the session expires: last heartbeat + window. */
  readonly deadline: number;
}

/** A heap entry: a session's deadline and account (stale once the account's session has another deadline). */
type Due = readonly [deadline: number, account: string];

const before = (a: Due, b: Due): boolean => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);

export class HeartbeatSessions {
  /** account → its live session. */
  private readonly sessions = new Map<string, HeartbeatSession>();
  /**
   * Every live session's deadline in a binary min-heap ordered by (deadline, account), beside entries of
   * sessions since renewed or ended (dropped when they reach the top): the earliest deadline and the expired
   * sessions cost O(log n) each, not a scan of every session per command.
   */
  private readonly heap = new MinHeap<Due>(before);

  /** account → its live session. */
  get live(): ReadonlyMap<string, HeartbeatSession> {
    return this.sessions;
  }

  get size(): number {
    return this.sessions.size;
  }

  set(account: string, session: HeartbeatSession): void {
    this.sessions.set(account, session);
    this.heap.push([session.deadline, account]);
    if (this.heap.length > 2 * this.sessions.size + 1_024) this.rebuild();
  }

  /** The earliest live deadline, exactly; undefined when no session is live. */
  nextDeadline(): number | undefined {
    this.dropStale();
    return this.heap.peek()?.[0];
  }

  /** Removes and returns the sessions whose deadline is before `now`, earliest first, ties by account. */
  takeExpired(now: number): [string, HeartbeatSession][] {
    const due: [string, HeartbeatSession][] = [];
    for (;;) {
      this.dropStale();
      const top = this.heap.peek();
      if (top === undefined || top[0] >= now) return due;
      this.heap.pop();
      const session = this.sessions.get(top[1]) as HeartbeatSession;
      this.sessions.delete(top[1]);
      due.push([top[1], session]);
    }
  }

  /** Live sessions sorted by account: [account, id, deadline] (snapshots and the state hash). */
  entries(): [string, string, number][] {
    return [...this.sessions].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([account, s]) => [account, s.id, s.deadline]);
  }

  /** Pops the top entries that no longer stand for a live session's deadline. */
  private dropStale(): void {
    for (;;) {
      const top = this.heap.peek();
      if (top === undefined || this.sessions.get(top[1])?.deadline === top[0]) return;
      this.heap.pop();
    }
  }

  private rebuild(): void {
    this.heap.clear();
    for (const [account, s] of this.sessions) this.heap.push([s.deadline, account]);
  }
}

/** Applies a heartbeat: starts, renews or restarts the account's session, or refuses a stale id. */
export function heartbeat(state: EngineState, cmd: Heartbeat): void {
  const account = cmd.account;
  if (!isId(account)) return state.reject('Heartbeat', 'INVALID_COMMAND', {}, { detail: 'account is required' });
  if (typeof cmd.heartbeatId !== 'string' || !HEARTBEAT_ID.test(cmd.heartbeatId)) {
    return state.reject('Heartbeat', 'INVALID_COMMAND', { account }, { detail: 'heartbeatId must be 1 to 64 letters, digits or dashes' });
  }
  if (typeof cmd.previousId !== 'string' || (cmd.previousId !== '' && !HEARTBEAT_ID.test(cmd.previousId))) {
    return state.reject('Heartbeat', 'INVALID_COMMAND', { account }, { detail: 'previousId must be empty or a heartbeat id' });
  }
  const timeout = cmd.timeoutMs;
  if (!Number.isSafeInteger(timeout) || timeout < HEARTBEAT_MIN_TIMEOUT_MS || timeout > HEARTBEAT_MAX_TIMEOUT_MS) {
    return state.reject('Heartbeat', 'INVALID_COMMAND', { account }, { detail: `timeoutMs must be an integer from ${HEARTBEAT_MIN_TIMEOUT_MS} to ${HEARTBEAT_MAX_TIMEOUT_MS}` });
  }
  const current = state.heartbeats.live.get(account);
  if (cmd.previousId !== '' && cmd.previousId !== current?.id) {
    return state.reject('Heartbeat', 'HEARTBEAT_INVALID', { account }, { heartbeatId: current?.id ?? '' });
  }
  const deadline = state.now + timeout;
  state.heartbeats.set(account, { id: cmd.heartbeatId, deadline });
  state.emit({ type: 'HeartbeatAccepted', account, heartbeatId: cmd.heartbeatId, deadline });
}

/** Ends every session past its deadline and cancels its account's open orders, in a deterministic order. */
export function expireHeartbeats(state: EngineState): void {
  for (const [account, session] of state.heartbeats.takeExpired(state.now)) {
    state.emit({ type: 'HeartbeatExpired', account, heartbeatId: session.id, deadline: session.deadline });
    const owner = state.ledger.get(account);
    if (owner === undefined) continue;
    const open = [...owner.orders].sort((a, b) => a.priority - b.priority);
    for (const order of open) cancelOpenOrder(state, order, 'heartbeat');
  }
}
