// The activity surface (spec §2.1–2.3, §4.2, §8.4) as HTTP routes: GET /trades, GET /positions, GET /holders
// over the read model (projections/readModel). Every parameter, default and bound lives in the query schemas
// below, so ajv refuses bad input before a handler runs and the OpenAPI document shows the same rules; the
// read model checks again and agrees (test/api/activity.test.ts probes each bound over HTTP).
//
// Decisions where the spec is silent:
// | topic                         | decision                                                                    |
// |-------------------------------|-----------------------------------------------------------------------------|
// | /trades limit                 | default 100, 0..10,000; offset 0..10,000 (the read model's constants)        |
// | /holders limit, minBalance    | limit default 20, 0..500 per token; minBalance default 1 share (upstream)    |
// | filterType                    | CASH (usdcSize >=) or TOKENS (size >=), inclusive; only with filterAmount   |
// | enum values (side, sortBy, …) | the upper-case spelling or all lower case                                    |
// | amounts (thresholds)          | >= 0 and at most MAX_AMOUNT, the largest whole amount base units can hold   |
// | user                          | 0x + 40 hex digits, any case; compared in lower case, as the engine stores  |
// | market                        | condition ids, 0x + 64 hex digits, any case; compared in lower case         |
// | market list length            | /trades and /positions at most 300 (a longer list would not fit the 64 KiB  |
// |                               | request head), /holders at most 100 (read model)                            |
// | booleans                      | true or false (ajv's coercion); anything else is a 400                      |
// | empty values                  | a value like any other (upstream's Data API document: its enums, patterns   |
// |                               | and types admit no empty value), so `?sortBy=`, `?user=`, `?limit=` are 400 |
// Values are taken as sent (a strict query: httpServer's queryObject), and the document says so: no parameter
// of this surface admits an empty value; `market=` is an empty list.

import { UNIT } from '../../engine/index.js';
import {
  activityTrades,
  ACTIVITY_TRADES_DEFAULT_LIMIT,
  ACTIVITY_TRADES_MAX_LIMIT,
  holders,
  HOLDERS_DEFAULT_LIMIT,
  HOLDERS_MAX_LIMIT,
  POSITION_SORTS,
  positions,
  type ReadContext,
} from '../../projections/readModel/index.js';
import { ACTIVITY_TRADES_MAX_OFFSET } from '../../projections/readModel/activityTrades.js';
import { HOLDERS_MAX_MARKETS } from '../../projections/readModel/holders.js';
import type { LiveReadModel } from '../../projections/live/liveReadModel.js';
import { liveHolders, livePositions } from '../../projections/live/liveReads.js';
import { liveActivityTrades } from '../../projections/live/liveTrades.js';
import type { JsonSchema, RouteDef } from '../http/apiTypes.js';
import { arr, bool, int, num, nums, obj, str, texts } from '../schemas/common.js';
import { address, choice, conditionIds, dataRoute, integer, lower, MAX_MARKETS, PROFILE, query, served, SORT_DIRECTION, USER, walletMarkets } from './dataRoute.js';
import { EVENT_IDS, MARKET_EXCLUDES_EVENT, NO_CATALOG, type CatalogLookup } from './eventMarkets.js';

/** Largest threshold in shares or USDC: its base units must stay a safe integer. */
export const MAX_AMOUNT = Math.floor(Number.MAX_SAFE_INTEGER / UNIT);
export const POSITIONS_DEFAULT_LIMIT = 100;
export const POSITIONS_MAX_LIMIT = 500;
export const POSITIONS_MAX_OFFSET = 10_000;
export const POSITIONS_MAX_TITLE = 100;
/** Default of sizeThreshold (positions) and minBalance (holders), in shares. */
export const DEFAULT_MIN_SHARES = 1;

const amount = (description: string, fallback?: number): JsonSchema => ({ type: 'number', minimum: 0, maximum: MAX_AMOUNT, ...(fallback === undefined ? {} : { default: fallback }), description });
const flag = (fallback: boolean, description: string): JsonSchema => ({ type: 'boolean', default: fallback, description });

// ---- Responses (every field the read model returns; fast-json-stringify drops what is not named here) ----

/** Spec §2.1. */
export const TRADE_FILL: JsonSchema = obj({
  proxyWallet: str('Wallet address.'),
  side: { type: 'string', enum: ['BUY', 'SELL'] },
  asset: str('`<condition_id>:<outcome_index>`.'),
  conditionId: str(),
  size: num('Tokens (shares).'),
  price: num('Price of the side in [0, 1].'),
  timestamp: int('Unix seconds.'),
  usdcSize: num('Cash notional: size × price, before fees.'),
  ...texts('title', 'slug', 'icon', 'eventSlug', 'outcome'),
  outcomeIndex: int(),
  ...PROFILE,
  transactionHash: str('0x + sha256 of the fill id: fills settle inside the exchange, both sides share it.'),
});

/** Spec §2.2 (plus eventId, as upstream rows carry it). */
export const POSITION: JsonSchema = obj({
  ...texts('proxyWallet', 'asset', 'conditionId'),
  ...nums('size', 'avgPrice', 'initialValue', 'currentValue', 'cashPnl', 'percentPnl', 'totalBought', 'realizedPnl', 'percentRealizedPnl', 'curPrice'),
  redeemable: bool('The market is resolved: the position can be redeemed.'),
  mergeable: bool('The market is open and the wallet also holds the other outcome.'),
  negativeRisk: bool(),
  ...texts('title', 'slug', 'icon', 'eventId', 'eventSlug', 'outcome', 'oppositeOutcome', 'oppositeAsset'),
  outcomeIndex: int(),
  timestamp: int('Unix seconds of the last change of the position.'),
  endDate: str('ISO 8601; empty when unknown.'),
});

/** Spec §2.3. */
export const HOLDER: JsonSchema = obj({
  proxyWallet: str(),
  bio: str(),
  asset: str('`<condition_id>:<outcome_index>`.'),
  pseudonym: str(),
  amount: num('Token balance (shares).'),
  displayUsernamePublic: bool(),
  outcomeIndex: int(),
  name: str(),
  profileImage: str(),
  profileImageOptimized: str(),
});
export const HOLDER_GROUP: JsonSchema = obj({ token: str('`<condition_id>:<outcome_index>`.'), holders: arr(HOLDER) });

// ---- Queries (spec §4.2, §8.4) ----

export const TRADES_QUERY: JsonSchema = query(
  {
    limit: integer(0, ACTIVITY_TRADES_MAX_LIMIT, ACTIVITY_TRADES_DEFAULT_LIMIT, `Rows to return, 0..${ACTIVITY_TRADES_MAX_LIMIT}; default ${ACTIVITY_TRADES_DEFAULT_LIMIT}.`),
    offset: integer(0, ACTIVITY_TRADES_MAX_OFFSET, 0, `Rows to skip, 0..${ACTIVITY_TRADES_MAX_OFFSET}; default 0.`),
    takerOnly: flag(true, 'Default true: the taker side of each fill only; false adds the maker sides (a fill then appears once per side, taker first).'),
    filterType: choice(['CASH', 'TOKENS'], 'CASH: usdcSize >= filterAmount; TOKENS: size >= filterAmount. Requires filterAmount.'),
    filterAmount: amount('Threshold for filterType (USDC or shares), inclusive. Requires filterType.'),
    market: conditionIds(MAX_MARKETS, 'Only fills of these markets. Mutually exclusive with eventId.'),
    eventId: EVENT_IDS,
    user: address("Only this wallet's fills (0x + 40 hex digits, any case)."),
    side: choice(['BUY', 'SELL'], 'Only fills on this side.'),
  },
  [],
  { dependentRequired: { filterType: ['filterAmount'], filterAmount: ['filterType'] }, dependentSchemas: { market: MARKET_EXCLUDES_EVENT } },
);

export const POSITIONS_QUERY: JsonSchema = query(
  {
    user: USER,
    market: conditionIds(MAX_MARKETS, 'Only positions in these markets. Mutually exclusive with eventId.'),
    eventId: EVENT_IDS,
    sizeThreshold: amount(`Minimum token balance in shares, >= 0; default ${DEFAULT_MIN_SHARES}.`, DEFAULT_MIN_SHARES),
    redeemable: flag(false, 'true returns only redeemable positions.'),
    mergeable: flag(false, 'true returns only mergeable positions.'),
    limit: integer(0, POSITIONS_MAX_LIMIT, POSITIONS_DEFAULT_LIMIT, `Rows to return, 0..${POSITIONS_MAX_LIMIT}; default ${POSITIONS_DEFAULT_LIMIT}.`),
    offset: integer(0, POSITIONS_MAX_OFFSET, 0, `Rows to skip, 0..${POSITIONS_MAX_OFFSET}; default 0.`),
    sortBy: choice(POSITION_SORTS, 'Sort column; default TOKENS. RESOLVING sorts by endDate; ties by conditionId, then outcomeIndex.', 'TOKENS'),
    sortDirection: SORT_DIRECTION,
    title: { type: 'string', maxLength: POSITIONS_MAX_TITLE, description: `Case-insensitive substring of the market title, at most ${POSITIONS_MAX_TITLE} characters.` },
  },
  ['user'],
  { dependentSchemas: { market: MARKET_EXCLUDES_EVENT } },
);

export const HOLDERS_QUERY: JsonSchema = query(
  {
    market: conditionIds(HOLDERS_MAX_MARKETS, 'Required. One group per outcome token of each market, in request order; markets the engine does not know are left out.'),
    limit: integer(0, HOLDERS_MAX_LIMIT, HOLDERS_DEFAULT_LIMIT, `Holders per token, 0..${HOLDERS_MAX_LIMIT}; default ${HOLDERS_DEFAULT_LIMIT}.`),
    minBalance: amount(`Drops wallets holding fewer shares than this, >= 0; default ${DEFAULT_MIN_SHARES}.`, DEFAULT_MIN_SHARES),
  },
  ['market'],
);

interface TradesQuery {
  limit: number;
  offset: number;
  takerOnly: boolean;
  filterType?: string;
  filterAmount?: number;
  market?: string[];
  eventId?: number[];
  user?: string;
  side?: string;
}

interface PositionsQuery {
  user: string;
  market?: string[];
  eventId?: number[];
  sizeThreshold: number;
  redeemable: boolean;
  mergeable: boolean;
  limit: number;
  offset: number;
  sortBy: string;
  sortDirection: string;
  title?: string;
}

interface HoldersQuery {
  market: string[];
  limit: number;
  minBalance: number;
}

/**
 * `live`: the in-memory read model, which serves /positions, /holders and the pages of /trades?user= that lie
 * within the user's fills it keeps, while it runs (same answers; projections/live/). Other trade reads go to
 * ClickHouse.
 */
export function activityRoutes(ctx: ReadContext, live?: LiveReadModel, catalog: CatalogLookup = NO_CATALOG): RouteDef[] {
  return [
    dataRoute<TradesQuery>({
      path: '/trades',
      summary: 'Trade fills, newest first (taker sides by default).',
      query: TRADES_QUERY,
      response: arr(TRADE_FILL),
      limits: ['activity:trades'],
      handler: served(live, ctx, (q: TradesQuery) => walletMarkets(q, catalog), liveActivityTrades, activityTrades),
    }),
    dataRoute<PositionsQuery>({
      path: '/positions',
      summary: "A wallet's positions with their value and PnL.",
      query: POSITIONS_QUERY,
      response: arr(POSITION),
      limits: ['activity:positions'],
      handler: served(live, ctx, (q: PositionsQuery) => walletMarkets(q, catalog), livePositions, positions),
    }),
    dataRoute<HoldersQuery>({
      path: '/holders',
      summary: 'Top holders of each outcome token of the given markets.',
      query: HOLDERS_QUERY,
      response: arr(HOLDER_GROUP),
      handler: served(live, ctx, (q: HoldersQuery) => ({ ...q, market: lower(q.market) ?? [] }), liveHolders, holders),
    }),
  ];
}
