// The at-most-once rule for L2-signed requests that move funds or positions (Split, Merge, Redeem,
// ConvertPositions) or hand out
// a new credential (CreateAccessKey: a replay would answer with another key): each such
// command may carry the identity of the signed HTTP request that
// asked for it (the HMAC of its L2 headers, signed at `signedAt`, fresh until `until`). The engine applies a
// request id once (an id is remembered when its command applied; a refused one changed nothing and may come
// again): a second command with the same id is refused as a replay while the id is remembered, and
// once it is forgotten (its `until` passed) a command with it is refused as stale. Forgetting also moves a
// horizon (`forgottenThrough`, the latest signing time of any forgotten id) at or below which every request is
// refused, so that raising the freshness window later can never make a forgotten request fresh again.
//
// All times are the engine's (command time), so replay of the log decides exactly as the live engine did.

import type { CommandType, SignedRequest } from './commands.js';
import { isId, isTimestamp } from './commandChecks.js';
import type { EngineState } from './state.js';

/** Longest accepted freshness window of a signed request or order (ms): 2^30 ms, about 12 days. */
export const MAX_SIGNED_WINDOW_MS = 2 ** 30;

export type SignedRequestVerdict = 'fresh' | 'malformed' | 'replayed' | 'stale';

/** A well-formed stamp: an id, and `signedAt <= until <= signedAt + MAX_SIGNED_WINDOW_MS`. */
export function isSignedRequest(value: unknown): value is SignedRequest {
  if (value === null || typeof value !== 'object') return false;
  const r = value as Readonly<Record<string, unknown>>;
  return (
    isId(r.id) &&
    isTimestamp(r.signedAt) &&
    isTimestamp(r.until) &&
    (r.until as number) >= (r.signedAt as number) &&
    (r.until as number) - (r.signedAt as number) <= MAX_SIGNED_WINDOW_MS
  );
}

export class SignedRequests {
  /** id → until, in insertion order (the order ids are forgotten in). */
  private readonly untilById = new Map<string, number>();
  /** Insertion-ordered [id, signedAt, until] from `head`; compacted when half is consumed. */
  private queue: [string, number, number][] = [];
  private head = 0;
  /** Latest signing time of any forgotten request id (0: none forgotten). */
  forgottenThrough = 0;

  /** Decides a stamped command at engine time `now` (the caller remembers the id once the command applies). */
  check(request: unknown, now: number): SignedRequestVerdict {
    if (!isSignedRequest(request)) return 'malformed';
    if (this.untilById.has(request.id)) return 'replayed';
    if (request.until <= now || request.signedAt <= this.forgottenThrough) return 'stale';
    return 'fresh';
  }

  /** Remembers an id until `until` (also restore from a snapshot, in the snapshot's order). */
  remember(id: string, signedAt: number, until: number): void {
    this.untilById.set(id, until);
    this.queue.push([id, signedAt, until]);
  }

  /** Forgets ids, oldest first, while the oldest one's time has come (`until <= now`). */
  prune(now: number): void {
    const queue = this.queue;
    let head = this.head;
    while (head < queue.length) {
      const [id, signedAt, until] = queue[head] as [string, number, number];
      if (until > now) break;
      this.untilById.delete(id);
      if (signedAt > this.forgottenThrough) this.forgottenThrough = signedAt;
      head += 1;
    }
    if (head > 1024 && head * 2 > queue.length) {
      this.queue = queue.slice(head);
      head = 0;
    }
    this.head = head;
  }

  size(): number {
    return this.queue.length - this.head;
  }

  /** [id, signedAt, until] of the remembered ids, oldest first. */
  entries(): (readonly [string, number, number])[] {
    return this.queue.slice(this.head).map(([id, signedAt, until]) => [id, signedAt, until] as const);
  }
}

/**
 * Applies the rule to a stamped command of type `type`: true when it may go on; otherwise emits its
 * CommandRejected (replayed, stale or malformed stamp) and returns false. The caller remembers the id once
 * the command has applied: a request the engine refused changed nothing and may be sent again.
 */
export function admitRequest(state: EngineState, type: CommandType, request: unknown, account: unknown): boolean {
  const verdict = state.requests.check(request, state.now);
  if (verdict === 'fresh') return true;
  const where = { account: typeof account === 'string' ? account : '' };
  if (verdict === 'malformed') state.reject(type, 'INVALID_COMMAND', where, { detail: 'request must be {id, signedAt, until} with signedAt <= until' });
  else state.reject(type, verdict === 'replayed' ? 'REQUEST_REPLAYED' : 'REQUEST_STALE', where);
  return false;
}
