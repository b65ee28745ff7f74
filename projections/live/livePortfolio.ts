// GET /value, /closed-positions, /traded, /oi and /v1/market-positions from the in-memory state: the rows come
// from memory (positions, the holders index, the fill windows), the answers from the read model's own
// functions (readModel/portfolio.ts, marketStats.ts), so they are ClickHouse's byte for byte at the same log
// position (test/projections/dataApiReads.test.ts). /traded needs every fill of the wallet: a wallet whose
// older fills memory no longer holds answers NOT_IN_MEMORY (the caller asks ClickHouse).

import type { MarketMetadataSource } from '../readModel/metadata.js';
import { closedFrom, closedPositionsQuery, isClosed, tradedUser, valueFrom, valueQuery, type ClosedPosition, type ClosedPositionsParams, type HeldPosition, type Traded, type Value, type ValueParams } from '../readModel/portfolio.js';
import { marketPositionsFrom, marketPositionsQuery, oiFrom, oiMarkets, interestToken, wantedPosition, type MarketPositionGroup, type MarketPositionRow, type MarketPositionsParams, type OpenInterest } from '../readModel/marketStats.js';
import type { MarketInfo } from '../readModel/markets.js';
import type { PositionState } from '../builders/positions.js';
import type { HeldFill } from './fillWindows.js';
import { liveMarkets, NOT_IN_MEMORY } from './liveReads.js';
import type { LiveState } from './liveState.js';

const heldRow = (p: PositionState): HeldPosition => ({
  token_id: p.tokenId, condition_id: p.conditionId, outcome: p.outcome, size: p.size, cost: p.cost, total_bought: p.totalBought, total_cost: p.totalCost,
  realized_pnl: p.realizedPnl, updated_ms: p.updatedAt,
});

/** The user's positions that pass `keep`, in the markets asked. */
export function userRows(state: LiveState, user: string, markets: readonly string[] | undefined, keep: (p: PositionState) => boolean): HeldPosition[] {
  const only = markets === undefined ? undefined : new Set(markets);
  const rows: HeldPosition[] = [];
  for (const p of state.positions.positions.get(user)?.values() ?? []) if (keep(p) && (only === undefined || only.has(p.conditionId))) rows.push(heldRow(p));
  return rows;
}

/** The latest marks of these tokens (those that have one). */
export function marksOf(state: LiveState, tokenIds: Iterable<string>): Map<string, number> {
  const marks = new Map<string, number>();
  for (const tokenId of tokenIds) {
    const ref = state.markets.byToken.get(tokenId);
    const mark = ref === undefined ? undefined : state.markOf(ref.market.conditionId, ref.outcome);
    if (mark !== undefined) marks.set(tokenId, mark);
  }
  return marks;
}

/** GET /value. */
export async function liveValue(state: LiveState, metadata: MarketMetadataSource, params: ValueParams): Promise<Value[]> {
  const q = valueQuery(params);
  const rows = userRows(state, q.user, q.markets, (p) => p.size > 0);
  return valueFrom(q.user, rows, await liveMarkets(state, metadata, rows.map((r) => r.condition_id)), marksOf(state, rows.map((r) => r.token_id)));
}

/** GET /closed-positions. */
export async function liveClosedPositions(state: LiveState, metadata: MarketMetadataSource, params: ClosedPositionsParams): Promise<ClosedPosition[]> {
  const q = closedPositionsQuery(params);
  if (q.limit === 0) return [];
  const rows = userRows(state, q.user, q.markets, (p) => isClosed({ size: p.size, total_bought: p.totalBought }));
  return closedFrom(q, rows, await liveMarkets(state, metadata, rows.map((r) => r.condition_id)), marksOf(state, rows.map((r) => r.token_id)));
}

/** GET /traded, or NOT_IN_MEMORY when memory does not hold every fill of the wallet. */
export function liveTraded(state: LiveState, params: { readonly user: string }): Traded | typeof NOT_IN_MEMORY {
  const user = tradedUser(params);
  const held = state.fillsOf(user);
  if (held === undefined || !held.complete) return NOT_IN_MEMORY;
  const markets = new Set<string>();
  for (let i = held.from; i < held.fills.length; i++) markets.add((held.fills[i] as HeldFill).condition_id);
  return { user, traded: markets.size };
}

/** Every market the engine listed, by condition id (GET /oi without `market`). */
function allMarkets(state: LiveState): string[] {
  return [...state.markets.markets.keys()].sort();
}

/** GET /oi. */
export async function liveOpenInterest(state: LiveState, metadata: MarketMetadataSource, params: { readonly market?: readonly string[] }): Promise<OpenInterest[]> {
  const ids = oiMarkets(params) ?? allMarkets(state);
  const info = await liveMarkets(state, metadata, ids);
  const markets = ids.map((id) => info.get(id) as MarketInfo);
  const held = new Map<string, number>();
  for (const m of markets) {
    if (m.tokens[0] === '') continue;
    const token = interestToken(m);
    let total = 0;
    for (const p of state.holdersByToken.get(token) ?? []) if (p.size > 0) total += p.size;
    held.set(token, total);
  }
  return oiFrom(markets, held);
}

/** GET /v1/market-positions. */
export async function liveMarketPositions(state: LiveState, metadata: MarketMetadataSource, params: MarketPositionsParams): Promise<MarketPositionGroup[]> {
  const q = marketPositionsQuery(params);
  const m = (await liveMarkets(state, metadata, [q.market])).get(q.market);
  if (m === undefined || m.tokens[0] === '') return [];
  const rows: MarketPositionRow[] = [];
  if (q.limit > 0) {
    for (const tokenId of m.tokens) {
      for (const p of state.holdersByToken.get(tokenId) ?? []) {
        if (p.account === state.feeAccount || p.conditionId !== q.market) continue;
        const r: MarketPositionRow = { account: p.account, token_id: p.tokenId, size: p.size, cost: p.cost, total_bought: p.totalBought, total_cost: p.totalCost, realized_pnl: p.realizedPnl };
        if (wantedPosition(q, r)) rows.push(r);
      }
    }
  }
  return marketPositionsFrom(q, m, rows, marksOf(state, m.tokens));
}
