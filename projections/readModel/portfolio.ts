// A wallet's portfolio beyond GET /positions: GET /value (the value of its positions at current prices),
// GET /closed-positions (positions it no longer holds, with what they realised) and GET /traded (how many
// markets it traded). Shaped here for every store (livePortfolio.ts answers from memory, byte for byte).
//
//   value            Σ over the positions held (size > 0) of size × curPrice, each rounded to the base unit as
//                    /positions rounds its currentValue: /value = Σ /positions?sizeThreshold=0 currentValue
//   closed position  size 0 after holding some (total_bought > 0): sold, merged or redeemed away.
//                    avgPrice = total_cost / total_bought (the average buy price; splits count 0.50 a side),
//                    realizedPnl as /positions, curPrice the token's price now (1 or 0 once resolved),
//                    timestamp = the last change (when it closed)
//   traded           distinct markets with a fill of the wallet (either side; splits and merges are not trades)

import { PRICE_ONE } from '../../engine/index.js';
import { ReadModelInputError } from './errors.js';
import { idList, intIn, oneOf, text } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { loadMarkets, outcomeLabel, type MarketInfo } from './markets.js';
import { latestMarks } from './marks.js';
import { titledPage } from './positions.js';
import { SqlFilters } from './sqlFilters.js';
import { assetOf, toFloat } from './wire.js';

/** The price of a token now (micro-units): 1 or 0 once its market is resolved, else its mark (0 without one). */
export function curPriceOf(outcome: number, m: MarketInfo | undefined, mark: number | undefined): number {
  const winning = m?.winningOutcome;
  if (winning !== null && winning !== undefined) return winning === outcome ? PRICE_ONE : 0;
  return mark ?? 0;
}

/** size × price in base units, rounded as /positions rounds currentValue. */
export function valueOf(size: number, price: number): number {
  return Math.round((size * price) / PRICE_ONE);
}

/** A stored position as these reads need it (integers; from ClickHouse or memory). */
export interface HeldPosition {
  readonly token_id: string;
  readonly condition_id: string;
  readonly outcome: number;
  readonly size: number;
  readonly cost: number;
  readonly total_bought: number;
  readonly total_cost: number;
  readonly realized_pnl: number;
  readonly updated_ms: number;
}

// ---- GET /value ----

export interface ValueParams {
  readonly user: string;
  readonly market?: readonly string[];
}

export interface Value {
  user: string;
  value: number;
}

export function valueQuery(params: ValueParams): { user: string; markets: readonly string[] | undefined } {
  const user = text('user', params.user);
  if (user === undefined || user === '') throw new ReadModelInputError('user', 'is required');
  return { user, markets: idList('market', params.market, 1_000) };
}

/** The answer from the user's held positions (size > 0, in the markets asked), their markets and marks. */
export function valueFrom(user: string, rows: readonly HeldPosition[], info: ReadonlyMap<string, MarketInfo>, marks: ReadonlyMap<string, number>): Value[] {
  let total = 0;
  for (const r of rows) total += valueOf(r.size, curPriceOf(r.outcome, info.get(r.condition_id), marks.get(r.token_id)));
  return [{ user, value: toFloat(total) }];
}

const POSITION_COLUMNS = `token_id, condition_id, outcome, size, cost, total_bought, total_cost, realized_pnl, toUnixTimestamp64Milli(updated_at) AS updated_ms`;

/** The user's stored positions that pass `where` (fixed SQL), in the markets asked. */
export async function storedPositions(ctx: ReadContext, user: string, markets: readonly string[] | undefined, where: string): Promise<HeldPosition[]> {
  const f = new SqlFilters({ user }).add('account = {user:String}').add(where);
  if (markets !== undefined) f.add('condition_id IN {markets:Array(String)}', { markets });
  const rows = await select<HeldPosition>(ctx, `SELECT ${POSITION_COLUMNS} FROM ${ctx.db}.positions FINAL ${f.where}`, f.params);
  return rows.map((r) => ({ ...r, outcome: Number(r.outcome), updated_ms: Number(r.updated_ms) }));
}

export async function value(ctx: ReadContext, params: ValueParams): Promise<Value[]> {
  const q = valueQuery(params);
  const rows = await storedPositions(ctx, q.user, q.markets, 'size > 0');
  const [info, marks] = await Promise.all([loadMarkets(ctx, rows.map((r) => r.condition_id)), latestMarks(ctx, rows.map((r) => r.token_id))]);
  return valueFrom(q.user, rows, info, marks);
}

// ---- GET /closed-positions ----

export const CLOSED_SORTS = ['REALIZEDPNL', 'TITLE', 'PRICE', 'AVGPRICE', 'TIMESTAMP'] as const;
export const CLOSED_DEFAULT_LIMIT = 10;
export const CLOSED_MAX_LIMIT = 50;
export const CLOSED_MAX_OFFSET = 100_000;

export interface ClosedPositionsParams {
  readonly user: string;
  readonly market?: readonly string[];
  readonly title?: string;
  readonly limit?: number;
  readonly offset?: number;
  readonly sortBy?: string;
  readonly sortDirection?: string;
}

export interface ClosedPosition {
  proxyWallet: string;
  asset: string;
  conditionId: string;
  avgPrice: number;
  totalBought: number;
  realizedPnl: number;
  curPrice: number;
  timestamp: number;
  title: string;
  slug: string;
  icon: string;
  eventSlug: string;
  outcome: string;
  outcomeIndex: number;
  oppositeOutcome: string;
  oppositeAsset: string;
  endDate: string;
}

export interface ClosedPositionsQuery {
  readonly user: string;
  readonly markets: readonly string[] | undefined;
  /** Lower case; undefined or '' for none. */
  readonly title: string | undefined;
  readonly limit: number;
  readonly offset: number;
  readonly sortBy: (typeof CLOSED_SORTS)[number];
  readonly direction: 'ASC' | 'DESC';
}

export function closedPositionsQuery(params: ClosedPositionsParams): ClosedPositionsQuery {
  const user = text('user', params.user);
  if (user === undefined || user === '') throw new ReadModelInputError('user', 'is required');
  return {
    user,
    markets: idList('market', params.market, 1_000),
    title: text('title', params.title, 100)?.toLowerCase(),
    limit: intIn('limit', params.limit, CLOSED_DEFAULT_LIMIT, 0, CLOSED_MAX_LIMIT),
    offset: intIn('offset', params.offset, 0, 0, CLOSED_MAX_OFFSET),
    sortBy: oneOf('sortBy', params.sortBy, CLOSED_SORTS, 'REALIZEDPNL'),
    direction: oneOf('sortDirection', params.sortDirection, ['ASC', 'DESC'] as const, 'DESC'),
  };
}

/** Whether a stored position is closed: none held now, some held before. */
export const isClosed = (r: { readonly size: number; readonly total_bought: number }): boolean => r.size === 0 && r.total_bought > 0;

function toClosed(user: string, r: HeldPosition, m: MarketInfo | undefined, mark: number | undefined): ClosedPosition {
  const outcome = r.outcome === 1 ? 1 : 0;
  const other = outcome === 1 ? 0 : 1;
  return {
    proxyWallet: user,
    asset: assetOf(r.condition_id, outcome),
    conditionId: r.condition_id,
    avgPrice: r.total_bought === 0 ? 0 : r.total_cost / r.total_bought,
    totalBought: toFloat(r.total_bought),
    realizedPnl: toFloat(r.realized_pnl),
    curPrice: toFloat(curPriceOf(outcome, m, mark)),
    timestamp: Math.floor(r.updated_ms / 1000),
    title: m?.title ?? '',
    slug: m?.slug ?? '',
    icon: m?.icon ?? '',
    eventSlug: m?.eventSlug ?? '',
    outcome: outcomeLabel(m, outcome),
    outcomeIndex: outcome,
    oppositeOutcome: outcomeLabel(m, other),
    oppositeAsset: assetOf(r.condition_id, other),
    endDate: m?.endDate ?? '',
  };
}

function closedKey(p: ClosedPosition, by: ClosedPositionsQuery['sortBy']): number | string {
  switch (by) {
    case 'REALIZEDPNL': return p.realizedPnl;
    case 'TITLE': return p.title.toLowerCase();
    case 'PRICE': return p.curPrice;
    case 'AVGPRICE': return p.avgPrice;
    case 'TIMESTAMP': return p.timestamp;
  }
}

/** The answer from the user's closed positions (in the markets asked), their markets and marks. */
export function closedFrom(q: ClosedPositionsQuery, rows: readonly HeldPosition[], info: ReadonlyMap<string, MarketInfo>, marks: ReadonlyMap<string, number>): ClosedPosition[] {
  const out = rows.map((r) => toClosed(q.user, r, info.get(r.condition_id), marks.get(r.token_id)));
  return titledPage(out, q, (p) => closedKey(p, q.sortBy));
}

export async function closedPositions(ctx: ReadContext, params: ClosedPositionsParams): Promise<ClosedPosition[]> {
  const q = closedPositionsQuery(params);
  if (q.limit === 0) return [];
  const rows = await storedPositions(ctx, q.user, q.markets, 'size = 0 AND total_bought > 0');
  const [info, marks] = await Promise.all([loadMarkets(ctx, rows.map((r) => r.condition_id)), latestMarks(ctx, rows.map((r) => r.token_id))]);
  return closedFrom(q, rows, info, marks);
}

// ---- GET /traded ----

export interface Traded {
  user: string;
  traded: number;
}

export function tradedUser(params: { readonly user: string }): string {
  const user = text('user', params.user);
  if (user === undefined || user === '') throw new ReadModelInputError('user', 'is required');
  return user;
}

export async function traded(ctx: ReadContext, params: { readonly user: string }): Promise<Traded> {
  const user = tradedUser(params);
  const [row] = await select<{ n: number }>(ctx, `SELECT uniqExact(condition_id) AS n FROM ${ctx.db}.fill_sides WHERE account = {user:String}`, { user });
  return { user, traded: Number(row?.n ?? 0) };
}
