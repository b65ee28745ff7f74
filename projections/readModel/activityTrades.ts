// GET /trades (activity surface, spec §2.1, §4.2): fills as each wallet saw them, newest first, from
// fill_sides (one row per side of a fill). takerOnly (default true) keeps the taker side only; with
// takerOnly=false a fill appears twice, once per wallet, taker side first.

import { ReadModelInputError } from './errors.js';
import { baseUnitsAtLeastZero, idList, intIn, oneOf, text } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { loadMarkets, outcomeLabel, type MarketInfo } from './markets.js';
import { FALLBACK_METADATA } from './metadata.js';
import { SqlFilters } from './sqlFilters.js';
import { assetOf, toFloat, transactionHashOf } from './wire.js';

export const ACTIVITY_TRADES_DEFAULT_LIMIT = 100;
export const ACTIVITY_TRADES_MAX_LIMIT = 10_000;
export const ACTIVITY_TRADES_MAX_OFFSET = 10_000;

export interface ActivityTradesParams {
  readonly limit?: number;
  readonly offset?: number;
  readonly takerOnly?: boolean;
  /** CASH: usdcSize >= filterAmount; TOKENS: size >= filterAmount. Given together with filterAmount or not at all. */
  readonly filterType?: string;
  readonly filterAmount?: number;
  /** Condition ids. */
  readonly market?: readonly string[];
  readonly user?: string;
  readonly side?: string;
}

/** Spec §2.1. Profiles do not exist here: name, pseudonym, bio and the images are ''. */
export interface ActivityTrade {
  proxyWallet: string;
  side: 'BUY' | 'SELL';
  asset: string;
  conditionId: string;
  size: number;
  price: number;
  timestamp: number;
  usdcSize: number;
  title: string;
  slug: string;
  icon: string;
  eventSlug: string;
  outcome: string;
  outcomeIndex: number;
  name: string;
  pseudonym: string;
  bio: string;
  profileImage: string;
  profileImageOptimized: string;
  transactionHash: string;
}

/** One side of a fill as the wallet saw it (a fill_sides row); the store that holds it does not matter. */
export interface TradeSideRow {
  readonly fill_id: string;
  readonly time_ms: number;
  readonly account: string;
  readonly condition_id: string;
  readonly outcome: number;
  readonly side: 'BUY' | 'SELL';
  readonly price: number;
  readonly size: number;
  readonly amount: number;
}

/** The checked parameters of a trades read. Thresholds in base units. */
export interface ActivityTradesQuery {
  readonly limit: number;
  readonly offset: number;
  readonly takerOnly: boolean;
  readonly filterType: 'CASH' | 'TOKENS' | undefined;
  readonly threshold: number;
  readonly markets: readonly string[] | undefined;
  readonly user: string | undefined;
  readonly side: 'BUY' | 'SELL' | undefined;
}

/** Checks the parameters (throws ReadModelInputError); shared by every store that serves the read. */
export function activityTradesQuery(params: ActivityTradesParams): ActivityTradesQuery {
  const limit = intIn('limit', params.limit, ACTIVITY_TRADES_DEFAULT_LIMIT, 0, ACTIVITY_TRADES_MAX_LIMIT);
  const offset = intIn('offset', params.offset, 0, 0, ACTIVITY_TRADES_MAX_OFFSET);
  if ((params.filterType === undefined) !== (params.filterAmount === undefined)) {
    throw new ReadModelInputError(params.filterType === undefined ? 'filterAmount' : 'filterType', 'filterType and filterAmount must be given together');
  }
  const filterType = oneOf('filterType', params.filterType, ['CASH', 'TOKENS'] as const);
  const threshold = baseUnitsAtLeastZero('filterAmount', params.filterAmount, 0);
  const markets = idList('market', params.market, 1_000);
  const user = text('user', params.user);
  const side = oneOf('side', params.side, ['BUY', 'SELL'] as const);
  return { limit, offset, takerOnly: params.takerOnly ?? true, filterType, threshold, markets, user, side };
}

/** A trade fill in the activity surface's shape (spec §2.1); `info` holds the row's market; `txHash` is transactionHashOf(r.fill_id). */
export function toActivityTrade(r: TradeSideRow, info: ReadonlyMap<string, MarketInfo>, txHash = transactionHashOf(r.fill_id)): ActivityTrade {
  const market = info.get(r.condition_id);
  const m = market ?? FALLBACK_METADATA;
  return {
    proxyWallet: r.account,
    side: r.side,
    asset: assetOf(r.condition_id, r.outcome),
    conditionId: r.condition_id,
    size: toFloat(r.size),
    price: toFloat(r.price),
    timestamp: Math.floor(r.time_ms / 1000),
    usdcSize: toFloat(r.amount),
    title: m.title,
    slug: m.slug,
    icon: m.icon,
    eventSlug: m.eventSlug,
    outcome: outcomeLabel(market, r.outcome),
    outcomeIndex: r.outcome,
    name: '',
    pseudonym: '',
    bio: '',
    profileImage: '',
    profileImageOptimized: '',
    transactionHash: txHash,
  };
}

export async function activityTrades(ctx: ReadContext, params: ActivityTradesParams = {}): Promise<ActivityTrade[]> {
  const q = activityTradesQuery(params);
  if (q.limit === 0) return [];

  const f = new SqlFilters({ limit: q.limit, offset: q.offset });
  if (q.takerOnly) f.add(`role = 'taker'`);
  if (q.user !== undefined) f.add('account = {user:String}', { user: q.user });
  if (q.markets !== undefined) f.add('condition_id IN {markets:Array(String)}', { markets: q.markets });
  if (q.side !== undefined) f.add('side = {side:String}', { side: q.side });
  if (q.filterType === 'CASH') f.add('amount >= {threshold:Int64}', { threshold: q.threshold });
  if (q.filterType === 'TOKENS') f.add('size >= {threshold:Int64}', { threshold: q.threshold });
  const rows = await select<TradeSideRow>(
    ctx,
    `SELECT fill_id, toUnixTimestamp64Milli(time) AS time_ms, account, condition_id, outcome, side, price, size, amount
       FROM ${ctx.db}.fill_sides ${f.where}
      ORDER BY time DESC, fill_id DESC, role DESC
      LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
    f.params,
  );
  const info = await loadMarkets(ctx, rows.map((r) => r.condition_id));
  return rows.map((r) => toActivityTrade(r, info));
}
