// GET /trades (activity surface, spec §2.1, §4.2): fills as each wallet saw them, newest first, from
// fill_sides (one row per side of a fill). takerOnly (default true) keeps the taker side only; with
// takerOnly=false a fill appears twice, once per wallet, taker side first.

import { ReadModelInputError } from './errors.js';
import { baseUnitsAtLeastZero, idList, intIn, oneOf, text } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { loadMarkets, outcomeLabel } from './markets.js';
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

interface SideRow {
  fill_id: string;
  time_ms: number;
  account: string;
  condition_id: string;
  outcome: number;
  side: 'BUY' | 'SELL';
  price: number;
  size: number;
  amount: number;
}

export async function activityTrades(ctx: ReadContext, params: ActivityTradesParams = {}): Promise<ActivityTrade[]> {
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
  if (limit === 0) return [];

  const f = new SqlFilters({ limit, offset });
  if (params.takerOnly ?? true) f.add(`role = 'taker'`);
  if (user !== undefined) f.add('account = {user:String}', { user });
  if (markets !== undefined) f.add('condition_id IN {markets:Array(String)}', { markets });
  if (side !== undefined) f.add('side = {side:String}', { side });
  if (filterType === 'CASH') f.add('amount >= {threshold:Int64}', { threshold });
  if (filterType === 'TOKENS') f.add('size >= {threshold:Int64}', { threshold });
  const rows = await select<SideRow>(
    ctx,
    `SELECT fill_id, toUnixTimestamp64Milli(time) AS time_ms, account, condition_id, outcome, side, price, size, amount
       FROM ${ctx.db}.fill_sides ${f.where}
      ORDER BY time DESC, fill_id DESC, role DESC
      LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
    f.params,
  );
  const info = await loadMarkets(ctx, rows.map((r) => r.condition_id));
  return rows.map((r) => {
    const m = info.get(r.condition_id) ?? { ...FALLBACK_METADATA };
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
      outcome: outcomeLabel(info.get(r.condition_id), r.outcome),
      outcomeIndex: r.outcome,
      name: '',
      pseudonym: '',
      bio: '',
      profileImage: '',
      profileImageOptimized: '',
      transactionHash: transactionHashOf(r.fill_id),
    };
  });
}
