// GET /positions (spec §2.2, §4.2; PnL fields per upstream conventions §6.1). One row per token the user
// holds (size > 0 and size >= sizeThreshold), from `positions` (average-cost basis, see
// projections/builders/positions.ts). Values, in shares and USDC:
//   avgPrice = cost / size               initialValue = size × avgPrice (= cost)
//   curPrice = latest mark (marks.ts); 1 or 0 once the market is resolved
//   currentValue = size × curPrice       cashPnl = currentValue − initialValue
//   percentPnl = cashPnl / initialValue × 100
//   percentRealizedPnl = (realizedPnl + currentValue − totalBought × avgPrice) / (totalBought × avgPrice) × 100
//     (upstream's formula as inferred from real rows; equals percentPnl when nothing was sold)
// Percentages are 0 when their base is 0; a token with no mark yet has curPrice 0.
// redeemable: the market is resolved (and size > 0). mergeable: the market is not resolved and the user
// also holds the other outcome (the engine refuses merges after resolution).
// Sorting happens here rather than in SQL because TITLE and RESOLVING sort on metadata; a user's positions
// are one primary-key range of `positions`. Ties go by conditionId, then outcomeIndex, ascending.

import { PRICE_ONE } from '../../engine/index.js';
import { ReadModelInputError } from './errors.js';
import { baseUnitsAtLeastZero, idList, intIn, oneOf, text } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { loadMarkets, outcomeLabel, type MarketInfo } from './markets.js';
import { latestMarks } from './marks.js';
import { SqlFilters } from './sqlFilters.js';
import { assetOf, toFloat } from './wire.js';

export const POSITION_SORTS = ['CURRENT', 'INITIAL', 'TOKENS', 'CASHPNL', 'PERCENTPNL', 'TITLE', 'RESOLVING', 'PRICE', 'AVGPRICE'] as const;
export type PositionSort = (typeof POSITION_SORTS)[number];

export interface PositionsParams {
  readonly user: string;
  readonly market?: readonly string[];
  /** Shares; default 1. */
  readonly sizeThreshold?: number;
  readonly redeemable?: boolean;
  readonly mergeable?: boolean;
  readonly limit?: number;
  readonly offset?: number;
  readonly sortBy?: string;
  readonly sortDirection?: string;
  /** Case-insensitive substring of the market title, at most 100 characters. */
  readonly title?: string;
}

export interface Position {
  proxyWallet: string;
  asset: string;
  conditionId: string;
  size: number;
  avgPrice: number;
  initialValue: number;
  currentValue: number;
  cashPnl: number;
  percentPnl: number;
  totalBought: number;
  realizedPnl: number;
  percentRealizedPnl: number;
  curPrice: number;
  redeemable: boolean;
  mergeable: boolean;
  title: string;
  slug: string;
  icon: string;
  eventId: string;
  eventSlug: string;
  outcome: string;
  outcomeIndex: number;
  oppositeOutcome: string;
  oppositeAsset: string;
  endDate: string;
  negativeRisk: boolean;
  timestamp: number;
}

/** A stored position (integers; from ClickHouse or memory). */
export interface PositionRow {
  token_id: string;
  condition_id: string;
  outcome: number;
  size: number;
  cost: number;
  total_bought: number;
  realized_pnl: number;
  updated_ms: number;
}

/** Money rounded to the base unit (removes float noise such as 0.30000000000000004). */
const money = (baseUnits: number): number => Math.round(baseUnits) / 1_000_000;
const percent = (part: number, whole: number): number => (whole === 0 ? 0 : (part / whole) * 100);

function sortKey(p: Position, by: PositionSort): number | string {
  switch (by) {
    case 'CURRENT': return p.currentValue;
    case 'INITIAL': return p.initialValue;
    case 'TOKENS': return p.size;
    case 'CASHPNL': return p.cashPnl;
    case 'PERCENTPNL': return p.percentPnl;
    case 'TITLE': return p.title.toLowerCase();
    case 'RESOLVING': return p.endDate;
    case 'PRICE': return p.curPrice;
    case 'AVGPRICE': return p.avgPrice;
  }
}

function toPosition(user: string, r: PositionRow, m: MarketInfo | undefined, mark: number | undefined, heldTokens: ReadonlySet<string>): Position {
  const outcome = r.outcome === 1 ? 1 : 0;
  const other = outcome === 1 ? 0 : 1;
  const resolved = m?.winningOutcome !== null && m?.winningOutcome !== undefined;
  const cur = resolved ? (m?.winningOutcome === outcome ? PRICE_ONE : 0) : (mark ?? 0);
  const size = Number(r.size);
  const cost = Number(r.cost);
  const totalBought = Number(r.total_bought);
  const avgPrice = size === 0 ? 0 : cost / size;
  const currentBase = (size * cur) / PRICE_ONE;
  const boughtBasis = totalBought * avgPrice;
  const realized = Number(r.realized_pnl);
  const oppositeToken = m?.tokens[other] ?? '';
  return {
    proxyWallet: user,
    asset: assetOf(r.condition_id, outcome),
    conditionId: r.condition_id,
    size: toFloat(size),
    avgPrice,
    initialValue: money(cost),
    currentValue: money(currentBase),
    cashPnl: money(currentBase - cost),
    percentPnl: percent(currentBase - cost, cost),
    totalBought: toFloat(totalBought),
    realizedPnl: money(realized),
    percentRealizedPnl: percent(realized + currentBase - boughtBasis, boughtBasis),
    curPrice: toFloat(cur),
    redeemable: resolved,
    mergeable: !resolved && oppositeToken !== '' && heldTokens.has(oppositeToken),
    title: m?.title ?? '',
    slug: m?.slug ?? '',
    icon: m?.icon ?? '',
    eventId: m?.eventId ?? '',
    eventSlug: m?.eventSlug ?? '',
    outcome: outcomeLabel(m, outcome),
    outcomeIndex: outcome,
    oppositeOutcome: outcomeLabel(m, other),
    oppositeAsset: assetOf(r.condition_id, other),
    endDate: m?.endDate ?? '',
    negativeRisk: m?.negRisk ?? false,
    timestamp: Math.floor(Number(r.updated_ms) / 1000),
  };
}

/** The checked parameters of a positions read. */
export interface PositionsQuery {
  readonly user: string;
  readonly markets: readonly string[] | undefined;
  /** Base units. */
  readonly threshold: number;
  readonly limit: number;
  readonly offset: number;
  readonly sortBy: PositionSort;
  readonly direction: 'ASC' | 'DESC';
  /** Lower case; undefined or '' for none. */
  readonly title: string | undefined;
  readonly redeemable: boolean;
  readonly mergeable: boolean;
}

/** Checks the parameters (throws ReadModelInputError); shared by every store that serves the read. */
export function positionsQuery(params: PositionsParams): PositionsQuery {
  const user = text('user', params.user);
  if (user === undefined || user === '') throw new ReadModelInputError('user', 'is required');
  return {
    user,
    markets: idList('market', params.market, 1_000),
    threshold: baseUnitsAtLeastZero('sizeThreshold', params.sizeThreshold, 1_000_000),
    limit: intIn('limit', params.limit, 100, 0, 500),
    offset: intIn('offset', params.offset, 0, 0, 10_000),
    sortBy: oneOf('sortBy', params.sortBy, POSITION_SORTS, 'TOKENS'),
    direction: oneOf('sortDirection', params.sortDirection, ['ASC', 'DESC'] as const, 'DESC'),
    title: text('title', params.title, 100)?.toLowerCase(),
    redeemable: params.redeemable === true,
    mergeable: params.mergeable === true,
  };
}

/**
 * The answer from the user's positions with size > 0 (in `q.markets` when given, whatever the threshold:
 * mergeable needs the other outcome's), their markets and the latest marks of their tokens.
 */
export function positionsFrom(q: PositionsQuery, rows: readonly PositionRow[], info: ReadonlyMap<string, MarketInfo>, marks: ReadonlyMap<string, number>): Position[] {
  const held = new Set(rows.map((r) => r.token_id));
  let out = rows.filter((r) => Number(r.size) >= q.threshold).map((r) => toPosition(q.user, r, info.get(r.condition_id), marks.get(r.token_id), held));
  if (q.redeemable) out = out.filter((p) => p.redeemable);
  if (q.mergeable) out = out.filter((p) => p.mergeable);
  return titledPage(out, q, (p) => sortKey(p, q.sortBy));
}

/** A page of a wallet's positions (open or closed): those whose title holds `title` (lower case) when given. */
interface PageAsk {
  readonly title: string | undefined;
  readonly direction: 'ASC' | 'DESC';
  readonly offset: number;
  readonly limit: number;
}

/**
 * The page of rows asked: filtered by title, sorted by `key` in the direction asked, ties by condition id and
 * outcome ascending (one order for every store: /positions and /closed-positions).
 */
export function titledPage<T extends { readonly title: string; readonly conditionId: string; readonly outcomeIndex: number }>(rows: T[], q: PageAsk, key: (row: T) => string | number): T[] {
  const title = q.title;
  const out = title !== undefined && title !== '' ? rows.filter((p) => p.title.toLowerCase().includes(title)) : rows;
  const sign = q.direction === 'ASC' ? 1 : -1;
  out.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    if (ka !== kb) return (ka < kb ? -1 : 1) * sign;
    if (a.conditionId !== b.conditionId) return a.conditionId < b.conditionId ? -1 : 1;
    return a.outcomeIndex - b.outcomeIndex;
  });
  return out.slice(q.offset, q.offset + q.limit);
}

/** The rows positionsFrom() wants. */
export function wantedRows(q: PositionsQuery, rows: readonly PositionRow[]): PositionRow[] {
  return rows.filter((r) => Number(r.size) >= q.threshold);
}

export async function positions(ctx: ReadContext, params: PositionsParams): Promise<Position[]> {
  const q = positionsQuery(params);
  const f = new SqlFilters({ user: q.user }).add('account = {user:String}').add('size > 0');
  if (q.markets !== undefined) f.add('condition_id IN {markets:Array(String)}', { markets: q.markets });
  const rows = await select<PositionRow>(
    ctx,
    `SELECT token_id, condition_id, outcome, size, cost, total_bought, realized_pnl, toUnixTimestamp64Milli(updated_at) AS updated_ms
       FROM ${ctx.db}.positions FINAL ${f.where}`,
    f.params,
  );
  const wanted = wantedRows(q, rows);
  const [info, marks] = await Promise.all([loadMarkets(ctx, wanted.map((r) => r.condition_id)), latestMarks(ctx, wanted.map((r) => r.token_id))]);
  return positionsFrom(q, rows, info, marks);
}
