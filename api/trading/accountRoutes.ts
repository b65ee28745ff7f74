// The account reads of the CLOB surface (spec §2.10, §2.11, §4.3; upstream-conventions §2.7, §2.8), from the
// projections in ClickHouse through the read model (projections/readModel/accountOrders.ts, accountTrades.ts):
//
// - GET /data/order/{id} (L2): the caller's order in any status, as the spec's `order` wrapper and upstream's
//   flat fields in one object; another account's order is `Order not found` like a missing one.
// - GET /data/orders (L2): the caller's LIVE orders, `{data, next_cursor, limit, count}`.
// - GET /data/trades (L2): the caller's trades (as taker or maker), `{data, next_cursor, limit, count}`.
// - GET /builder/trades (no auth, as the V2 client sends none): trades attributed to builder codes, a bare
//   array of spec trades (spec §4.3). With `builder_code` (not a spec parameter; only the official client
//   sends it) the client's form instead: `{data: BuilderTrade[], next_cursor, limit, count}`.
//
// Each read authenticates with L2 headers or a read-only key of the account (authenticate.ts requireReader).
// Each read sees everything acknowledged so far (readYourWrites.ts), so an order or trade a POST returned is
// visible at once. The order reads, and the pages of GET /data/trades that lie within the caller's fills
// memory keeps, come from the in-memory read model when it runs (projections/live/: same answers, no wait
// for the projector; a page of orders or trades already as JSON, from the text memory keeps of each order or
// fill shown); the rest from ClickHouse once the projector holds everything acknowledged (an order memory no
// longer holds, an older page of trades, builder trades). Path and query parameters are checked after
// authentication (the routes' guard), against the schemas below, which state every rule of accountInputs.ts.

import { ApiError } from '../http/apiErrors.js';
import { ok, type ApiRequest, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { address, answering, BYTES32_PATTERN, conditionId, cursor, orderId, tokenId } from '../schemas/formats.js';
import { accountOrder, accountOrders, accountTrades, builderTrades, builderTradesPage, type AccountOrder } from '../../projections/readModel/index.js';
import { addressOf, assetOf, builderCodeOf, given, marketOf, orderIdOf } from './accountInputs.js';
import { BUILDER_TRADES_ANSWER, ORDER, ORDER_ANSWER, page, TRADE } from './accountSchemas.js';
import { requireReader } from './authenticate.js';
import { memoryCaughtUp, projectionsCaughtUp, projectionsReach } from './readYourWrites.js';
import { accountOrderAnywhere, liveAccountOrdersJson, NOT_IN_MEMORY } from '../../projections/live/liveReads.js';
import { liveAccountTradesJson } from '../../projections/live/liveTrades.js';
import type { TradingDeps } from './tradingDeps.js';

const AUTH_ERRORS = ['unauthorized', 'rate_limited', 'unavailable', 'internal'] as const;

/** The answer of GET /data/order/{id}: the spec's camelCase wrapper plus upstream's flat fields. */
export function orderAnswer(o: AccountOrder): Record<string, unknown> {
  return {
    order: {
      associateTrades: o.associate_trades,
      id: o.id,
      status: o.status,
      market: o.market,
      originalSize: o.original_size,
      outcome: o.outcome,
      makerAddress: o.maker_address,
      owner: o.owner,
      price: o.price,
      sizeMatched: o.size_matched,
      assetId: o.asset_id,
      side: o.side,
      type: o.order_type,
      createdAt: new Date(o.created_at * 1000).toISOString(),
    },
    ...o,
  };
}

/** Unix seconds as the trade reads take them: 1 to 12 digits. */
const seconds = (name: string, description: string): JsonSchema =>
  answering({ type: 'string', pattern: '^[0-9]{1,12}$', maxLength: 12, description: `${description} 1 to 12 digits.` }, { code: 'bad_request', detail: `${name}: must be a Unix timestamp in seconds` });

const TRADE_FILTERS: Record<string, JsonSchema> = {
  id: { type: 'string', maxLength: 100, description: 'Trade id.' },
  maker_address: address('maker_address', 'Account on either side of the trade (the official client sends the caller\'s own): 0x + 40 hex digits.'),
  market: conditionId(),
  asset_id: tokenId('Token id of either order.'),
  before: seconds('before', 'Unix seconds; trades strictly before.'),
  after: seconds('after', 'Unix seconds; trades strictly after.'),
  next_cursor: cursor(),
};

type Query = Readonly<Record<string, unknown>>;

function tradeFilters(q: Query): { id?: string; makerAddress?: string; market?: string; assetId?: string; before?: string; after?: string; nextCursor?: string } {
  return {
    id: given(q, 'id'),
    makerAddress: addressOf('maker_address', given(q, 'maker_address')),
    market: marketOf(given(q, 'market')),
    assetId: assetOf(given(q, 'asset_id')),
    before: given(q, 'before'),
    after: given(q, 'after'),
    nextCursor: given(q, 'next_cursor'),
  };
}

export function accountRoutes(deps: TradingDeps): RouteDef[] {
  const ctx = deps.reads;
  return [
    {
      method: 'GET', path: '/data/order/{id}', surface: 'clob', summary: "One of the caller's orders, in any status",
      guard: (r) => void requireReader(r, deps), params: { type: 'object', properties: { id: orderId() }, required: ['id'] },
      response: ORDER_ANSWER, errors: ['invalid_order_id', 'order_not_found', ...AUTH_ERRORS],
      handler: async (req: ApiRequest) => {
        const caller = requireReader(req, deps);
        const id = orderIdOf(req.params.id);
        const memory = await memoryCaughtUp(deps);
        if (memory === undefined) await projectionsCaughtUp(deps);
        const params = { caller: caller.account, id };
        const order = memory === undefined ? await accountOrder(ctx, params) : await accountOrderAnywhere(memory, ctx, { waitFor: (pos) => projectionsReach(deps, pos) }, params);
        if (order === undefined) throw new ApiError('order_not_found');
        return ok(orderAnswer(order));
      },
    },
    {
      method: 'GET', path: '/data/orders', surface: 'clob', summary: "The caller's open (LIVE) orders, newest first",
      guard: (r) => void requireReader(r, deps),
      query: {
        type: 'object',
        properties: {
          id: orderId(),
          market: conditionId(),
          asset_id: tokenId(),
          next_cursor: cursor(),
        },
      },
      response: page(ORDER), errors: ['invalid_order_id', 'invalid_market', 'invalid_token_id', 'bad_request', ...AUTH_ERRORS],
      handler: async (req: ApiRequest) => {
        const caller = requireReader(req, deps);
        const q = req.query;
        const id = given(q, 'id');
        const params = {
          caller: caller.account,
          id: id === undefined ? undefined : orderIdOf(id),
          market: marketOf(given(q, 'market')),
          assetId: assetOf(given(q, 'asset_id')),
          nextCursor: given(q, 'next_cursor'),
        };
        const memory = await memoryCaughtUp(deps);
        if (memory !== undefined) {
          const page = await liveAccountOrdersJson(memory, ctx.metadata, params);
          return Buffer.isBuffer(page) ? { status: 200, body: undefined, encoded: page } : ok(page);
        }
        await projectionsCaughtUp(deps);
        return ok(await accountOrders(ctx, params));
      },
    },
    {
      method: 'GET', path: '/data/trades', surface: 'clob', summary: "The caller's trades, as taker or maker, newest first",
      query: {
        type: 'object',
        properties: { ...TRADE_FILTERS, taker: address('taker', 'Address of the taker order.'), maker: address('maker', 'Address of the maker order.') },
      },
      guard: (r) => void requireReader(r, deps),
      response: page(TRADE), limits: ['clob:data-trades'],
      errors: ['invalid_market', 'invalid_token_id', 'bad_request', ...AUTH_ERRORS],
      handler: async (req: ApiRequest) => {
        const caller = requireReader(req, deps);
        const q = req.query;
        const params = { caller: caller.account, ...tradeFilters(q), taker: addressOf('taker', given(q, 'taker')), maker: addressOf('maker', given(q, 'maker')) };
        const memory = await memoryCaughtUp(deps);
        const page = memory === undefined ? NOT_IN_MEMORY : await liveAccountTradesJson(memory, ctx.metadata, params);
        if (Buffer.isBuffer(page)) return { status: 200, body: undefined, encoded: page };
        if (page !== NOT_IN_MEMORY) return ok(page);
        await projectionsCaughtUp(deps);
        return ok(await accountTrades(ctx, params));
      },
    },
    {
      method: 'GET', path: '/builder/trades', surface: 'clob',
      summary: 'Trades whose taker or maker order carried a builder code (no authentication): a bare array of trades (spec 4.3); with builder_code, the official client\'s page of BuilderTrade',
      query: {
        type: 'object',
        properties: {
          builder_code: answering(
            { type: 'string', pattern: BYTES32_PATTERN, maxLength: 66, description: 'Builder code (bytes32 hex), as the official client sends it: only its trades, in the client\'s form {data: BuilderTrade[], next_cursor, limit, count}. Absent or empty: every attributed trade, as a bare array (spec 4.3).' },
            'invalid_builder_trade_params',
          ),
          ...TRADE_FILTERS,
        },
      },
      response: BUILDER_TRADES_ANSWER, errors: ['invalid_builder_trade_params', 'invalid_market', 'invalid_token_id', 'bad_request', 'rate_limited', 'unavailable', 'internal'],
      handler: async (req: ApiRequest) => {
        const q = req.query;
        const params = { builderCode: builderCodeOf(given(q, 'builder_code')), ...tradeFilters(q) };
        await projectionsCaughtUp(deps);
        return ok(params.builderCode === undefined ? await builderTrades(ctx, params) : await builderTradesPage(ctx, params));
      },
    },
  ];
}
