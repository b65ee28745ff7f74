// GET /v1/leaderboard: traders ranked by PnL or by volume over the last day, week, month or all time, over
// every market or one category's (the catalog's tag of that name), or one trader's standing. ClickHouse's.
//
//   vol   Σ of the collateral of the trader's fills in the period (both roles; Σ usdcSize of /activity TRADE)
//   pnl   what the trader's positions made in the period: PnL now − PnL at the period's start, where a
//         trader's PnL at a time is Σ over its positions as they stood then of realizedPnl − cost + size ×
//         the token's price then (1 or 0 once resolved, else its mark). All time, that is Σ /positions
//         realizedPnl + cashPnl + Σ /closed-positions realizedPnl (the cash it made trading plus /value)
//   rank  the place in (metric descending, address ascending), from 1; `user`: that trader's entry alone
// The fee account is no trader and is left out; traders are the accounts that ever traded, split, merged,
// redeemed or converted (in the category's markets, for one).
//
// A board is computed whole, for every trader, by one ClickHouse query (computeBoard), and kept
// (leaderboardBoards.ts): PnL now moves with every mark, so ranking by it reads every position held, far too
// much for one request at scale (10M fills over 100k addresses: 4M positions, ~1 s), while a kept board
// answers a page or a standing from memory. All time over every market takes the volumes and the traders
// from `account_totals` (one row per account, builders/accountTotals.ts) instead of every fill.

import { PRICE_ONE } from '../../engine/index.js';
import { ReadModelInputError } from './errors.js';
import { intIn, oneOf, text } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { loadMarkets, type MarketInfo } from './markets.js';
import { latestMarks, MARK_SQL } from './marks.js';
import { curPriceOf } from './portfolio.js';
import { toFloat } from './wire.js';

export const LEADERBOARD_CATEGORIES = ['OVERALL', 'POLITICS', 'SPORTS', 'CRYPTO', 'CULTURE', 'MENTIONS', 'WEATHER', 'ECONOMICS', 'TECH', 'FINANCE'] as const;
export const TIME_PERIODS = ['DAY', 'WEEK', 'MONTH', 'ALL'] as const;
export type TimePeriod = (typeof TIME_PERIODS)[number];
export const LEADERBOARD_ORDERS = ['PNL', 'VOL'] as const;
export const LEADERBOARD_DEFAULT_LIMIT = 25;
export const LEADERBOARD_MAX_LIMIT = 50;
export const LEADERBOARD_MAX_OFFSET = 1_000;

const DAY_MS = 86_400_000;
/** The start of each period, `ms` before now (ALL: none). */
export const PERIOD_MS: Readonly<Record<TimePeriod, number | undefined>> = { DAY: DAY_MS, WEEK: 7 * DAY_MS, MONTH: 30 * DAY_MS, ALL: undefined };

export interface LeaderboardParams {
  readonly category?: string;
  readonly timePeriod?: string;
  readonly orderBy?: string;
  readonly limit?: number;
  readonly offset?: number;
  readonly user?: string;
  readonly userName?: string;
}

export interface LeaderboardEntry {
  rank: string;
  proxyWallet: string;
  userName: string;
  vol: number;
  pnl: number;
  profileImage: string;
  xUsername: string;
  verifiedBadge: boolean;
}

export interface LeaderboardQuery {
  readonly category: (typeof LEADERBOARD_CATEGORIES)[number];
  readonly period: TimePeriod;
  readonly orderBy: 'PNL' | 'VOL';
  readonly limit: number;
  readonly offset: number;
  readonly user: string | undefined;
  readonly userName: string | undefined;
}

export function leaderboardQuery(params: LeaderboardParams): LeaderboardQuery {
  return {
    category: oneOf('category', params.category, LEADERBOARD_CATEGORIES, 'OVERALL'),
    period: oneOf('timePeriod', params.timePeriod, TIME_PERIODS, 'DAY'),
    orderBy: oneOf('orderBy', params.orderBy, LEADERBOARD_ORDERS, 'PNL'),
    limit: intIn('limit', params.limit, LEADERBOARD_DEFAULT_LIMIT, 1, LEADERBOARD_MAX_LIMIT),
    offset: intIn('offset', params.offset, 0, 0, LEADERBOARD_MAX_OFFSET),
    user: text('user', params.user),
    userName: text('userName', params.userName, 100),
  };
}

const entry = (rank: number, account: string, vol: number, pnl: number): LeaderboardEntry => ({
  rank: String(rank), proxyWallet: account, userName: '', vol: toFloat(vol), pnl: toFloat(pnl), profileImage: '', xUsername: '', verifiedBadge: false,
});

// ---- Any period, any category: the fills and the positions ----

/** SQL of each trader's volume in the period and markets: (account, metric). */
function volumeSql(db: string, startMs: number | undefined, markets: readonly string[] | undefined): string {
  return `SELECT account, sum(amount) AS metric FROM ${db}.fill_sides
           WHERE account != {fee:String}${startMs === undefined ? '' : ' AND time >= fromUnixTimestamp64Milli({start:Int64})'}${markets === undefined ? '' : ' AND condition_id IN {markets:Array(String)}'}
           GROUP BY account`;
}

/**
 * SQL of each trader's PnL in the period and markets: (account, metric). PnL now − PnL at the start, each
 * position valued at the prices of its time (parallel arrays tokens, now, then; rounded as valueOf). The
 * positions as they stand come from `positions FINAL` (a merge of the sorted parts, ~1 s at 4M positions,
 * where grouping every version by (account, token) took ~25 s). A position unchanged since the start stood
 * then as it stands now; only those changed since are read as they stood before it (the latest version
 * before the start; none: nothing held).
 */
function pnlSql(db: string, startMs: number | undefined, markets: readonly string[] | undefined): string {
  const value = (size: string, prices: string): string => `if(${size} > 0, intDiv(toInt128(${size}) * transform(token_id, {tokens:Array(String)}, {${prices}:Array(Int64)}, toInt64(0)) + ${PRICE_ONE / 2}, ${PRICE_ONE}), 0)`;
  const where = `account != {fee:String}${markets === undefined ? '' : ' AND condition_id IN {markets:Array(String)}'}`;
  const start = 'fromUnixTimestamp64Milli({start:Int64})';
  if (startMs === undefined) {
    return `SELECT account, toInt64(sum(realized_pnl - cost + ${value('size', 'now')})) AS metric FROM ${db}.positions FINAL WHERE ${where} GROUP BY account`;
  }
  return `SELECT account, toInt64(sum(p)) AS metric FROM (
            SELECT account, realized_pnl - cost + ${value('size', 'now')} - if(updated_at < ${start}, realized_pnl - cost + ${value('size', 'then')}, 0) AS p
              FROM ${db}.positions FINAL WHERE ${where}
            UNION ALL
            SELECT account, -(t.3 - t.2 + ${value('t.1', 'then')}) AS p FROM (
              SELECT account, token_id, argMax((size, cost, realized_pnl), version) AS t FROM ${db}.positions
               WHERE ${where} AND updated_at < ${start}
                 AND (account, token_id) IN (SELECT account, token_id FROM ${db}.positions WHERE ${where} AND updated_at >= ${start})
               GROUP BY account, token_id))
          GROUP BY account`;
}

/** Every token of `markets` (all markets: undefined) with its price now and at `startMs` (as /positions prices it). */
async function priceArrays(ctx: ReadContext, markets: readonly string[] | undefined, startMs: number | undefined): Promise<{ tokens: string[]; now: number[]; then: number[] }> {
  const ids = markets ?? (await select<{ c: string }>(ctx, `SELECT DISTINCT condition_id AS c FROM ${ctx.db}.engine_markets`)).map((r) => r.c);
  const info = [...(await loadMarkets(ctx, ids)).values()].filter((m) => m.tokens[0] !== '');
  const tokens = info.flatMap((m) => [...m.tokens]);
  const marks = await latestMarks(ctx, tokens);
  const now = info.flatMap((m) => m.tokens.map((tokenId, outcome) => curPriceOf(outcome, m, marks.get(tokenId))));
  const then = startMs === undefined ? new Map<string, number>() : await pricesAt(ctx, info, startMs);
  return { tokens, now, then: tokens.map((t) => then.get(t) ?? 0) };
}

/** Each token's price at `ms`: 1 or 0 if its market was resolved by then, else its mark at the end of the last minute before. */
async function pricesAt(ctx: ReadContext, markets: readonly MarketInfo[], ms: number): Promise<Map<string, number>> {
  const ids = markets.map((m) => m.conditionId);
  const tokens = markets.flatMap((m) => [...m.tokens]);
  const [winners, marks] = await Promise.all([
    select<{ c: string; w: number }>(
      ctx,
      `SELECT condition_id AS c, argMax(winning_outcome, version) AS w FROM ${ctx.db}.engine_markets
        WHERE condition_id IN {ids:Array(String)} AND updated_at < fromUnixTimestamp64Milli({ms:Int64}) GROUP BY condition_id`,
      { ids, ms },
    ),
    select<{ token_id: string; mark: number }>(
      ctx,
      `SELECT token_id, argMax(m, minute) AS mark FROM (
         SELECT token_id, minute, argMax(${MARK_SQL}, version) AS m FROM ${ctx.db}.price_history
          WHERE token_id IN {tokens:Array(String)} AND minute < toStartOfMinute(fromUnixTimestamp64Milli({ms:Int64})) GROUP BY token_id, minute
       ) WHERE m IS NOT NULL GROUP BY token_id`,
      { tokens, ms },
    ),
  ]);
  const winner = new Map(winners.map((r) => [r.c, Number(r.w)]));
  const mark = new Map(marks.map((r) => [r.token_id, Number(r.mark)]));
  const out = new Map<string, number>();
  for (const m of markets) {
    const w = winner.get(m.conditionId) ?? -1;
    m.tokens.forEach((tokenId, outcome) => out.set(tokenId, w >= 0 ? (w === outcome ? PRICE_ONE : 0) : (mark.get(tokenId) ?? 0)));
  }
  return out;
}


/** One trader on a board: both metrics (base units). */
export interface BoardTrader {
  readonly account: string;
  readonly pnl: number;
  readonly vol: number;
}

/** A whole board: every trader, ranked by PnL and by volume, as of one log position and time. */
export interface Board {
  /** The projector's position the board was computed at. */
  readonly pos: number;
  /** When it was computed (ms). */
  readonly at: number;
  readonly byPnl: readonly BoardTrader[];
  readonly byVol: readonly BoardTrader[];
  /** Each trader's index in byPnl and in byVol. */
  readonly pnlRank: ReadonlyMap<string, number>;
  readonly volRank: ReadonlyMap<string, number>;
}

const rankedBy = (metric: 'pnl' | 'vol') => (a: BoardTrader, b: BoardTrader): number => (a[metric] !== b[metric] ? b[metric] - a[metric] : a.account < b.account ? -1 : a.account > b.account ? 1 : 0);

/**
 * Computes a board: every trader's PnL and volume in the period and markets (undefined: every market), read
 * at projector position `pos` (the caller's reading of it before the query).
 */
export async function computeBoard(ctx: ReadContext, period: TimePeriod, markets: readonly string[] | undefined, pos: number): Promise<Board> {
  const at = ctx.now();
  let rows: [string, number, number][] = [];
  if (markets === undefined || markets.length > 0) {
    const startMs = PERIOD_MS[period] === undefined ? undefined : at - (PERIOD_MS[period] as number);
    const prices = await priceArrays(ctx, markets, startMs);
    const params = { fee: ctx.feeAccount, start: startMs ?? 0, markets: markets ?? [], tokens: prices.tokens, now: prices.now, then: prices.then };
    const pnl = pnlSql(ctx.db, startMs, markets);
    const query =
      period === 'ALL' && markets === undefined
        ? `SELECT t.account, coalesce(p.metric, 0), t.volume FROM (SELECT account, volume FROM ${ctx.db}.account_totals FINAL WHERE account != {fee:String}) AS t
             LEFT JOIN (${pnl}) AS p USING (account)`
        : `SELECT a.account, coalesce(p.metric, 0), coalesce(v.metric, 0)
             FROM (SELECT DISTINCT account FROM ${ctx.db}.positions WHERE account != {fee:String}${markets === undefined ? '' : ' AND condition_id IN {markets:Array(String)}'}) AS a
             LEFT JOIN (${pnl}) AS p USING (account) LEFT JOIN (${volumeSql(ctx.db, startMs, markets)}) AS v USING (account)`;
    const result = await ctx.ch.query({ query, format: 'JSONCompactEachRow', query_params: params, clickhouse_settings: { output_format_json_quote_64bit_integers: 0, join_use_nulls: 1 } });
    rows = (await result.json()) as [string, number, number][];
  }
  const traders: BoardTrader[] = rows.map((r) => ({ account: r[0], pnl: Number(r[1]), vol: Number(r[2]) }));
  const byPnl = [...traders].sort(rankedBy('pnl'));
  const byVol = traders.sort(rankedBy('vol'));
  return { pos, at, byPnl, byVol, pnlRank: new Map(byPnl.map((t, i) => [t.account, i])), volRank: new Map(byVol.map((t, i) => [t.account, i])) };
}

/** What answers a leaderboard read: a board of the period and markets, kept or computed (leaderboardBoards.ts). */
export type BoardSource = (period: TimePeriod, markets: readonly string[] | undefined, category: string) => Promise<Board>;

/**
 * The leaderboard. `categoryMarkets`: the condition ids of the category's markets (from the catalog's tags;
 * undefined for OVERALL). No trader has a user name here: `userName` matches nobody.
 */
export async function leaderboard(params: LeaderboardParams, boards: BoardSource, categoryMarkets?: readonly string[]): Promise<LeaderboardEntry[]> {
  const q = leaderboardQuery(params);
  if (q.userName !== undefined) return [];
  if (q.category !== 'OVERALL' && categoryMarkets === undefined) throw new ReadModelInputError('category', 'needs the markets of the category');
  const board = await boards(q.period, q.category === 'OVERALL' ? undefined : categoryMarkets, q.category);
  const list = q.orderBy === 'PNL' ? board.byPnl : board.byVol;
  const show = (t: BoardTrader, i: number): LeaderboardEntry => entry(i + 1, t.account, t.vol, t.pnl);
  if (q.user !== undefined) {
    const i = (q.orderBy === 'PNL' ? board.pnlRank : board.volRank).get(q.user);
    return i === undefined ? [] : [show(list[i] as BoardTrader, i)];
  }
  return list.slice(q.offset, q.offset + q.limit).map((t, i) => show(t, q.offset + i));
}
