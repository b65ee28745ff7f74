// Orders in the CLOB shape (upstream-conventions §2.7): GET /data/order/{id} (one order of the caller, in
// any status) and GET /data/orders (the caller's LIVE orders). Read from `orders FINAL`, the latest state of
// every order. Sizes are share decimals, the price a decimal, `outcome` the market's label, `created_at`
// integer Unix seconds and `expiration` Unix seconds as a string ("0" = none). `maker_address` is the
// account whose balances fund the order (the signed order's maker), as the engine stores it (lower-case).
// Open orders come newest first (created_at, then order id, descending) in offset pages behind base64
// cursors (cursor.ts).
//
// Cost: one order by id is a primary-key lookup; the open orders of an account scan `orders` (ordered by
// order id), which is fine at this size and wants a projection ordered by (account, status) beyond it.

import { ReadModelInputError } from './errors.js';
import { intIn, text } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { cursorFor, END_CURSOR, parseCursor } from './cursor.js';
import { loadMarkets, outcomeLabel, type MarketInfo } from './markets.js';
import { SqlFilters } from './sqlFilters.js';
import { toDecimal } from './wire.js';

export const ACCOUNT_ORDERS_DEFAULT_PAGE = 100;
export const ACCOUNT_ORDERS_MAX_PAGE = 1_000;

export type OrderStatus = 'LIVE' | 'MATCHED' | 'CANCELED' | 'EXPIRED' | 'CANCELED_MARKET_RESOLVED';

/** The flat order of upstream's OpenOrder. */
export interface AccountOrder {
  id: string;
  status: OrderStatus;
  owner: string;
  maker_address: string;
  market: string;
  asset_id: string;
  side: 'BUY' | 'SELL';
  original_size: string;
  size_matched: string;
  price: string;
  outcome: string;
  expiration: string;
  order_type: string;
  associate_trades: string[];
  /** Unix seconds. */
  created_at: number;
}

export interface OrderPage {
  data: AccountOrder[];
  next_cursor: string;
  limit: number;
  count: number;
}

/** A stored order (integers; from ClickHouse or memory). */
export interface OrderRow {
  order_id: string;
  account: string;
  owner: string;
  condition_id: string;
  token_id: string;
  outcome: number;
  side: 'BUY' | 'SELL';
  price: number;
  original_size: number;
  size_matched: number;
  status: OrderStatus;
  order_type: string;
  expiration: number;
  associate_trades: string[];
  created_ms: number;
}

const COLUMNS = `order_id, account, owner, condition_id, token_id, outcome, side, price, original_size, size_matched, status, order_type,
  expiration, associate_trades, toUnixTimestamp64Milli(created_at) AS created_ms`;

export function toOrder(r: OrderRow, m: MarketInfo | undefined): AccountOrder {
  return {
    id: r.order_id,
    status: r.status,
    owner: r.owner,
    maker_address: r.account,
    market: r.condition_id,
    asset_id: r.token_id,
    side: r.side,
    original_size: toDecimal(Number(r.original_size)),
    size_matched: toDecimal(Number(r.size_matched)),
    price: toDecimal(Number(r.price)),
    outcome: outcomeLabel(m, Number(r.outcome)),
    expiration: String(r.expiration),
    order_type: r.order_type,
    associate_trades: r.associate_trades,
    created_at: Math.floor(Number(r.created_ms) / 1000),
  };
}

export function callerOf(value: string): string {
  const caller = text('caller', value);
  if (caller === undefined || caller === '') throw new ReadModelInputError('caller', 'the authenticated address is required');
  return caller;
}

/**
 * Rows of `orders` as they stand now. The account and key filters go inside FINAL (they never change
 * between an order's versions); the status filter only after it, so an older LIVE version of a finished
 * order never shows.
 */
async function latest(ctx: ReadContext, f: SqlFilters, after: string, tail = '', params: Record<string, unknown> = {}): Promise<OrderRow[]> {
  return select<OrderRow>(ctx, `SELECT * FROM (SELECT ${COLUMNS} FROM ${ctx.db}.orders FINAL ${f.where}) ${after} ${tail}`, { ...f.params, ...params });
}

export interface AccountOrderParams {
  /** The authenticated account: another account's order is not found. */
  readonly caller: string;
  readonly id: string;
}

/** GET /data/order/{id}: the caller's order in whatever status it is, or undefined. */
export async function accountOrder(ctx: ReadContext, params: AccountOrderParams): Promise<AccountOrder | undefined> {
  const caller = callerOf(params.caller);
  const id = text('id', params.id);
  if (id === undefined || id === '') throw new ReadModelInputError('id', 'the order id is required');
  const rows = await latest(ctx, new SqlFilters().add('order_id = {id:String}', { id }).add('account = {caller:String}', { caller }), '');
  const row = rows[0];
  if (row === undefined) return undefined;
  const info = await loadMarkets(ctx, [row.condition_id]);
  return toOrder(row, info.get(row.condition_id));
}

export interface AccountOrdersParams {
  readonly caller: string;
  /** One order id. */
  readonly id?: string;
  /** Condition id. */
  readonly market?: string;
  /** Token id. */
  readonly assetId?: string;
  readonly nextCursor?: string;
  /** Page size (the server's choice on the wire); default 100. */
  readonly limit?: number;
}

/** The checked parameters of an open-orders read; offset 'end' = the cursor that follows the last page. */
export interface AccountOrdersQuery {
  readonly caller: string;
  readonly id: string | undefined;
  readonly market: string | undefined;
  readonly assetId: string | undefined;
  readonly limit: number;
  readonly offset: number | 'end';
}

/** Checks the parameters (throws ReadModelInputError); shared by every store that serves the read. */
export function accountOrdersQuery(params: AccountOrdersParams): AccountOrdersQuery {
  const caller = callerOf(params.caller);
  const id = text('id', params.id);
  const market = text('market', params.market);
  const assetId = text('asset_id', params.assetId);
  const limit = intIn('limit', params.limit, ACCOUNT_ORDERS_DEFAULT_PAGE, 1, ACCOUNT_ORDERS_MAX_PAGE);
  return { caller, id, market, assetId, limit, offset: parseCursor('next_cursor', params.nextCursor) };
}

/** The page of an open-orders read from its rows from the offset on (at most limit + 1: one more says a page follows). */
export function orderPage(limit: number, offset: number, rows: readonly OrderRow[], info: ReadonlyMap<string, MarketInfo>): OrderPage {
  const shown = rows.slice(0, limit);
  return {
    data: shown.map((r) => toOrder(r, info.get(r.condition_id))),
    next_cursor: rows.length > limit ? cursorFor(offset + limit) : END_CURSOR,
    limit,
    count: shown.length,
  };
}

/** The answer past the last page. */
export const endPage = (limit: number): OrderPage => ({ data: [], next_cursor: END_CURSOR, limit, count: 0 });

/** GET /data/orders: the caller's LIVE orders, newest first. */
export async function accountOrders(ctx: ReadContext, params: AccountOrdersParams): Promise<OrderPage> {
  const { caller, id, market, assetId, limit, offset } = accountOrdersQuery(params);
  if (offset === 'end') return endPage(limit);
  const f = new SqlFilters().add('account = {caller:String}', { caller });
  if (id !== undefined) f.add('order_id = {id:String}', { id });
  if (market !== undefined) f.add('condition_id = {market:String}', { market });
  if (assetId !== undefined) f.add('token_id = {asset:String}', { asset: assetId });
  const rows = await latest(ctx, f, `WHERE status = 'LIVE'`, 'ORDER BY created_ms DESC, order_id DESC LIMIT {limit:UInt32} OFFSET {offset:UInt32}', {
    limit: limit + 1,
    offset,
  });
  const shown = rows.slice(0, limit);
  return orderPage(limit, offset, rows, await loadMarkets(ctx, shown.map((r) => r.condition_id)));
}
