// The public Data API beyond spec's three activity reads, in upstream's routes, parameters, bounds, defaults
// and shapes (its OpenAPI document "Polymarket Data API"), on the activity surface (at the root and under
// /activity): GET /activity, /value, /closed-positions, /traded, /oi, /live-volume, /v1/market-positions,
// /v1/leaderboard, /v1/builders/leaderboard, /v1/builders/volume, /v1/accounting/snapshot. Per-user reads
// come from the in-memory read model while it serves and holds what they need (projections/live/), else
// from ClickHouse with the same answer; leaderboards and volumes are ClickHouse's.
//
// Decisions where upstream is silent: docs/reads.md ("Decisions where the spec is silent").

import type { Balances } from '../../engine/index.js';
import { activity, ACTIVITY_DEFAULT_LIMIT, ACTIVITY_MAX_LIMIT, ACTIVITY_MAX_OFFSET, ACTIVITY_SORTS, ACTIVITY_TYPES } from '../../projections/readModel/activity.js';
import { accountingFiles } from '../../projections/readModel/accounting.js';
import { builderLeaderboard, builderVolume, BUILDERS_DEFAULT_LIMIT, BUILDERS_MAX_LIMIT, BUILDERS_MAX_OFFSET } from '../../projections/readModel/builderBoard.js';
import type { ReadContext } from '../../projections/readModel/index.js';
import { leaderboard, type BoardSource, LEADERBOARD_CATEGORIES, LEADERBOARD_DEFAULT_LIMIT, LEADERBOARD_MAX_LIMIT, LEADERBOARD_MAX_OFFSET, LEADERBOARD_ORDERS, TIME_PERIODS } from '../../projections/readModel/leaderboard.js';
import { loadMarkets } from '../../projections/readModel/markets.js';
import { latestMarks } from '../../projections/readModel/marks.js';
import {
  eventVolume, marketPositions, MARKET_POSITION_SORTS, MARKET_POSITION_STATUSES, MARKET_POSITIONS_DEFAULT_LIMIT, MARKET_POSITIONS_MAX_LIMIT, MARKET_POSITIONS_MAX_OFFSET, openInterest,
} from '../../projections/readModel/marketStats.js';
import {
  closedPositions, CLOSED_DEFAULT_LIMIT, CLOSED_MAX_LIMIT, CLOSED_MAX_OFFSET, CLOSED_SORTS, storedPositions, traded, value,
} from '../../projections/readModel/portfolio.js';
import type { LiveReadModel } from '../../projections/live/liveReadModel.js';
import { liveActivity } from '../../projections/live/liveActivity.js';
import { liveClosedPositions, liveMarketPositions, liveOpenInterest, liveTraded, liveValue, marksOf, userRows } from '../../projections/live/livePortfolio.js';
import { liveMarkets } from '../../projections/live/liveReads.js';
import { ok, type ApiRequest, type JsonSchema, type Reply, type RouteDef } from '../http/apiTypes.js';
import { arr, bool, int, num, nums, obj, str, texts } from '../schemas/common.js';
import {
  address, choice, choices, conditionId, conditionIds, dataRoute, integer, lower, MAX_MARKETS, PROFILE, query, served, SORT_DIRECTION, unixSeconds, USER, walletMarkets,
} from './dataRoute.js';
import { EVENT_IDS, MARKET_EXCLUDES_EVENT, type CatalogLookup } from './eventMarkets.js';
import { zipArchive } from './zipArchive.js';

export interface DataApiDeps {
  readonly reads: ReadContext;
  /** The in-memory read model, when on. */
  readonly live?: LiveReadModel;
  readonly catalog: CatalogLookup;
  /** The wallets' collateral in the engine (the accounting snapshot's cash balance). */
  readonly balances: (account: string) => Balances | undefined;
  /** The leaderboards, kept (projections/readModel/leaderboardBoards.ts). */
  readonly boards: BoardSource;
}

export const ACTIVITY: ReturnType<typeof obj> = obj({
  proxyWallet: str('Wallet address.'),
  timestamp: int('Unix seconds.'),
  conditionId: str("The market's condition id."),
  type: { type: 'string', enum: [...ACTIVITY_TYPES] },
  size: num('TRADE: shares; SPLIT, MERGE: full sets; REDEEM: tokens burned; CONVERSION: NO tokens given per question; REWARD: the collateral paid.'),
  usdcSize: num('TRADE: size × price before fees; SPLIT, MERGE: the collateral; REDEEM, CONVERSION, REWARD: the collateral received.'),
  transactionHash: str('0x + sha256: of the fill (as /trades), or of the ledger event.'),
  price: num('TRADE: the side\'s price in [0, 1]; 0 otherwise.'),
  asset: str('TRADE: `<condition_id>:<outcome_index>`; \'\' otherwise.'),
  side: str("TRADE: BUY or SELL; '' otherwise."),
  outcomeIndex: int('TRADE: the outcome; 999 otherwise (upstream\'s value).'),
  ...texts('title', 'slug', 'icon', 'eventSlug'),
  outcome: str("TRADE: the outcome's label; '' otherwise."),
  ...PROFILE,
});

export const ACTIVITY_QUERY = query(
  {
    limit: integer(0, ACTIVITY_MAX_LIMIT, ACTIVITY_DEFAULT_LIMIT, `Rows to return, 0..${ACTIVITY_MAX_LIMIT}; default ${ACTIVITY_DEFAULT_LIMIT}.`),
    offset: integer(0, ACTIVITY_MAX_OFFSET, 0, `Rows to skip, 0..${ACTIVITY_MAX_OFFSET}; default 0.`),
    user: USER,
    market: conditionIds(MAX_MARKETS, 'Only activity in these markets. Mutually exclusive with eventId.'),
    eventId: EVENT_IDS,
    type: choices(ACTIVITY_TYPES, `Only these types, comma-separated: ${ACTIVITY_TYPES.join(', ')}. REWARD and MAKER_REBATE never occur here (no rewards or rebates are paid).`),
    start: unixSeconds('Only activity at or after this Unix second.'),
    end: unixSeconds('Only activity at or before this Unix second.'),
    sortBy: choice(ACTIVITY_SORTS, 'TIMESTAMP (default), TOKENS (size) or CASH (usdcSize); ties in time order.', 'TIMESTAMP'),
    sortDirection: SORT_DIRECTION,
    side: choice(['BUY', 'SELL'], 'Only trades on this side (other types have no side and are left out).'),
  },
  ['user'],
  { dependentSchemas: { market: MARKET_EXCLUDES_EVENT } },
);

export const VALUE: JsonSchema = obj({ user: str('Wallet address.'), value: num('Σ size × curPrice over the positions held (each rounded to the base unit as /positions currentValue).') });

export const CLOSED_POSITION: JsonSchema = obj({
  ...texts('proxyWallet', 'asset', 'conditionId'),
  avgPrice: num('Average buy price: collateral paid / tokens bought (splits at 0.50 a side).'),
  totalBought: num('Tokens ever bought.'),
  realizedPnl: num('Collateral realised by sells, merges, redemptions and conversions, minus the cost of what left.'),
  curPrice: num('The token\'s price now: 1 or 0 once resolved, else its mark.'),
  timestamp: int('Unix seconds of the last change (when it closed).'),
  ...texts('title', 'slug', 'icon', 'eventSlug', 'outcome'),
  outcomeIndex: int(),
  ...texts('oppositeOutcome', 'oppositeAsset', 'endDate'),
});

export const TRADED: JsonSchema = obj({ user: str('Wallet address.'), traded: int('Markets with at least one fill of the wallet.') });
export const OPEN_INTEREST: JsonSchema = obj({ market: str('Condition id.'), value: num('Collateral locked in the full sets of the market (its outcome-0 tokens held; the winning tokens once resolved).') });
export const MARKET_VOLUME: JsonSchema = obj({ market: str('Condition id.'), value: num('Σ of the taker sides\' collateral over the market\'s fills.') });
export const LIVE_VOLUME: JsonSchema = obj({ total: num('Σ of the markets\' volumes.'), markets: arr(MARKET_VOLUME) });

export const MARKET_POSITION: JsonSchema = obj({
  proxyWallet: str(),
  name: str(),
  profileImage: str(),
  verified: bool(),
  ...texts('asset', 'conditionId'),
  ...nums('avgPrice', 'size', 'currPrice', 'currentValue', 'cashPnl', 'totalBought', 'realizedPnl', 'totalPnl'),
  outcome: str(),
  outcomeIndex: int(),
});
export const MARKET_POSITION_GROUP: JsonSchema = obj({ token: str('`<condition_id>:<outcome_index>`.'), positions: arr(MARKET_POSITION) });

export const LEADERBOARD_ENTRY: JsonSchema = obj({
  rank: str('Place from 1, as a string (upstream).'),
  proxyWallet: str(),
  userName: str(),
  vol: num('Collateral of the trader\'s fills in the period.'),
  pnl: num('What its positions made in the period.'),
  profileImage: str(),
  xUsername: str(),
  verifiedBadge: bool(),
});

const BUILDER_FIELDS = {
  rank: str('Place from 1, as a string (upstream).'),
  builder: str('The builder code (no builder profiles exist here).'),
  builderCode: str('The builder code orders carried.'),
  volume: num('Collateral of the fill sides whose order carried the code.'),
  activeUsers: int('Distinct accounts of those sides.'),
  verified: bool(),
  builderLogo: str(),
};
export const BUILDER_ENTRY: JsonSchema = obj(BUILDER_FIELDS);
export const BUILDER_VOLUME_ENTRY: JsonSchema = obj({ dt: { type: 'string', format: 'date-time', description: 'The UTC day, YYYY-MM-DDT00:00:00Z.' }, ...BUILDER_FIELDS });

/** The accounting snapshot: a ZIP archive (application/zip). */
export const ZIP_BODY: JsonSchema = { type: 'string', format: 'binary', contentMediaType: 'application/zip', description: 'A ZIP archive holding positions.csv and equity.csv of one valuation time.' };

const TIME_PERIOD = choice(TIME_PERIODS, 'DAY, WEEK, MONTH (the last 1, 7, 30 days) or ALL; default DAY.', 'DAY');

export const VALUE_QUERY = query({ user: USER, market: conditionIds(MAX_MARKETS, 'Only positions in these markets.') }, ['user']);
export const CLOSED_POSITIONS_QUERY = query(
  {
    user: USER,
    market: conditionIds(MAX_MARKETS, 'Only positions in these markets. Mutually exclusive with eventId.'),
    title: { type: 'string', maxLength: 100, description: 'Case-insensitive substring of the market title, at most 100 characters.' },
    eventId: EVENT_IDS,
    limit: integer(0, CLOSED_MAX_LIMIT, CLOSED_DEFAULT_LIMIT, `Rows to return, 0..${CLOSED_MAX_LIMIT}; default ${CLOSED_DEFAULT_LIMIT}.`),
    offset: integer(0, CLOSED_MAX_OFFSET, 0, `Rows to skip, 0..${CLOSED_MAX_OFFSET}; default 0.`),
    sortBy: choice(CLOSED_SORTS, 'Default REALIZEDPNL; PRICE sorts by curPrice, TIMESTAMP by the close; ties by conditionId, then outcomeIndex.', 'REALIZEDPNL'),
    sortDirection: SORT_DIRECTION,
  },
  ['user'],
  { dependentSchemas: { market: MARKET_EXCLUDES_EVENT } },
);
export const TRADED_QUERY = query({ user: USER }, ['user']);
export const OI_QUERY = query({ market: conditionIds(MAX_MARKETS, 'Only these markets (in this order); without it, every market, by condition id.') });
export const LIVE_VOLUME_QUERY = query({ id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The catalog event id. Required.' } }, ['id']);
export const MARKET_POSITIONS_QUERY = query(
  {
    market: conditionId('The market (condition id). Required.'),
    user: address("Only this wallet's positions."),
    status: choice(MARKET_POSITION_STATUSES, 'OPEN: size > 0.01; CLOSED: size <= 0.01; ALL (default).', 'ALL'),
    sortBy: choice(MARKET_POSITION_SORTS, 'Default TOTAL_PNL (cashPnl + realizedPnl); ties by wallet address.', 'TOTAL_PNL'),
    sortDirection: SORT_DIRECTION,
    limit: integer(0, MARKET_POSITIONS_MAX_LIMIT, MARKET_POSITIONS_DEFAULT_LIMIT, `Positions per outcome token, 0..${MARKET_POSITIONS_MAX_LIMIT}; default ${MARKET_POSITIONS_DEFAULT_LIMIT}.`),
    offset: integer(0, MARKET_POSITIONS_MAX_OFFSET, 0, `Offset per outcome token, 0..${MARKET_POSITIONS_MAX_OFFSET}; default 0.`),
  },
  ['market'],
);
export const LEADERBOARD_QUERY = query({
  category: choice(LEADERBOARD_CATEGORIES, "OVERALL (default), or the markets whose events carry the catalog tag of that name.", 'OVERALL'),
  timePeriod: TIME_PERIOD,
  orderBy: choice(LEADERBOARD_ORDERS, 'PNL (default) or VOL.', 'PNL'),
  limit: integer(1, LEADERBOARD_MAX_LIMIT, LEADERBOARD_DEFAULT_LIMIT, `Traders to return, 1..${LEADERBOARD_MAX_LIMIT}; default ${LEADERBOARD_DEFAULT_LIMIT}.`),
  offset: integer(0, LEADERBOARD_MAX_OFFSET, 0, `Traders to skip, 0..${LEADERBOARD_MAX_OFFSET}; default 0.`),
  user: address("Only this trader's entry, with its rank."),
  userName: { type: 'string', maxLength: 100, description: 'Only the trader of this user name: none has one here, so nothing matches.' },
});
export const BUILDERS_QUERY = query({
  timePeriod: TIME_PERIOD,
  limit: integer(0, BUILDERS_MAX_LIMIT, BUILDERS_DEFAULT_LIMIT, `Builders to return, 0..${BUILDERS_MAX_LIMIT}; default ${BUILDERS_DEFAULT_LIMIT}.`),
  offset: integer(0, BUILDERS_MAX_OFFSET, 0, `Builders to skip, 0..${BUILDERS_MAX_OFFSET}; default 0.`),
});
export const BUILDER_VOLUME_QUERY = query({ timePeriod: TIME_PERIOD });
export const ACCOUNTING_QUERY = query({ user: USER }, ['user']);

interface UserQuery {
  user: string;
}

interface ValueQueryParams extends UserQuery {
  market?: string[];
}

interface ClosedQueryParams extends UserQuery {
  market?: string[];
  eventId?: number[];
  title?: string;
  limit: number;
  offset: number;
  sortBy: string;
  sortDirection: string;
}

interface MarketPositionsQueryParams {
  market: string;
  user?: string;
  status: string;
  sortBy: string;
  sortDirection: string;
  limit: number;
  offset: number;
}

interface LeaderboardQueryParams {
  category: string;
  timePeriod: string;
  orderBy: string;
  limit: number;
  offset: number;
  user?: string;
  userName?: string;
}

interface ActivityQueryParams {
  limit: number;
  offset: number;
  user: string;
  market?: string[];
  eventId?: number[];
  type?: string[];
  start?: number;
  end?: number;
  sortBy: string;
  sortDirection: string;
  side?: string;
}

export function dataApiRoutes(deps: DataApiDeps): RouteDef[] {
  const { reads, live, catalog } = deps;
  return [
    dataRoute<ActivityQueryParams>({
      path: '/activity',
      summary: "A wallet's activity: trades, splits, merges, redemptions and conversions, newest first by default.",
      query: ACTIVITY_QUERY,
      response: arr(ACTIVITY),
      handler: served(live, reads, (q: ActivityQueryParams) => walletMarkets(q, catalog), liveActivity, activity),
    }),
    dataRoute<ValueQueryParams>({
      path: '/value',
      summary: "The value of a wallet's positions at current prices.",
      query: VALUE_QUERY,
      response: arr(VALUE),
      handler: served(live, reads, (q: ValueQueryParams) => ({ user: q.user.toLowerCase(), market: lower(q.market) }), liveValue, value),
    }),
    dataRoute<ClosedQueryParams>({
      path: '/closed-positions',
      summary: "A wallet's closed positions (sold, merged or redeemed away) with what they realised.",
      query: CLOSED_POSITIONS_QUERY,
      response: arr(CLOSED_POSITION),
      handler: served(live, reads, (q: ClosedQueryParams) => walletMarkets(q, catalog), liveClosedPositions, closedPositions),
    }),
    dataRoute<UserQuery>({
      path: '/traded',
      summary: 'How many markets a wallet has traded.',
      query: TRADED_QUERY,
      response: TRADED,
      handler: served(live, reads, (q: UserQuery) => ({ user: q.user.toLowerCase() }), (state, _metadata, params) => liveTraded(state, params), traded),
    }),
    dataRoute<{ market?: string[] }>({
      path: '/oi',
      summary: 'Open interest: the collateral locked in each market\'s full sets.',
      query: OI_QUERY,
      response: arr(OPEN_INTEREST),
      handler: served(live, reads, (q: { market?: string[] }) => ({ market: lower(q.market) }), liveOpenInterest, openInterest),
    }),
    dataRoute<{ id: number }>({
      path: '/live-volume',
      summary: "An event's volume, per market.",
      query: LIVE_VOLUME_QUERY,
      response: arr(LIVE_VOLUME),
      handler: async (req: ApiRequest<{ id: number }>) => ok(await eventVolume(reads, catalog.conditionIdsOfEvents([String(req.query.id)]))),
    }),
    dataRoute<MarketPositionsQueryParams>({
      path: '/v1/market-positions',
      summary: "A market's positions per outcome token, with PnL.",
      query: MARKET_POSITIONS_QUERY,
      response: arr(MARKET_POSITION_GROUP),
      handler: served(live, reads, (q: MarketPositionsQueryParams) => ({ ...q, market: q.market.toLowerCase(), user: q.user?.toLowerCase() }), liveMarketPositions, marketPositions),
    }),
    dataRoute<LeaderboardQueryParams>({
      path: '/v1/leaderboard',
      summary: 'Traders ranked by PnL or volume over a period, overall or in one category.',
      query: LEADERBOARD_QUERY,
      response: arr(LEADERBOARD_ENTRY),
      handler: async (req: ApiRequest<LeaderboardQueryParams>) => {
        const q = req.query;
        const category = q.category.toUpperCase();
        const markets = category === 'OVERALL' ? undefined : catalog.conditionIdsTagged(category);
        return ok(await leaderboard({ ...q, user: q.user?.toLowerCase() }, deps.boards, markets));
      },
    }),
    dataRoute<{ timePeriod: string; limit: number; offset: number }>({
      path: '/v1/builders/leaderboard',
      summary: 'Builders ranked by the volume their orders brought over a period.',
      query: BUILDERS_QUERY,
      response: arr(BUILDER_ENTRY),
      handler: async (req: ApiRequest<{ timePeriod: string; limit: number; offset: number }>) => ok(await builderLeaderboard(reads, req.query)),
    }),
    dataRoute<{ timePeriod: string }>({
      path: '/v1/builders/volume',
      summary: "Each builder's volume per day over a period.",
      query: BUILDER_VOLUME_QUERY,
      response: arr(BUILDER_VOLUME_ENTRY),
      handler: async (req: ApiRequest<{ timePeriod: string }>) => ok(await builderVolume(reads, req.query)),
    }),
    dataRoute<UserQuery>({
      path: '/v1/accounting/snapshot',
      summary: "A ZIP of positions.csv and equity.csv: a wallet's positions and equity at one valuation time.",
      query: ACCOUNTING_QUERY,
      response: ZIP_BODY,
      handler: async (req: ApiRequest<UserQuery>) => {
        const user = req.query.user.toLowerCase();
        const valuationMs = reads.now();
        const b = deps.balances(user);
        const cash = b === undefined ? 0 : b.free + b.reserved;
        let files;
        if (live?.ready === true) {
          const rows = userRows(live.state, user, undefined, (p) => p.size > 0);
          files = accountingFiles(rows, await liveMarkets(live.state, reads.metadata, rows.map((r) => r.condition_id)), marksOf(live.state, rows.map((r) => r.token_id)), cash, valuationMs);
        } else {
          const rows = await storedPositions(reads, user, undefined, 'size > 0');
          const [info, marks] = await Promise.all([loadMarkets(reads, rows.map((r) => r.condition_id)), latestMarks(reads, rows.map((r) => r.token_id))]);
          files = accountingFiles(rows, info, marks, cash, valuationMs);
        }
        return zipReply(zipArchive([{ name: 'positions.csv', data: Buffer.from(files.positionsCsv) }, { name: 'equity.csv', data: Buffer.from(files.equityCsv) }], valuationMs));
      },
    }),
  ];
}

function zipReply(bytes: Buffer): Reply {
  return { status: 200, body: null, encoded: bytes, headers: { 'content-type': 'application/zip', 'content-disposition': 'attachment; filename="accounting-snapshot.zip"' } };
}
