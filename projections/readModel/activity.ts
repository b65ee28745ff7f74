// GET /activity (the public Data API's user timeline): a wallet's fills (TRADE, each side the wallet took)
// and its splits, merges, redemptions, conversions and liquidity rewards (SPLIT, MERGE, REDEEM, CONVERSION,
// REWARD), from `fill_sides` and `ledger_events`. MAKER_REBATE is an accepted filter: this venue pays no
// rebates, so it matches nothing. Rows are shaped here for every store (liveActivity.ts answers from memory, byte for byte).
//
// Order. Every row has an id in one id space: a fill's id, or tradeIdFor(seq) of a ledger event; ids grow
// with the log, and engine time never decreases along it, so TIMESTAMP sorts by (id, role), the log's order
// (a fill the wallet took both sides of: the taker side after the maker side, ascending). TOKENS sorts by
// size and CASH by usdcSize, ties in that same order, all in the one direction asked.
//
// Rows. TRADE: the side's token, side, own price, size in shares, usdcSize = size × price before fees (as
// GET /trades). Others, as upstream shows them: asset '', side '', price 0, outcomeIndex 999, outcome '';
// SPLIT and MERGE size = usdcSize = the full sets; REDEEM size = tokens burned, usdcSize = payout;
// CONVERSION size = NO tokens given per question, usdcSize = collateral received; REWARD size = usdcSize =
// the collateral paid. transactionHash: a fill's
// as GET /trades (transactionHashOf), a ledger event's `0x` + sha256 of `ledger:<seq>`.

import { hash } from 'node:crypto';
import { ReadModelInputError } from './errors.js';
import { idList, intIn, oneOf, text } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { loadMarkets, outcomeLabel, type MarketInfo } from './markets.js';
import { FALLBACK_METADATA } from './metadata.js';
import { SqlFilters } from './sqlFilters.js';
import { assetOf, toFloat, transactionHashOf } from './wire.js';

export const ACTIVITY_TYPES = ['TRADE', 'SPLIT', 'MERGE', 'REDEEM', 'REWARD', 'CONVERSION', 'MAKER_REBATE'] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];
export const ACTIVITY_SORTS = ['TIMESTAMP', 'TOKENS', 'CASH'] as const;
export const ACTIVITY_DEFAULT_LIMIT = 100;
export const ACTIVITY_MAX_LIMIT = 500;
export const ACTIVITY_MAX_OFFSET = 10_000;
/** upstream's outcomeIndex of rows that are not of one outcome. */
export const NO_OUTCOME = 999;

/** The ledger_events kind of each type that has one. */
export const LEDGER_KIND_OF: Partial<Record<ActivityType, string>> = { SPLIT: 'split', MERGE: 'merge', REDEEM: 'redeem', CONVERSION: 'convert', REWARD: 'reward' };
const TYPE_OF_KIND: Record<string, ActivityType> = { split: 'SPLIT', merge: 'MERGE', redeem: 'REDEEM', convert: 'CONVERSION', reward: 'REWARD' };

export interface ActivityParams {
  readonly user: string;
  /** Condition ids. */
  readonly market?: readonly string[];
  readonly type?: readonly string[];
  /** Unix seconds, inclusive. */
  readonly start?: number;
  readonly end?: number;
  readonly side?: string;
  readonly sortBy?: string;
  readonly sortDirection?: string;
  readonly limit?: number;
  readonly offset?: number;
}

export interface Activity {
  proxyWallet: string;
  timestamp: number;
  conditionId: string;
  type: ActivityType;
  size: number;
  usdcSize: number;
  transactionHash: string;
  price: number;
  asset: string;
  side: string;
  outcomeIndex: number;
  title: string;
  slug: string;
  icon: string;
  eventSlug: string;
  outcome: string;
  name: string;
  pseudonym: string;
  bio: string;
  profileImage: string;
  profileImageOptimized: string;
}

/** One activity row, integers, from either store. */
export interface ActivityRow {
  readonly type: ActivityType;
  /** The sort id: the fill's id, or tradeIdFor(seq) of the ledger event. */
  readonly id: string;
  /** 'taker' or 'maker' for a fill side, '' for a ledger event. */
  readonly role: string;
  /** The ledger event's sequence number; 0 for a fill. */
  readonly seq: number;
  readonly time_ms: number;
  readonly condition_id: string;
  /** The side's outcome; -1 for a ledger event. */
  readonly outcome: number;
  /** 'BUY' or 'SELL' for a fill side, '' for a ledger event. */
  readonly side: string;
  readonly price: number;
  readonly size: number;
  readonly amount: number;
}

/** The checked parameters of an activity read. */
export interface ActivityQuery {
  readonly user: string;
  readonly markets: readonly string[] | undefined;
  /** The types asked for (all when the parameter is absent). */
  readonly types: ReadonlySet<ActivityType>;
  /** ms, inclusive; undefined: unbounded. */
  readonly fromMs: number | undefined;
  /** ms, exclusive; undefined: unbounded. */
  readonly toMs: number | undefined;
  readonly side: 'BUY' | 'SELL' | undefined;
  readonly sortBy: (typeof ACTIVITY_SORTS)[number];
  readonly direction: 'ASC' | 'DESC';
  readonly limit: number;
  readonly offset: number;
}

/** Checks the parameters (throws ReadModelInputError); shared by every store that serves the read. */
export function activityQuery(params: ActivityParams): ActivityQuery {
  const user = text('user', params.user);
  if (user === undefined || user === '') throw new ReadModelInputError('user', 'is required');
  const types = params.type === undefined ? new Set<ActivityType>(ACTIVITY_TYPES) : new Set(params.type.map((t) => oneOf('type', t, ACTIVITY_TYPES, 'TRADE')));
  const start = params.start === undefined ? undefined : intIn('start', params.start, 0, 0, Number.MAX_SAFE_INTEGER);
  const end = params.end === undefined ? undefined : intIn('end', params.end, 0, 0, Number.MAX_SAFE_INTEGER);
  return {
    user,
    markets: idList('market', params.market, 1_000),
    types,
    fromMs: start === undefined ? undefined : start * 1000,
    toMs: end === undefined ? undefined : (end + 1) * 1000,
    side: oneOf('side', params.side, ['BUY', 'SELL'] as const),
    sortBy: oneOf('sortBy', params.sortBy, ACTIVITY_SORTS, 'TIMESTAMP'),
    direction: oneOf('sortDirection', params.sortDirection, ['ASC', 'DESC'] as const, 'DESC'),
    limit: intIn('limit', params.limit, ACTIVITY_DEFAULT_LIMIT, 0, ACTIVITY_MAX_LIMIT),
    offset: intIn('offset', params.offset, 0, 0, ACTIVITY_MAX_OFFSET),
  };
}

/** Whether the read wants fills, and which ledger kinds (none when `side` is given: only fills have one). */
export function wantedSources(q: ActivityQuery): { fills: boolean; kinds: string[] } {
  const kinds = q.side !== undefined ? [] : [...q.types].flatMap((t) => (LEDGER_KIND_OF[t] === undefined ? [] : [LEDGER_KIND_OF[t] as string]));
  return { fills: q.types.has('TRADE'), kinds };
}

/** The ledger type of a `ledger_events` kind. */
export function typeOfKind(kind: string): ActivityType {
  return TYPE_OF_KIND[kind] ?? 'CONVERSION';
}

/** The transaction hash of a ledger event: `0x` + sha256 of `ledger:<seq>` (fills use transactionHashOf). */
export function ledgerHashOf(seq: number): string {
  return `0x${hash('sha256', `ledger:${seq}`, 'hex')}`;
}

function keyOf(r: ActivityRow, sortBy: ActivityQuery['sortBy']): number {
  return sortBy === 'TOKENS' ? r.size : r.amount;
}

/** Ascending order of two rows for `sortBy` (the SQL's ORDER BY key, id and role); DESC is its reverse. */
export function compareRows(a: ActivityRow, b: ActivityRow, sortBy: ActivityQuery['sortBy']): number {
  if (sortBy !== 'TIMESTAMP') {
    const ka = keyOf(a, sortBy);
    const kb = keyOf(b, sortBy);
    if (ka !== kb) return ka < kb ? -1 : 1;
  }
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return a.role < b.role ? -1 : a.role > b.role ? 1 : 0;
}

/** An activity row in upstream's shape; `info` holds the row's market. */
export function toActivity(user: string, r: ActivityRow, info: ReadonlyMap<string, MarketInfo>, txHash?: string): Activity {
  const market = info.get(r.condition_id);
  const m = market ?? FALLBACK_METADATA;
  const trade = r.type === 'TRADE';
  return {
    proxyWallet: user,
    timestamp: Math.floor(r.time_ms / 1000),
    conditionId: r.condition_id,
    type: r.type,
    size: toFloat(r.size),
    usdcSize: toFloat(r.amount),
    transactionHash: txHash ?? (trade ? transactionHashOf(r.id) : ledgerHashOf(r.seq)),
    price: trade ? toFloat(r.price) : 0,
    asset: trade ? assetOf(r.condition_id, r.outcome) : '',
    side: r.side,
    outcomeIndex: trade ? r.outcome : NO_OUTCOME,
    title: m.title,
    slug: m.slug,
    icon: m.icon,
    eventSlug: m.eventSlug,
    outcome: trade ? outcomeLabel(market, r.outcome) : '',
    name: '',
    pseudonym: '',
    bio: '',
    profileImage: '',
    profileImageOptimized: '',
  };
}

const ORDER_KEY: Record<ActivityQuery['sortBy'], string> = { TIMESTAMP: '', TOKENS: 'size {dir}, ', CASH: 'amount {dir}, ' };

export async function activity(ctx: ReadContext, params: ActivityParams): Promise<Activity[]> {
  const q = activityQuery(params);
  const { fills, kinds } = wantedSources(q);
  if (q.limit === 0 || (!fills && kinds.length === 0)) return [];
  const f = new SqlFilters({ user: q.user, limit: q.limit, offset: q.offset, kinds }).add('account = {user:String}');
  if (q.markets !== undefined) f.add('condition_id IN {markets:Array(String)}', { markets: q.markets });
  if (q.fromMs !== undefined) f.add('time >= fromUnixTimestamp64Milli({fromMs:Int64})', { fromMs: q.fromMs });
  if (q.toMs !== undefined) f.add('time < fromUnixTimestamp64Milli({toMs:Int64})', { toMs: q.toMs });
  const parts: string[] = [];
  if (fills) {
    const side = q.side === undefined ? '' : ` AND side = {side:String}`;
    if (q.side !== undefined) f.params.side = q.side;
    parts.push(`SELECT 'TRADE' AS type, fill_id AS id, toString(role) AS role, toUInt64(0) AS seq, toUnixTimestamp64Milli(time) AS time_ms, condition_id,
                       toInt16(outcome) AS outcome, toString(side) AS side, price, size, amount
                  FROM ${ctx.db}.fill_sides ${f.where}${side}`);
  }
  if (kinds.length > 0) {
    parts.push(`SELECT multiIf(kind = 'split', 'SPLIT', kind = 'merge', 'MERGE', kind = 'redeem', 'REDEEM', kind = 'reward', 'REWARD', 'CONVERSION') AS type,
                       concat('00000000-0000-4000-8000-', leftPad(lower(hex(seq)), 12, '0')) AS id, '' AS role, seq, toUnixTimestamp64Milli(time) AS time_ms,
                       condition_id, toInt16(-1) AS outcome, '' AS side, toInt64(0) AS price, l.amount AS size, if(kind IN ('redeem', 'convert', 'reward'), l.payout, l.amount) AS amount
                  FROM ${ctx.db}.ledger_events AS l ${f.where} AND kind IN {kinds:Array(String)}`);
  }
  const dir = q.direction;
  const rows = await select<ActivityRow>(
    ctx,
    `SELECT type, id, role, seq, time_ms, condition_id, outcome, side, price, size, amount FROM (${parts.join(' UNION ALL ')})
      ORDER BY ${ORDER_KEY[q.sortBy].replace('{dir}', dir)}id ${dir}, role ${dir}
      LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
    f.params,
  );
  const info = await loadMarkets(ctx, rows.map((r) => r.condition_id));
  return rows.map((r) => toActivity(q.user, { ...r, time_ms: Number(r.time_ms), seq: Number(r.seq), outcome: Number(r.outcome) }, info));
}
