// POST /order and POST /orders (spec §2.12, upstream-conventions §2.3–2.5). A single order's refusal is an
// HTTP error `{error}` (400, or the engine's status); a batch answers 200 with one response per order, in
// request order, failures carrying `errorMsg`. Every order of a batch counts against the trading rate
// windows. The orders of a batch are checked one by one, then submitted together, so the engine host applies
// them in one batch and one log append.
//
// Builder attribution: a request may carry builder headers (builder-signing-sdk, auth/builderHmac.ts) beside
// its L2 headers, checked before the body is read (invalid ones: 401). The route's guard checks both; then the
// server checks the body against orderSchemas.ts (its refusals: `Invalid order payload: <what>`). An order whose signed `builder` is zero
// is then attributed to that builder's code (builderCodes.ts); a signed non-zero code is kept as signed.

import { ApiError } from '../http/apiErrors.js';
import { ok, type RouteDef } from '../http/apiTypes.js';
import { apiKeyRateKey } from '../http/rateLimiter.js';
import { builderOf, confirmL2, requireL2, takeDeferredMac, type Caller } from './authenticate.js';
import { attributed } from './builderCodes.js';
import { admitOrder, type PlaceOrderSubmission } from './orderIntake.js';
import { MAX_BATCH_ORDERS, ORDER_BODY, ORDERS_BODY } from './orderSchemas.js';
import { failedItem, placementResult, ORDER_RESPONSE_SCHEMA, type OrderResponse } from './placementResult.js';
import type { TradingDeps } from './tradingDeps.js';

export { MAX_BATCH_ORDERS };

const ORDER_LIMITS = ['trade:order:burst', 'trade:order:sustained'] as const;
const ORDER_ERRORS = [
  'invalid_order_payload', 'order_owner_mismatch', 'order_signer_mismatch', 'maker_not_authorized', 'order_timestamp', 'market_mismatch',
  'engine_rejected', 'engine_rejected_not_found', 'unauthorized', 'readonly_key_refused', 'rate_limited', 'unavailable',
] as const;

/** Counts the orders of a batch beyond the first (which the route's admission counted) against the trade windows. */
function admitBatch(deps: TradingDeps, caller: Caller, count: number): void {
  if (deps.limiter === undefined || count <= 1) return;
  const admission = deps.limiter.admit(ORDER_LIMITS, apiKeyRateKey(caller.apiKey), deps.clock(), count - 1);
  if (!admission.ok) throw new ApiError('rate_limited', {}, { 'retry-after': String(admission.retryAfterSec) });
}

export function orderRoutes(deps: TradingDeps): RouteDef[] {
  const guard = (req: Parameters<NonNullable<RouteDef['guard']>>[0]): void => {
    requireL2(req, deps);
    builderOf(req, deps);
  };
  // POST /order leaves its HMAC comparison to the signature worker (authenticate.ts requireL2 with deferMac):
  // admitOrder hands it over with the order's signature, and any refusal before that compares it here first.
  const orderGuard = (req: Parameters<NonNullable<RouteDef['guard']>>[0]): void => {
    requireL2(req, deps, true);
    try {
      builderOf(req, deps);
    } catch (error) {
      confirmL2(req);
      throw error;
    }
  };
  return [
    {
      method: 'POST', path: '/order', surface: 'clob',
      summary: 'Place a signed V2 order. Body {order, owner, orderType: GTC|GTD|FOK|FAK, postOnly?, deferExec?}',
      response: ORDER_RESPONSE_SCHEMA, limits: ORDER_LIMITS, errors: ORDER_ERRORS, guard: orderGuard, confirm: confirmL2, body: ORDER_BODY,
      handler: async (req) => {
        const caller = requireL2(req, deps, true);
        const builder = builderOf(req, deps)?.address;
        const command = attributed(await admitOrder(req.body, caller, deps, () => takeDeferredMac(req)), builder);
        const result = placementResult(command.orderId, await deps.host.submit(command));
        if (result instanceof ApiError) throw result;
        return ok(result);
      },
    },
    {
      method: 'POST', path: '/orders', surface: 'clob',
      summary: `Place 1 to ${MAX_BATCH_ORDERS} signed V2 orders. Body: an array of POST /order bodies; one response each`,
      response: { type: 'array', items: ORDER_RESPONSE_SCHEMA }, limits: ORDER_LIMITS, errors: [...ORDER_ERRORS, 'too_many_orders'], guard, body: ORDERS_BODY,
      handler: async (req) => {
        const caller = requireL2(req, deps);
        const builder = builderOf(req, deps)?.address;
        const body = req.body;
        if (!Array.isArray(body) || body.length === 0) throw new ApiError('invalid_order_payload', { detail: 'the body must be a non-empty JSON array of orders' });
        if (body.length > MAX_BATCH_ORDERS) throw new ApiError('too_many_orders', { count: body.length, max: MAX_BATCH_ORDERS });
        admitBatch(deps, caller, body.length);
        const admitted = await Promise.all(
          body.map(async (item): Promise<PlaceOrderSubmission | ApiError> => {
            try {
              return attributed(await admitOrder(item, caller, deps), builder);
            } catch (error) {
              if (error instanceof ApiError) return error;
              throw error;
            }
          }),
        );
        const answers = await Promise.all(
          admitted.map(async (item): Promise<OrderResponse> => {
            if (item instanceof ApiError) return failedItem('', item);
            const result = placementResult(item.orderId, await deps.host.submit(item));
            return result instanceof ApiError ? failedItem(item.orderId, result) : result;
          }),
        );
        return ok(answers);
      },
    },
  ];
}
