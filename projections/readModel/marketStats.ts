// Figures of a market across its holders: GET /oi (open interest), GET /v1/market-positions (every wallet's
// position in a market, with PnL) and GET /live-volume (an event's volume, per market). Shaped here for every
// store (liveMarketStats.ts answers the first two from memory, byte for byte); volumes are ClickHouse's.
//
//   open interest     the collateral locked in the market's full sets that someone holds: the outcome-0 tokens
//                     held by everyone (the fee account too), or once resolved the winning tokens held: the
//                     engine's `locked`, less (once NO won) the NO that neg-risk conversions burned, which stay
//                     locked but are no one's and are never redeemed
//   market position   every wallet that ever held one of its tokens (total_bought > 0), the fee account left
//                     out; OPEN: size > 0.01 share, CLOSED: size <= 0.01, ALL; avgPrice = cost / size while
//                     held, total_cost / total_bought once closed; currentValue and cashPnl as /positions;
//                     totalPnl = cashPnl + realizedPnl; ties by wallet address
//   volume            Σ of the taker side's collateral over the market's fills (Σ usdcSize of /trades?market=)

import type { Outcome } from '../../engine/index.js';
import { ReadModelInputError } from './errors.js';
import { idList, intIn, oneOf, text } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { loadMarkets, outcomeLabel, type MarketInfo } from './markets.js';
import { latestMarks } from './marks.js';
import { curPriceOf, valueOf } from './portfolio.js';
import { assetOf, toFloat } from './wire.js';

// ---- GET /oi ----

export interface OpenInterest {
  market: string;
  value: number;
}

/** The token whose holdings are a market's open interest: outcome 0's, or the winner's once resolved. */
export function interestToken(m: MarketInfo): string {
  return m.tokens[m.winningOutcome ?? 0];
}

export function oiMarkets(params: { readonly market?: readonly string[] }): readonly string[] | undefined {
  return idList('market', params.market, 1_000);
}

/** The answer: each market (known to the engine, in the order given) with the holdings of its interest token. */
export function oiFrom(markets: readonly MarketInfo[], held: ReadonlyMap<string, number>): OpenInterest[] {
  return markets.filter((m) => m.tokens[0] !== '').map((m) => ({ market: m.conditionId, value: toFloat(held.get(interestToken(m)) ?? 0) }));
}

export async function openInterest(ctx: ReadContext, params: { readonly market?: readonly string[] }): Promise<OpenInterest[]> {
  const asked = oiMarkets(params);
  const ids = asked ?? (await select<{ c: string }>(ctx, `SELECT DISTINCT condition_id AS c FROM ${ctx.db}.engine_markets ORDER BY c`)).map((r) => r.c);
  const info = await loadMarkets(ctx, ids);
  const markets = ids.map((id) => info.get(id) as MarketInfo);
  const tokens = markets.filter((m) => m.tokens[0] !== '').map(interestToken);
  const rows = tokens.length === 0 ? [] : await select<{ token_id: string; n: number }>(
    ctx,
    `SELECT token_id, sum(size) AS n FROM ${ctx.db}.positions FINAL WHERE token_id IN {tokens:Array(String)} AND size > 0 GROUP BY token_id`,
    { tokens },
  );
  return oiFrom(markets, new Map(rows.map((r) => [r.token_id, Number(r.n)])));
}

// ---- GET /v1/market-positions ----

export const MARKET_POSITION_SORTS = ['TOKENS', 'CASH_PNL', 'REALIZED_PNL', 'TOTAL_PNL'] as const;
export const MARKET_POSITION_STATUSES = ['OPEN', 'CLOSED', 'ALL'] as const;
export const MARKET_POSITIONS_DEFAULT_LIMIT = 50;
export const MARKET_POSITIONS_MAX_LIMIT = 500;
export const MARKET_POSITIONS_MAX_OFFSET = 10_000;
/** OPEN: more than 0.01 share held (upstream's line). */
const OPEN_ABOVE = 10_000;

export interface MarketPositionsParams {
  readonly market: string;
  readonly user?: string;
  readonly status?: string;
  readonly sortBy?: string;
  readonly sortDirection?: string;
  readonly limit?: number;
  readonly offset?: number;
}

export interface MarketPosition {
  proxyWallet: string;
  name: string;
  profileImage: string;
  verified: boolean;
  asset: string;
  conditionId: string;
  avgPrice: number;
  size: number;
  currPrice: number;
  currentValue: number;
  cashPnl: number;
  totalBought: number;
  realizedPnl: number;
  totalPnl: number;
  outcome: string;
  outcomeIndex: number;
}

export interface MarketPositionGroup {
  /** `<condition_id>:<outcome_index>`, as /holders' token. */
  token: string;
  positions: MarketPosition[];
}

/** A wallet's stored position in the market (integers; from ClickHouse or memory). */
export interface MarketPositionRow {
  readonly account: string;
  readonly token_id: string;
  readonly size: number;
  readonly cost: number;
  readonly total_bought: number;
  readonly total_cost: number;
  readonly realized_pnl: number;
}

export interface MarketPositionsQuery {
  readonly market: string;
  readonly user: string | undefined;
  readonly status: (typeof MARKET_POSITION_STATUSES)[number];
  readonly sortBy: (typeof MARKET_POSITION_SORTS)[number];
  readonly direction: 'ASC' | 'DESC';
  readonly limit: number;
  readonly offset: number;
}

export function marketPositionsQuery(params: MarketPositionsParams): MarketPositionsQuery {
  const [market] = idList('market', params.market === undefined ? undefined : [params.market], 1) ?? [];
  if (market === undefined) throw new ReadModelInputError('market', 'is required');
  return {
    market,
    user: text('user', params.user),
    status: oneOf('status', params.status, MARKET_POSITION_STATUSES, 'ALL'),
    sortBy: oneOf('sortBy', params.sortBy, MARKET_POSITION_SORTS, 'TOTAL_PNL'),
    direction: oneOf('sortDirection', params.sortDirection, ['ASC', 'DESC'] as const, 'DESC'),
    limit: intIn('limit', params.limit, MARKET_POSITIONS_DEFAULT_LIMIT, 0, MARKET_POSITIONS_MAX_LIMIT),
    offset: intIn('offset', params.offset, 0, 0, MARKET_POSITIONS_MAX_OFFSET),
  };
}

/** Whether a row is one the query shows (the fee account is left out by the caller). */
export function wantedPosition(q: MarketPositionsQuery, r: { readonly account: string; readonly size: number; readonly total_bought: number }): boolean {
  if (r.total_bought <= 0 || (q.user !== undefined && r.account !== q.user)) return false;
  return q.status === 'ALL' || (q.status === 'OPEN') === r.size > OPEN_ABOVE;
}

function toMarketPosition(conditionId: string, r: MarketPositionRow, outcome: Outcome, m: MarketInfo, mark: number | undefined): MarketPosition {
  const cur = curPriceOf(outcome, m, mark);
  const current = valueOf(r.size, cur);
  const cash = current - r.cost;
  return {
    proxyWallet: r.account,
    name: '',
    profileImage: '',
    verified: false,
    asset: assetOf(conditionId, outcome),
    conditionId,
    avgPrice: r.size > 0 ? r.cost / r.size : r.total_bought > 0 ? r.total_cost / r.total_bought : 0,
    size: toFloat(r.size),
    currPrice: toFloat(cur),
    currentValue: toFloat(current),
    cashPnl: toFloat(cash),
    totalBought: toFloat(r.total_bought),
    realizedPnl: toFloat(r.realized_pnl),
    totalPnl: toFloat(cash + r.realized_pnl),
    outcome: outcomeLabel(m, outcome),
    outcomeIndex: outcome,
  };
}

function sortValue(p: MarketPosition, by: MarketPositionsQuery['sortBy']): number {
  switch (by) {
    case 'TOKENS': return p.size;
    case 'CASH_PNL': return p.cashPnl;
    case 'REALIZED_PNL': return p.realizedPnl;
    case 'TOTAL_PNL': return p.totalPnl;
  }
}

/** The answer from the market's wanted rows (any order), the market and its tokens' marks. */
export function marketPositionsFrom(q: MarketPositionsQuery, m: MarketInfo | undefined, rows: readonly MarketPositionRow[], marks: ReadonlyMap<string, number>): MarketPositionGroup[] {
  if (m === undefined || m.tokens[0] === '') return [];
  const sign = q.direction === 'ASC' ? 1 : -1;
  return m.tokens.map((tokenId, outcome) => {
    const list = rows.filter((r) => r.token_id === tokenId).map((r) => toMarketPosition(q.market, r, outcome as Outcome, m, marks.get(tokenId)));
    list.sort((a, b) => {
      const ka = sortValue(a, q.sortBy);
      const kb = sortValue(b, q.sortBy);
      if (ka !== kb) return (ka < kb ? -1 : 1) * sign;
      return a.proxyWallet < b.proxyWallet ? -1 : a.proxyWallet > b.proxyWallet ? 1 : 0;
    });
    return { token: assetOf(q.market, outcome), positions: list.slice(q.offset, q.offset + q.limit) };
  });
}

export async function marketPositions(ctx: ReadContext, params: MarketPositionsParams): Promise<MarketPositionGroup[]> {
  const q = marketPositionsQuery(params);
  const info = await loadMarkets(ctx, [q.market]);
  const m = info.get(q.market);
  if (m === undefined || m.tokens[0] === '') return [];
  const rows = q.limit === 0 ? [] : await select<MarketPositionRow>(
    ctx,
    `SELECT account, token_id, size, cost, total_bought, total_cost, realized_pnl FROM ${ctx.db}.positions FINAL
      WHERE condition_id = {market:String} AND total_bought > 0 AND account != {fee:String}${q.user === undefined ? '' : ' AND account = {user:String}'}`,
    { market: q.market, fee: ctx.feeAccount, user: q.user ?? '' },
  );
  const marks = await latestMarks(ctx, [...m.tokens]);
  return marketPositionsFrom(q, m, rows.filter((r) => wantedPosition(q, r)), marks);
}

// ---- GET /live-volume ----

export interface MarketVolume {
  market: string;
  value: number;
}

export interface EventVolume {
  total: number;
  markets: MarketVolume[];
}

/** The volume of each of `markets` (an event's, in catalog order), and their total. */
export async function eventVolume(ctx: ReadContext, markets: readonly string[]): Promise<EventVolume[]> {
  const rows = markets.length === 0 ? [] : await select<{ c: string; v: number }>(
    ctx,
    `SELECT condition_id AS c, sum(taker_amount) AS v FROM ${ctx.db}.fills WHERE condition_id IN {markets:Array(String)} GROUP BY condition_id`,
    { markets },
  );
  const byMarket = new Map(rows.map((r) => [r.c, Number(r.v)]));
  let total = 0;
  const out: MarketVolume[] = [];
  for (const market of markets) {
    const v = byMarket.get(market) ?? 0;
    total += v;
    out.push({ market, value: toFloat(v) });
  }
  return [{ total: toFloat(total), markets: out }];
}
