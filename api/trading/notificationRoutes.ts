// Notifications and pre-migration orders (the official V2 client's getNotifications, dropNotifications and
// getPreMigrationOrders):
//
// - GET /notifications (L2, or a read-only key): the caller's notifications, newest first, in upstream's shape
//   `{id, type, owner, payload, timestamp}` (projections/notifications/notificationWire.ts). `signature_type`
//   (the client always sends it) is checked (0 to 3) and unused: the notifications are those of the caller's
//   own address, as every account read here.
// - DELETE /notifications?ids=1,2 (L2): drops the caller's notifications with those ids for good. The drop is
//   the engine command DropNotifications, so it is in the log and every rebuild applies it; ids the caller
//   does not hold are no-ops. 1 to MAX_DROPPED_NOTIFICATIONS ids, decimal integers, comma-separated; answers
//   `OK`.
// - GET /data/pre-migration-orders (L2, or a read-only key): this venue never had a migration, so no order is
//   a pre-migration order: always upstream's empty page `{data: [], next_cursor: "LTE=", limit, count: 0}`
//   (the client's loop stops at LTE=).
//
// Reads wait until the notifications hold every command this process acknowledged (as the in-memory read
// model's reads do: readYourWrites.ts); a store that is starting, stopped or cannot catch up answers 503.

import { MAX_DROPPED_NOTIFICATIONS } from '../../engine/index.js';
import { ACCOUNT_ORDERS_DEFAULT_PAGE, END_CURSOR } from '../../projections/readModel/index.js';
import { notificationWire } from '../../projections/notifications/notificationWire.js';
import type { NotificationStore } from '../../projections/notifications/notificationStore.js';
import { ApiError, badRequest } from '../http/apiErrors.js';
import { ok, type ApiRequest, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { arr, int, obj, str } from '../schemas/common.js';
import { answering, cursor, digitsAtMost } from '../schemas/formats.js';
import { given } from './accountInputs.js';
import { ORDER, page } from './accountSchemas.js';
import { requireL2, requireReader } from './authenticate.js';
import { refusalOf } from './engineReplies.js';
import { READ_WAIT_MS } from './readYourWrites.js';
import type { TradingDeps } from './tradingDeps.js';

const AUTH_ERRORS = ['unauthorized', 'rate_limited', 'unavailable', 'internal'] as const;
/** A notification id: a decimal integer of at most 16 digits, at most 2^53 − 1 (leading zeros allowed). */
const ID_PATTERN = digitsAtMost(BigInt(Number.MAX_SAFE_INTEGER), 16);
const ID = new RegExp(`^${ID_PATTERN}$`);

/** signature_type, checked and unused. */
const SIGNATURE_TYPE: JsonSchema = answering(
  { type: 'string', pattern: '^[0-3]$', maxLength: 1, description: '0 (EOA), 1 (POLY_PROXY), 2 (POLY_GNOSIS_SAFE) or 3 (POLY_1271); accepted and unused.' },
  { code: 'bad_request', detail: 'signature_type: must be 0, 1, 2 or 3' },
);
/** The ids of DELETE /notifications (checked after authentication; the handler reads them comma-joined). */
const IDS: JsonSchema = answering(
  {
    type: 'array',
    items: answering({ type: 'string', pattern: `^${ID_PATTERN}$`, maxLength: 16 }, { code: 'bad_request', detail: 'ids: "{value}" is not a notification id (a non-negative integer)' }),
    minItems: 1,
    maxItems: MAX_DROPPED_NOTIFICATIONS,
    description: `Notification ids (decimal integers), 1 to ${MAX_DROPPED_NOTIFICATIONS}.`,
  },
  { code: 'bad_request', detail: 'ids: the notification ids to drop are required, comma-separated' },
  { maxItems: { code: 'bad_request', detail: `ids: at most ${MAX_DROPPED_NOTIFICATIONS} ids at a time` } },
);

const POSITION = obj({ asset_id: str(), outcome: str(), outcome_index: int(), size: str('Shares.') });

/** Every payload field of the three types; each notification carries those of its type (notificationWire.ts). */
const PAYLOAD: JsonSchema = obj(
  {
    order_id: str(), trade_id: str(), market: str('Condition id.'), asset_id: str('Token id.'), question: str(), outcome: str(), outcome_index: int(),
    side: str(), price: str(), size: str('Shares.'), original_size: str(), size_matched: str(), size_cancelled: str(), size_remaining: str(),
    fee_rate_bps: str(), trader_side: str('TAKER or MAKER.'), reason: str('user, market_resolved, unfilled or heartbeat.'), transaction_hash: str(),
    winning_asset_id: str(), winning_outcome: str(), winning_outcome_index: int(), positions: arr(POSITION),
  },
  {
    optional: [
      'order_id', 'trade_id', 'market', 'asset_id', 'question', 'outcome', 'outcome_index', 'side', 'price', 'size', 'original_size', 'size_matched',
      'size_cancelled', 'size_remaining', 'fee_rate_bps', 'trader_side', 'reason', 'transaction_hash', 'winning_asset_id', 'winning_outcome',
      'winning_outcome_index', 'positions',
    ],
  },
);

const NOTIFICATION: JsonSchema = obj({
  id: int('Stable across restarts: 2 × the event sequence number (+ 1 for the maker side of a fill).'),
  type: int('1 order cancellation, 2 order fill, 4 market resolved.'),
  owner: str('API key of the order; the address for a market resolution.'),
  timestamp: int('Unix seconds.'),
  payload: PAYLOAD,
});

/** The store once it holds every command acknowledged so far; a 503 ApiError otherwise. */
async function caughtUp(deps: TradingDeps): Promise<NotificationStore> {
  const store = deps.notifications;
  if (store === undefined || !store.ready) throw new ApiError('unavailable', { detail: 'the notifications are not being served (starting or stopped); retry later' });
  const target = deps.host.position;
  if (store.position < target) {
    await store.waitFor(target, READ_WAIT_MS).catch(() => {
      throw new ApiError('unavailable', { detail: `the notifications did not reach log position ${target} within ${READ_WAIT_MS} ms; retry later` });
    });
  }
  return store;
}

/** The ids of DELETE /notifications: decimal integers, comma-separated, without repeats. */
function idsOf(value: string | undefined): number[] {
  if (value === undefined) throw badRequest('ids: the notification ids to drop are required, comma-separated');
  const ids = new Set<number>();
  for (const part of value.split(',')) {
    const text = part.trim();
    const id = Number(text);
    if (!ID.test(text) || !Number.isSafeInteger(id)) throw badRequest(`ids: "${text}" is not a notification id (a non-negative integer)`);
    ids.add(id);
  }
  if (ids.size > MAX_DROPPED_NOTIFICATIONS) throw badRequest(`ids: at most ${MAX_DROPPED_NOTIFICATIONS} ids at a time`);
  return [...ids];
}

export function notificationRoutes(deps: TradingDeps): RouteDef[] {
  return [
    {
      method: 'GET', path: '/notifications', surface: 'clob', summary: "The caller's notifications (fills, cancellations, resolutions of markets held), newest first",
      query: { type: 'object', properties: { signature_type: SIGNATURE_TYPE } }, guard: (r) => void requireReader(r, deps),
      response: arr(NOTIFICATION), errors: ['bad_request', ...AUTH_ERRORS],
      handler: async (req: ApiRequest) => {
        const caller = requireReader(req, deps);
        const signatureType = given(req.query, 'signature_type');
        if (signatureType !== undefined && !/^[0-3]$/.test(signatureType)) throw badRequest('signature_type: must be 0, 1, 2 or 3');
        const store = await caughtUp(deps);
        const notes = store.state.notificationsOf(caller.account, deps.clock() - store.state.retentionMs);
        const markets = [...new Set(notes.map((n) => n.conditionId))];
        const metadata = markets.length === 0 ? new Map() : await deps.reads.metadata(markets);
        return ok(notes.map((n) => notificationWire(n, metadata.get(n.conditionId), deps.host.engine.market(n.conditionId)?.tokenIds)));
      },
    },
    {
      method: 'DELETE', path: '/notifications', surface: 'clob', summary: "Drop some of the caller's notifications for good, by id (?ids=1,2)",
      query: { type: 'object', properties: { ids: IDS }, required: ['ids'] }, guard: (r) => void requireL2(r, deps),
      response: { type: 'string' }, errors: ['bad_request', 'engine_rejected', ...AUTH_ERRORS],
      handler: async (req: ApiRequest) => {
        const caller = requireL2(req, deps);
        const ids = idsOf(given(req.query, 'ids'));
        const refusal = refusalOf(await deps.host.submit({ type: 'DropNotifications', account: caller.account, ids }));
        if (refusal !== undefined) throw refusal;
        return ok('OK');
      },
    },
    {
      method: 'GET', path: '/data/pre-migration-orders', surface: 'clob', summary: 'Orders placed before a migration: none here, an empty page',
      query: { type: 'object', properties: { next_cursor: cursor('A cursor this service issues (MA== or empty for the first page); the answer is always the last (empty) page.') } }, guard: (r) => void requireReader(r, deps),
      response: page(ORDER), errors: AUTH_ERRORS,
      handler: (req: ApiRequest) => {
        requireReader(req, deps);
        return ok({ data: [], next_cursor: END_CURSOR, limit: ACCOUNT_ORDERS_DEFAULT_PAGE, count: 0 });
      },
    },
  ];
}
