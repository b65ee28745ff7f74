// Heartbeats, the dead-man's switch (upstream-conventions §2.6): POST /v1/heartbeats and /heartbeats (L2),
// body `{"heartbeat_id": ""|"<id>"}` (null or no body count as ""), answer `{heartbeat_id, status: "ok"}`.
// The answer's id is the one the next heartbeat must carry. The first heartbeat of a user (the L2 address)
// starts a session; if the next one does not reach the engine within --heartbeat-timeout-sec, every open
// order of that user is cancelled (engine/heartbeats.ts decides, from engine time: replays cancel the same).
//
// - heartbeat_id "" starts the session, or restarts a live one (a client that lost its id keeps its orders).
// - A non-empty heartbeat_id that is not the current one: 400 `{error, error_msg: "Invalid Heartbeat ID",
//   heartbeat_id: <the current id, "" when no session is live>}`, and nothing changes.
// Each heartbeat is a command in the log (one per user every few seconds): the engine, not this process's
// clock, decides when a session ends, so a restart neither forgets a session nor cancels a live one.

import { randomUUID } from 'node:crypto';
import { ApiError, API_ERRORS } from '../http/apiErrors.js';
import { ok, type ApiRequest, type JsonSchema, type Reply, type RouteDef } from '../http/apiTypes.js';
import { answering } from '../schemas/formats.js';
import { requireL2 } from './authenticate.js';
import { refusalOf } from './engineReplies.js';
import type { TradingDeps } from './tradingDeps.js';

const HEARTBEAT_ID_PATTERN = '^[0-9a-zA-Z-]{1,64}$';
const HEARTBEAT_ID = new RegExp(HEARTBEAT_ID_PATTERN);

/** The body (optional: none, like "" or null, starts or restarts the session), checked after authentication. */
const BODY: JsonSchema = answering(
  {
    type: 'object',
    properties: {
      heartbeat_id: answering(
        { anyOf: [{ type: 'null' }, { type: 'string', enum: [''] }, { type: 'string', pattern: HEARTBEAT_ID_PATTERN }], description: 'The id the previous answer named; "", null or absent starts (or restarts) the session.' },
        { code: 'bad_request', detail: 'heartbeat_id must be a string of at most 64 letters, digits or dashes' },
      ),
    },
  },
  { code: 'bad_request', detail: 'the body must be an object: {"heartbeat_id": "<id>"}' },
);

const ANSWER = {
  type: 'object',
  properties: {
    heartbeat_id: { type: 'string', description: 'The id the next heartbeat must carry.' },
    status: { type: 'string', enum: ['ok'] },
  },
  required: ['heartbeat_id', 'status'],
} as const;

/** The heartbeat_id of the body: '' when absent, null or empty. Throws a 400 for anything else. */
function previousIdOf(raw: string): string {
  if (raw.trim() === '') return '';
  let body: unknown;
  try {
    body = JSON.parse(raw) as unknown;
  } catch {
    throw new ApiError('bad_request', { detail: 'the body must be JSON: {"heartbeat_id": "<id>"}' });
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('bad_request', { detail: 'the body must be an object: {"heartbeat_id": "<id>"}' });
  const id = (body as Readonly<Record<string, unknown>>).heartbeat_id;
  if (id === undefined || id === null || id === '') return '';
  if (typeof id !== 'string' || !HEARTBEAT_ID.test(id)) throw new ApiError('bad_request', { detail: 'heartbeat_id must be a string of at most 64 letters, digits or dashes' });
  return id;
}

export function heartbeatRoutes(deps: TradingDeps): RouteDef[] {
  const handler = async (req: ApiRequest<unknown, unknown>): Promise<Reply> => {
    const caller = requireL2(req, deps);
    const previousId = previousIdOf(req.rawBody);
    const heartbeatId = randomUUID();
    const events = await deps.host.submit({ type: 'Heartbeat', account: caller.account, previousId, heartbeatId, timeoutMs: deps.settings.heartbeatTimeoutSec * 1000 });
    if (events.some((e) => e.type === 'HeartbeatAccepted')) return ok({ heartbeat_id: heartbeatId, status: 'ok' });
    if (events.some((e) => e.type === 'CommandRejected' && e.code === 'HEARTBEAT_INVALID')) {
      const error = API_ERRORS.heartbeat_invalid.message;
      return { status: 400, body: { error, error_msg: error, heartbeat_id: deps.host.engine.heartbeatSession(caller.account)?.id ?? '' } };
    }
    throw refusalOf(events) ?? new Error('Heartbeat produced neither HeartbeatAccepted nor a refusal');
  };
  const route = (path: string): RouteDef => ({
    method: 'POST', path, surface: 'clob',
    summary: `Send a heartbeat (L2). Once started, if the next heartbeat does not arrive within the window (--heartbeat-timeout-sec, default 10 s), every open order of the caller is cancelled. The answer names the id the next heartbeat must carry; a stale id gets 400 with the current id.`,
    response: ANSWER, errors: ['heartbeat_invalid', 'bad_request', 'unauthorized', 'readonly_key_refused', 'rate_limited', 'unavailable'],
    guard: (r) => void requireL2(r, deps), body: BODY, bodyOptional: true, handler,
  });
  return [route('/v1/heartbeats'), route('/heartbeats')];
}
