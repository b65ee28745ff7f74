// The per-user and per-market reads served from the in-memory state (liveState.ts): GET /positions,
// GET /holders, GET /data/orders and GET /data/order/{id}. Each checks its parameters and shapes its answer
// with the read model's own functions (projections/readModel/), so for the same log position the answer is
// the one ClickHouse gives, byte for byte (test/projections/liveReads.test.ts compares them over generated
// histories). Only the rows come from memory instead of a query. GET /data/orders is sent as bytes: the JSON
// memory keeps of each open order shown (orderJsonCache.ts), joined.

import type { Outcome } from '../../engine/index.js';
import { ReadModelInputError } from '../readModel/errors.js';
import { baseUnitsAtLeastZero, idList, intIn, text } from '../readModel/inputs.js';
import type { MarketInfo } from '../readModel/markets.js';
import type { MarketMetadataSource } from '../readModel/metadata.js';
import { positionsFrom, positionsQuery, wantedRows, type Position, type PositionRow, type PositionsParams } from '../readModel/positions.js';
import { HOLDERS_DEFAULT_LIMIT, HOLDERS_MAX_LIMIT, HOLDERS_MAX_MARKETS, type HolderGroup, type HoldersParams } from '../readModel/holders.js';
import type { ReadContext } from '../readModel/context.js';
import {
  accountOrder,
  accountOrdersQuery,
  callerOf,
  endPage,
  orderPage,
  toOrder,
  type AccountOrder,
  type AccountOrderParams,
  type AccountOrdersParams,
  type OrderPage,
  type OrderRow,
  type OrderStatus,
} from '../readModel/accountOrders.js';
import { cursorFor, END_CURSOR } from '../readModel/cursor.js';
import { pageBytes } from '../readModel/jsonText.js';
import { assetOf, toFloat } from '../readModel/wire.js';
import type { OpenOrder } from '../builders/orders.js';
import type { PositionState } from '../builders/positions.js';
import type { LiveState } from './liveState.js';

/** The answer of liveAccountOrder() for an order memory no longer holds (or never held): ask ClickHouse. */
export const NOT_IN_MEMORY = Symbol('not in memory');

/** The markets among `ids` as the read model shows them (engine view from memory, metadata from the source). */
export async function liveMarkets(state: LiveState, metadata: MarketMetadataSource, conditionIds: readonly string[]): Promise<Map<string, MarketInfo>> {
  const ids = [...new Set(conditionIds)];
  const out = new Map<string, MarketInfo>();
  if (ids.length === 0) return out;
  const meta = await metadata(ids);
  for (const id of ids) out.set(id, state.marketInfo.infoOf(id, state.markets.markets.get(id), meta.get(id)));
  return out;
}

const positionRow = (p: PositionState): PositionRow => ({
  token_id: p.tokenId, condition_id: p.conditionId, outcome: p.outcome, size: p.size, cost: p.cost, total_bought: p.totalBought, realized_pnl: p.realizedPnl, updated_ms: p.updatedAt,
});

/** GET /positions. */
export async function livePositions(state: LiveState, metadata: MarketMetadataSource, params: PositionsParams): Promise<Position[]> {
  const q = positionsQuery(params);
  const markets = q.markets === undefined ? undefined : new Set(q.markets);
  const rows: PositionRow[] = [];
  for (const p of state.positions.positions.get(q.user)?.values() ?? []) {
    if (p.size > 0 && (markets === undefined || markets.has(p.conditionId))) rows.push(positionRow(p));
  }
  const wanted = wantedRows(q, rows);
  const marks = new Map<string, number>();
  for (const r of wanted) {
    const ref = state.markets.byToken.get(r.token_id);
    const mark = ref === undefined ? undefined : state.markOf(ref.market.conditionId, ref.outcome);
    if (mark !== undefined) marks.set(r.token_id, mark);
  }
  return positionsFrom(q, rows, await liveMarkets(state, metadata, wanted.map((r) => r.condition_id)), marks);
}

/** GET /holders: the same bounds and order as holders() (size descending, ties by address). */
export async function liveHolders(state: LiveState, metadata: MarketMetadataSource, params: HoldersParams): Promise<HolderGroup[]> {
  const markets = idList('market', params.market, HOLDERS_MAX_MARKETS);
  if (markets === undefined || markets.length === 0) throw new ReadModelInputError('market', 'is required');
  const limit = intIn('limit', params.limit, HOLDERS_DEFAULT_LIMIT, 0, HOLDERS_MAX_LIMIT);
  const minBalance = baseUnitsAtLeastZero('minBalance', params.minBalance, 1_000_000);
  const info = await liveMarkets(state, metadata, markets);
  const groups: HolderGroup[] = [];
  for (const conditionId of markets) {
    const m = info.get(conditionId);
    if (m === undefined || m.tokens[0] === '') continue;
    m.tokens.forEach((tokenId, outcome) => {
      const asset = assetOf(conditionId, outcome);
      const top = limit === 0 ? [] : topHolders(state, tokenId, conditionId, minBalance, limit);
      groups.push({
        token: asset,
        holders: top.map((h) => ({
          proxyWallet: h.account, bio: '', asset, pseudonym: '', amount: toFloat(h.size), displayUsernamePublic: false,
          outcomeIndex: outcome as Outcome, name: '', profileImage: '', profileImageOptimized: '',
        })),
      });
    });
  }
  return groups;
}

/** Larger first; equal sizes by account ascending (the order of holders()). */
function holderBefore(a: PositionState, b: PositionState): boolean {
  return a.size !== b.size ? a.size > b.size : a.account < b.account;
}

/** Most answers kept in LiveState.holdersCache; past it the cache starts afresh. */
const HOLDERS_CACHE_MAX = 10_000;

/**
 * The `limit` largest holders, in holderBefore order. Many clients ask for the same market's holders (a market
 * page shows them), and they change only when a position of the token does: an answer is kept, per token and
 * parameters, until the token's version (LiveState.tokenVersions, the last record that changed one of its
 * positions) moves on.
 */
function topHolders(state: LiveState, tokenId: string, conditionId: string, minBalance: number, limit: number): readonly PositionState[] {
  if (limit <= 0) return [];
  const version = state.tokenVersions.get(tokenId) ?? 0;
  const key = `${tokenId}|${conditionId}|${minBalance}|${limit}`;
  const kept = state.holdersCache.get(key);
  if (kept !== undefined && kept.version === version) return kept.top;
  const top = scanHolders(state, tokenId, conditionId, minBalance, limit);
  if (state.holdersCache.size >= HOLDERS_CACHE_MAX) state.holdersCache.clear();
  state.holdersCache.set(key, { version, top });
  return top;
}

/**
 * One pass over the token's holders keeping the best `limit` so far in a sorted array (a market has thousands
 * of holders and a page holds 20 by default, so nearly every holder is decided by one comparison with the
 * smallest kept, and nothing is sorted but the page).
 */
function scanHolders(state: LiveState, tokenId: string, conditionId: string, minBalance: number, limit: number): PositionState[] {
  const top: PositionState[] = [];
  for (const p of state.holdersByToken.get(tokenId) ?? []) {
    if (p.size <= 0 || p.size < minBalance || p.account === state.feeAccount || p.conditionId !== conditionId) continue;
    if (top.length === limit && !holderBefore(p, top[limit - 1] as PositionState)) continue;
    let i = top.length === limit ? limit - 1 : top.length;
    while (i > 0 && holderBefore(p, top[i - 1] as PositionState)) {
      top[i] = top[i - 1] as PositionState;
      i--;
    }
    top[i] = p;
  }
  return top;
}

const orderRow = (o: OpenOrder): OrderRow => ({
  order_id: o.id, account: o.account, owner: o.owner, condition_id: o.conditionId, token_id: o.tokenId, outcome: o.outcome, side: o.side, price: o.price,
  original_size: o.size, size_matched: o.matched, status: o.status as OrderStatus, order_type: o.orderType, expiration: o.expiration,
  associate_trades: [...o.trades], created_ms: o.createdAt,
});

/** GET /data/order/{id}: the caller's order, undefined when it is not the caller's, NOT_IN_MEMORY when memory cannot tell. */
export async function liveAccountOrder(state: LiveState, metadata: MarketMetadataSource, params: AccountOrderParams): Promise<AccountOrder | undefined | typeof NOT_IN_MEMORY> {
  const caller = callerOf(params.caller);
  const id = text('id', params.id);
  if (id === undefined || id === '') throw new ReadModelInputError('id', 'the order id is required');
  const o = state.order(id);
  if (o === undefined) return state.horizon > 0 ? NOT_IN_MEMORY : undefined;
  if (o.account !== caller) return undefined;
  const info = await liveMarkets(state, metadata, [o.conditionId]);
  return toOrder(orderRow(o), info.get(o.conditionId));
}

/** Newest first: created_at, then order id, descending (ClickHouse's ORDER BY created_ms DESC, order_id DESC). */
function newestFirst(a: OpenOrder, b: OpenOrder): number {
  if (a.createdAt !== b.createdAt) return b.createdAt - a.createdAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The caller's LIVE orders a page of GET /data/orders shows, from the offset on (one more says a page follows). */
function openOrderRows(state: LiveState, query: ReturnType<typeof accountOrdersQuery> & { offset: number }): OpenOrder[] {
  const { caller, id, market, assetId, limit, offset } = query;
  const open: OpenOrder[] = [];
  for (const o of state.openByAccount.get(caller)?.values() ?? []) {
    if ((id === undefined || o.id === id) && (market === undefined || o.conditionId === market) && (assetId === undefined || o.tokenId === assetId)) open.push(o);
  }
  open.sort(newestFirst);
  return open.slice(offset, offset + limit + 1);
}

/** GET /data/orders: the caller's LIVE orders, newest first. */
export async function liveAccountOrders(state: LiveState, metadata: MarketMetadataSource, params: AccountOrdersParams): Promise<OrderPage> {
  const query = accountOrdersQuery(params);
  const { limit, offset } = query;
  if (offset === 'end') return endPage(limit);
  const rows = openOrderRows(state, { ...query, offset }).map(orderRow);
  const shown = rows.slice(0, limit);
  return orderPage(limit, offset, rows, await liveMarkets(state, metadata, shown.map((r) => r.condition_id)));
}

/**
 * GET /data/orders as the bytes of the JSON text the route's schema serialiser would write for
 * liveAccountOrders' page (the page past the last, which has no orders, as that object), from the order JSON
 * memory keeps.
 */
export async function liveAccountOrdersJson(state: LiveState, metadata: MarketMetadataSource, params: AccountOrdersParams): Promise<Buffer | OrderPage> {
  const query = accountOrdersQuery(params);
  const { caller, limit, offset } = query;
  if (offset === 'end') return endPage(limit);
  // The caller's last page, sent again while none of its orders and no metadata changed (orderPageCache.ts).
  const generation = metadata.generation?.();
  const key = `${query.id ?? ''}\u0000${query.market ?? ''}\u0000${query.assetId ?? ''}\u0000${limit}\u0000${offset}`;
  if (generation !== undefined) {
    const kept = state.orderPages.get(caller, key, generation);
    if (kept !== undefined) return kept;
  }
  const pos = state.pos;
  const rows = openOrderRows(state, { ...query, offset });
  const count = Math.min(rows.length, limit);
  const info = await liveMarkets(state, metadata, rows.slice(0, count).map((o) => o.conditionId));
  const items: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const o = rows[i] as OpenOrder;
    items.push(state.orderJson.bytesOf(o, info.get(o.conditionId), orderRow));
  }
  const page = pageBytes(items, rows.length > limit ? cursorFor(offset + limit) : END_CURSOR, limit, count);
  // Kept only if no record was applied while the metadata was awaited (the rows and the texts are of one
  // position); one made across a new metadata generation is kept under the old one, which no read asks for.
  if (generation !== undefined && state.pos === pos) state.orderPages.keep(caller, key, generation, page);
  return page;
}

/**
 * GET /data/order/{id} from memory, or from ClickHouse for an order memory no longer holds: once the
 * projector has reached the horizon (every order that left memory is stored by then), which it normally has.
 */
export async function accountOrderAnywhere(
  state: LiveState,
  ctx: ReadContext,
  projection: { waitFor(pos: number, timeoutMs?: number): Promise<void> },
  params: AccountOrderParams,
): Promise<AccountOrder | undefined> {
  const found = await liveAccountOrder(state, ctx.metadata, params);
  if (found !== NOT_IN_MEMORY) return found;
  await projection.waitFor(state.horizon);
  return accountOrder(ctx, params);
}
