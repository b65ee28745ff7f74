// Cancels (upstream-conventions §2.6): DELETE /order, /orders, /cancel-all, /cancel-market-orders, each
// answering 200 `{canceled: [ids], not_canceled: {id: reason}}`. An order is the caller's when its account
// (the maker) is the caller's address, or a maker that authorised the caller as its signer (signature
// types 1 and 2); cancel-all and cancel-market-orders cover the caller's own address. Reasons are the
// engine's messages (`Order not found` also for another account's order, so ids cannot be probed).
//
// Replays: cancelling an order id is idempotent (a cancelled id stays cancelled and is never reused), so
// DELETE /order and /orders need no more. Cancel-all and cancel-market-orders act on whatever is open when
// they apply and are not refused as replays: they move no funds or positions (a cancel only releases what an
// order reserved), and the official client's cancelAll() has no body, so two legitimate calls in one second
// are byte-identical to a replay; refusing the second would leave a trader's new orders open when it asked
// to have none. A copy replayed inside the 30 s window can cancel orders placed since (README, trading).

import type { EngineEvent } from '../../engine/index.js';
import { ApiError } from '../http/apiErrors.js';
import { ok, type RouteDef } from '../http/apiTypes.js';
import type { ErrorRule, JsonSchema } from '../http/apiTypes.js';
import { answering, CONDITION_ID, CONDITION_ID_PATTERN, orderId, TOKEN_ID, TOKEN_ID_PATTERN } from '../schemas/formats.js';
import { orderIdOf } from './accountInputs.js';
import { requireL2, type Caller } from './authenticate.js';
import { refusalOf } from './engineReplies.js';
import type { TradingDeps } from './tradingDeps.js';

/** Most ids in one DELETE /orders (upstream's limit). */
export const MAX_CANCEL_IDS = 1000;

const payload = (detail: string): ErrorRule => ({ code: 'invalid_order_payload', detail });

// The bodies, checked by the server after authentication (the routes' guard).
const CANCEL_ONE: JsonSchema = answering(
  { type: 'object', properties: { orderID: orderId('The order to cancel.'), orderId: orderId('Alias of orderID.') }, anyOf: [{ required: ['orderID'] }, { required: ['orderId'] }] },
  payload('the body must be {"orderID": "0x..."}'),
  { anyOf: 'invalid_order_id' },
);
const CANCEL_MANY: JsonSchema = answering(
  { type: 'array', items: orderId(), maxItems: MAX_CANCEL_IDS, description: `Order ids, at most ${MAX_CANCEL_IDS}.` },
  payload('the body must be a JSON array of order ids'),
  { maxItems: 'too_many_orders' },
);
const assetId = (description: string): JsonSchema => answering({ type: 'string', pattern: TOKEN_ID_PATTERN, description }, payload('asset_id must be a decimal token id'));
const CANCEL_MARKET: JsonSchema = answering(
  {
    type: 'object',
    properties: {
      market: answering({ type: 'string', pattern: CONDITION_ID_PATTERN, description: 'Condition id.' }, payload('market must be a condition id: 0x + 64 hex digits')),
      asset_id: assetId('Token id.'),
      assetId: assetId('Alias of asset_id.'),
    },
    anyOf: [{ required: ['market'] }, { required: ['asset_id'] }, { required: ['assetId'] }],
  },
  payload('the body must be {"market"?: condition id, "asset_id"?: token id}'),
  { anyOf: payload('give market, asset_id or both') },
);
const CANCEL_LIMITS = ['trade:cancel:burst', 'trade:cancel:sustained'] as const;
const CANCEL_ERRORS = ['invalid_order_id', 'invalid_order_payload', 'too_many_orders', 'unauthorized', 'readonly_key_refused', 'rate_limited', 'unavailable'] as const;

interface CancelAnswer {
  canceled: string[];
  not_canceled: Record<string, string>;
}

const CANCEL_SCHEMA = {
  type: 'object',
  properties: {
    canceled: { type: 'array', items: { type: 'string' } },
    not_canceled: { type: 'object', additionalProperties: { type: 'string' } },
  },
  required: ['canceled', 'not_canceled'],
} as const;

function answerOf(events: readonly EngineEvent[]): CancelAnswer {
  const answer: CancelAnswer = { canceled: [], not_canceled: {} };
  for (const e of events) {
    if (e.type === 'OrderCancelled') answer.canceled.push(e.orderId);
    else if (e.type === 'CancelRejected') answer.not_canceled[e.orderId] = e.message;
  }
  return answer;
}

function merge(answers: readonly CancelAnswer[]): CancelAnswer {
  const out: CancelAnswer = { canceled: [], not_canceled: {} };
  for (const a of answers) {
    out.canceled.push(...a.canceled);
    Object.assign(out.not_canceled, a.not_canceled);
  }
  return out;
}

export function cancelRoutes(deps: TradingDeps): RouteDef[] {
  const engine = deps.host.engine;
  const guard = (req: Parameters<NonNullable<RouteDef['guard']>>[0]): void => void requireL2(req, deps);

  /** The account an order's cancel is submitted for: its maker when the caller may act for it, else the caller's. */
  const accountFor = (id: string, caller: Caller): string => {
    const order = engine.order(id);
    if (order === undefined) return caller.account;
    const maker = order.account.address;
    return maker === caller.account || engine.signerAuthorized(maker, caller.account) ? maker : caller.account;
  };

  /** Cancels `ids` (distinct), grouped by the account each is submitted for. */
  const cancelIds = async (ids: readonly string[], caller: Caller): Promise<CancelAnswer> => {
    const byAccount = new Map<string, string[]>();
    for (const id of ids) {
      const account = accountFor(id, caller);
      const list = byAccount.get(account) ?? [];
      list.push(id);
      byAccount.set(account, list);
    }
    const answers = await Promise.all(
      [...byAccount].map(async ([account, list]) => {
        const events = await deps.host.submit(list.length === 1 ? { type: 'CancelOrder', orderId: list[0] as string, account } : { type: 'CancelOrders', orderIds: list, account });
        const refusal = refusalOf(events.filter((e) => e.type === 'CommandRejected'));
        if (refusal !== undefined) throw refusal;
        return answerOf(events);
      }),
    );
    return merge(answers);
  };

  return [
    {
      method: 'DELETE', path: '/order', surface: 'clob', summary: 'Cancel one order. Body {orderID}',
      response: CANCEL_SCHEMA, limits: CANCEL_LIMITS, errors: CANCEL_ERRORS, guard, body: CANCEL_ONE,
      handler: async (req) => {
        const caller = requireL2(req, deps);
        const body = req.body;
        if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('invalid_order_payload', { detail: 'the body must be {"orderID": "0x..."}' });
        const b = body as Readonly<Record<string, unknown>>;
        return ok(await cancelIds([orderIdOf(b.orderID ?? b.orderId)], caller));
      },
    },
    {
      method: 'DELETE', path: '/orders', surface: 'clob', summary: `Cancel up to ${MAX_CANCEL_IDS} orders. Body: an array of order ids`,
      response: CANCEL_SCHEMA, limits: CANCEL_LIMITS, errors: CANCEL_ERRORS, guard, body: CANCEL_MANY,
      handler: async (req) => {
        const caller = requireL2(req, deps);
        const body = req.body;
        if (!Array.isArray(body)) throw new ApiError('invalid_order_payload', { detail: 'the body must be a JSON array of order ids' });
        if (body.length > MAX_CANCEL_IDS) throw new ApiError('too_many_orders', { count: body.length, max: MAX_CANCEL_IDS });
        const ids = [...new Set(body.map(orderIdOf))];
        return ok(ids.length === 0 ? { canceled: [], not_canceled: {} } : await cancelIds(ids, caller));
      },
    },
    {
      method: 'DELETE', path: '/cancel-all', surface: 'clob', summary: "Cancel all of the caller's open orders",
      response: CANCEL_SCHEMA, limits: CANCEL_LIMITS, errors: CANCEL_ERRORS,
      handler: async (req) => {
        const caller = requireL2(req, deps);
        return ok(answerOf(await deps.host.submit({ type: 'CancelAll', account: caller.account })));
      },
    },
    {
      method: 'DELETE', path: '/cancel-market-orders', surface: 'clob',
      summary: "Cancel the caller's open orders in a market and/or token. Body {market?, asset_id?}",
      response: CANCEL_SCHEMA, limits: CANCEL_LIMITS, errors: CANCEL_ERRORS, guard, body: CANCEL_MARKET,
      handler: async (req) => {
        const caller = requireL2(req, deps);
        const body = req.body;
        if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError('invalid_order_payload', { detail: 'the body must be {"market"?: condition id, "asset_id"?: token id}' });
        const b = body as Readonly<Record<string, unknown>>;
        const market = b.market ?? undefined;
        const asset = b.asset_id ?? b.assetId ?? undefined;
        if (market !== undefined && (typeof market !== 'string' || !CONDITION_ID.test(market))) throw new ApiError('invalid_order_payload', { detail: 'market must be a condition id: 0x + 64 hex digits' });
        if (asset !== undefined && (typeof asset !== 'string' || !TOKEN_ID.test(asset))) throw new ApiError('invalid_order_payload', { detail: 'asset_id must be a decimal token id' });
        if (market === undefined && asset === undefined) throw new ApiError('invalid_order_payload', { detail: 'give market, asset_id or both' });
        const events = await deps.host.submit({
          type: 'CancelMarketOrders',
          account: caller.account,
          ...(market === undefined ? {} : { conditionId: market.toLowerCase() }),
          ...(asset === undefined ? {} : { tokenId: asset }),
        });
        return ok(answerOf(events));
      },
    },
  ];
}
