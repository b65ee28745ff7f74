// A maker's rewards (the official client's getEarningsForUserForDay, getTotalEarningsForUserForDay,
// getRewardPercentages and getUserEarningsAndMarketsConfig), L2 headers or a read-only key:
//
// - GET /rewards/user?date=YYYY-MM-DD&next_cursor: the maker's earnings on that UTC day, one item per market,
//   100 a page. A day that has ended: every amount of its split (paid, or under $1 and withheld); the day
//   under way: what the day's pool so far would pay now (earnings.ts).
// - GET /rewards/user/total?date=: the same summed, one item per reward asset (one here: the collateral);
//   [] when nothing was earned.
// - GET /rewards/user/percentages: {condition_id: percent} of a sample taken now, markets where the maker
//   scores only.
// - GET /rewards/user/markets?date&next_cursor&page_size&q&tag_slug&order_by&position&no_competition&
//   only_open_orders&only_open_positions&only_mergeable&favorite_markets: every market with a program now
//   (and any other the maker earned in that day), with the maker's live percentage and its earnings on the
//   date (default: the day under way); page_size (default 100, above 500: 500); `total_count` counts every page.
//   q: words in the question; tag_slug: a tag of the market's events (repeatable, any matches);
//   no_competition: markets where nobody scores now; only_open_orders / only_open_positions /
//   only_mergeable: the maker rests orders / holds tokens / holds both outcomes there; favorite_markets: no
//   favourites are kept here, so true answers no market. order_by: max_spread, min_size, end_date,
//   earning_percentage, rate_per_day, earnings, spread, competitiveness, question, price, market, volume_24hr
//   (0 here: not tracked per market); position ASC or DESC (default DESC with order_by, else by condition id).
//
// Whose: the caller's address, or `maker_address` (any maker: what a maker earns is public here, as GET
// /activity shows any wallet's REWARD rows; upstream's payouts are transfers on chain). `signature_type` is
// checked (0 to 3) and unused: the maker is named, not derived. `sponsored=true` asks for sponsored earnings:
// none here. Every parameter's form is in its schema (a malformed one answers 400 before anything is read).

import { dayOf, dayOfText, type Engine } from '../../engine/index.js';
import type { Market } from '../../engine/market.js';
import { durableState } from '../../host/commandGateway.js';
import { END_CURSOR, cursorFor, parseCursor } from '../../projections/readModel/cursor.js';
import { badRequest } from '../http/apiErrors.js';
import { ok, type ApiRequest, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { arr } from '../schemas/common.js';
import { ADDRESS_PATTERN, answering, anyCase, cursor } from '../schemas/formats.js';
import { given } from '../trading/accountInputs.js';
import { requireReader } from '../trading/authenticate.js';
import { earningsOn } from './earnings.js';
import type { RewardsDeps } from './rewardsDeps.js';
import {
  PERCENTAGES, REWARD_ASSET, TOTAL_EARNING, USER_EARNING, USER_REWARDS_MARKET, competitiveness, earningDate, rewardConfig, rewardTokens, rewardsPage, userEarning,
} from './rewardViews.js';

const ERRORS = ['bad_request', 'unauthorized', 'rate_limited', 'unavailable', 'internal'] as const;
const USER_PAGE = 100;
const MAX_PAGE = 500;
const ORDER_BY = ['max_spread', 'min_size', 'end_date', 'earning_percentage', 'rate_per_day', 'earnings', 'spread', 'competitiveness', 'question', 'price', 'market', 'volume_24hr'] as const;
type OrderBy = (typeof ORDER_BY)[number];

const text = (description: string): JsonSchema => ({ type: 'string', maxLength: 200, description });
const exact = (pattern: string, error: string, description: string): JsonSchema => answering({ type: 'string', pattern, maxLength: 200, description }, { code: 'bad_request', detail: error });
/** Real calendar days only (February 29 in leap years), as the handler reads them (engine dayOfText). */
const LEAP_DAY = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29';
const OTHER_DAYS = '[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))';
export const DATE_PATTERN = `^(?:${OTHER_DAYS}|${LEAP_DAY})$`;
const BOOLEAN = anyCase(['true', 'false', '1', '0']);
const COMMON: Record<string, JsonSchema> = {
  signature_type: exact('^[0-3]$', 'Invalid signature_type', '0 (EOA), 1 (POLY_PROXY), 2 (POLY_GNOSIS_SAFE) or 3; checked and unused.'),
  maker_address: exact(ADDRESS_PATTERN, 'Invalid maker_address', "Whose rewards (any maker: a payout is public, as GET /activity's REWARD rows are); default the caller's address."),
  sponsored: exact(BOOLEAN, 'sponsored: must be true or false', 'true: sponsored earnings only (none here).'),
};
const DATE = (description: string): JsonSchema => exact(DATE_PATTERN, 'Invalid date (format: YYYY-MM-DD)', description);
const FLAG = (name: string, description: string): JsonSchema => exact(BOOLEAN, `${name}: must be true or false`, `true or false. ${description}`);

function dayParam(q: Readonly<Record<string, unknown>>, required: boolean, today: number): number {
  const date = given(q, 'date');
  if (date === undefined) {
    if (required) throw badRequest('Invalid date (format: YYYY-MM-DD)');
    return today;
  }
  const day = dayOfText(date);
  if (day === undefined) throw badRequest('Invalid date (format: YYYY-MM-DD)');
  return day;
}

const flag = (q: Readonly<Record<string, unknown>>, name: string): boolean => {
  const v = given(q, name);
  if (v === undefined || /^(false|0)$/i.test(v)) return false;
  if (/^(true|1)$/i.test(v)) return true;
  throw badRequest(`${name}: must be true or false`);
};

/** The maker the request reads: the caller, or maker_address when the caller may read it. */
function makerOf(deps: RewardsDeps, req: ApiRequest): string {
  const caller = requireReader(req, deps.trading);
  const signatureType = given(req.query, 'signature_type');
  if (signatureType !== undefined && !/^[0-3]$/.test(signatureType)) throw badRequest('Invalid signature_type');
  const maker = given(req.query, 'maker_address');
  if (maker === undefined) return caller.account;
  if (!/^0x[0-9a-fA-F]{40}$/.test(maker)) throw badRequest('Invalid maker_address');
  return maker.toLowerCase();
}

function paged<T>(items: readonly T[], cursorText: unknown, size: number): { limit: number; count: number; next_cursor: string; data: T[] } {
  const offset = parseCursor('next_cursor', typeof cursorText === 'string' ? cursorText : undefined);
  if (offset === 'end') return { limit: size, count: 0, next_cursor: END_CURSOR, data: [] };
  const data = items.slice(offset, offset + size);
  return { limit: size, count: data.length, next_cursor: offset + data.length < items.length ? cursorFor(offset + data.length) : END_CURSOR, data };
}

const sponsored = (q: Readonly<Record<string, unknown>>): boolean => flag(q, 'sponsored');

/** Best ask − best bid of outcome 0 now (price units as a fraction), 0 without both sides. */
function spreadNow(engine: Engine, market: Market): number {
  const book = engine.book(market.tokenIds[0], 1);
  const bid = book?.bids[0]?.price;
  const ask = book?.asks[0]?.price;
  return bid === undefined || ask === undefined ? 0 : (ask - bid) / 1_000_000;
}

interface MarketRow {
  readonly wire: Record<string, unknown>;
  readonly keys: Readonly<Record<OrderBy, number | string>>;
}

export function rewardUserRoutes(deps: RewardsDeps): RouteDef[] {
  const engineOf = (): Engine => deps.trading.host.engine;
  const guard = (r: ApiRequest<unknown, unknown>): void => void requireReader(r, deps.trading);

  const marketsOf = async (req: ApiRequest): Promise<{ rows: MarketRow[]; day: number }> => {
    const maker = makerOf(deps, req);
    const engine = engineOf();
    const day = dayParam(req.query, false, dayOf(engine.now));
    const earned = sponsored(req.query) ? new Map<string, number>() : await earningsOn(deps.trading, maker, day);
    // A past day's earnings come from ClickHouse: the engine may have taken a batch meanwhile.
    await durableState(deps.trading.host);
    const programs = engine.rewardTerms();
    const ids = [...new Set([...programs.keys(), ...earned.keys()])].sort();
    const q = (given(req.query, 'q') ?? '').toLowerCase().split(/\s+/).filter((w) => w !== '');
    const tags = req.rawQuery.getAll('tag_slug').flatMap((t) => t.split(',')).map((t) => t.trim().toLowerCase()).filter((t) => t !== '');
    const [noCompetition, openOrders, openPositions, mergeable, favourites] = ['no_competition', 'only_open_orders', 'only_open_positions', 'only_mergeable', 'favorite_markets'].map((n) => flag(req.query, n));
    if (favourites) return { rows: [], day };
    const resting = new Set(engine.openOrders(maker).map((o) => o.market.conditionId));
    const held = engine.balances(maker)?.tokens;
    const rows: MarketRow[] = [];
    for (const id of ids) {
      const market = engine.market(id);
      if (market === undefined) continue;
      const info = deps.markets.get(id);
      const program = programs.get(id);
      const question = info?.question ?? '';
      if (q.some((w) => !question.toLowerCase().includes(w))) continue;
      if (tags.length > 0 && !(info?.tags ?? []).some((label) => tags.includes(label.toLowerCase().replace(/[^a-z0-9]+/g, '-')))) continue;
      const competition = competitiveness(engine, id);
      if (noCompetition && competition > 0) continue;
      if (openOrders && !resting.has(id)) continue;
      const [yes, no] = market.tokenIds.map((t) => held?.get(t)?.free ?? 0) as [number, number];
      if (openPositions && yes + no === 0) continue;
      if (mergeable && Math.min(yes, no) === 0) continue;
      const share = engine.rewardSharesNow(id).get(maker) ?? 0;
      const earnings = (earned.get(id) ?? 0) / 1_000_000;
      const tokens = rewardTokens(engine, market, info);
      const spread = spreadNow(engine, market);
      const percentage = Math.round(share * 1_000_000) / 10_000;
      rows.push({
        wire: {
          condition_id: id, market_id: info?.catalogId ?? '', event_id: info?.event?.id ?? '', question, market_slug: info?.slug ?? '', event_slug: info?.event?.slug ?? '',
          image: info?.image ?? '', rewards_max_spread: (program?.maxSpread ?? 0) / 10_000, rewards_min_size: (program?.minSize ?? 0) / 1_000_000, spread,
          market_competitiveness: competition, tokens, rewards_config: program === undefined ? [] : [rewardConfig(program, 0, false)], maker_address: maker,
          earning_percentage: percentage, earnings: [{ asset_address: REWARD_ASSET, earnings, asset_rate: 1 }],
        },
        keys: {
          max_spread: program?.maxSpread ?? 0, min_size: program?.minSize ?? 0, end_date: 0, earning_percentage: percentage, rate_per_day: program?.dailyRate ?? 0,
          earnings, spread, competitiveness: competition, question, price: tokens[0]?.price ?? 0, market: id, volume_24hr: 0,
        },
      });
    }
    const orderBy = given(req.query, 'order_by');
    const position = given(req.query, 'position')?.toUpperCase();
    if (position !== undefined && position !== 'ASC' && position !== 'DESC') throw badRequest('position: must be ASC or DESC');
    if (orderBy !== undefined) {
      if (!(ORDER_BY as readonly string[]).includes(orderBy)) throw badRequest(`order_by: must be one of ${ORDER_BY.join(', ')}`);
      const sign = position === 'ASC' ? 1 : -1;
      const key = orderBy as OrderBy;
      rows.sort((a, b) => {
        const x = a.keys[key];
        const y = b.keys[key];
        const c = x < y ? -1 : x > y ? 1 : 0;
        return c !== 0 ? sign * c : a.keys.market < b.keys.market ? -1 : 1;
      });
    } else if (position === 'DESC') rows.reverse();
    return { rows, day };
  };

  return [
    {
      method: 'GET', path: '/rewards/user', surface: 'clob', engineState: true, summary: "The caller's liquidity rewards earned on a UTC day, per market",
      query: { type: 'object', properties: { date: DATE('A UTC day, YYYY-MM-DD.'), ...COMMON, next_cursor: cursor() }, required: ['date'] }, guard,
      response: rewardsPage(USER_EARNING), errors: ERRORS,
      handler: async (req: ApiRequest) => {
        const maker = makerOf(deps, req);
        const day = dayParam(req.query, true, 0);
        const earned = sponsored(req.query) ? new Map<string, number>() : await earningsOn(deps.trading, maker, day);
        return ok(paged([...earned].map(([cid, amount]) => userEarning(day, cid, maker, amount)), req.query.next_cursor, USER_PAGE));
      },
    },
    {
      method: 'GET', path: '/rewards/user/total', surface: 'clob', engineState: true, summary: "The caller's liquidity rewards earned on a UTC day, in all",
      query: { type: 'object', properties: { date: DATE('A UTC day, YYYY-MM-DD.'), ...COMMON }, required: ['date'] }, guard,
      response: arr(TOTAL_EARNING), errors: ERRORS,
      handler: async (req: ApiRequest) => {
        const maker = makerOf(deps, req);
        const day = dayParam(req.query, true, 0);
        const earned = sponsored(req.query) ? new Map<string, number>() : await earningsOn(deps.trading, maker, day);
        const total = [...earned.values()].reduce((a, b) => a + b, 0);
        return ok(total === 0 ? [] : [{ date: earningDate(day), asset_address: REWARD_ASSET, maker_address: maker, earnings: total / 1_000_000, asset_rate: 1 }]);
      },
    },
    {
      method: 'GET', path: '/rewards/user/percentages', surface: 'clob', engineState: true, summary: "The caller's share of each rewarded market's sample taken now, in percent",
      query: { type: 'object', properties: { signature_type: COMMON.signature_type as JsonSchema, maker_address: COMMON.maker_address as JsonSchema } }, guard,
      response: PERCENTAGES, errors: ERRORS,
      handler: (req: ApiRequest) => {
        const maker = makerOf(deps, req);
        const engine = engineOf();
        const out: Record<string, number> = {};
        for (const id of [...engine.rewardTerms().keys()].sort()) {
          const share = engine.rewardSharesNow(id).get(maker);
          if (share !== undefined) out[id] = Math.round(share * 1_000_000) / 10_000;
        }
        return ok(out);
      },
    },
    {
      method: 'GET', path: '/rewards/user/markets', surface: 'clob', engineState: true, summary: "Every rewarded market with the caller's live share and earnings on a day",
      query: {
        type: 'object',
        properties: {
          date: DATE('A UTC day, YYYY-MM-DD (default: the day under way).'), ...COMMON, next_cursor: cursor(),
          page_size: exact('^[1-9][0-9]{0,8}$', `page_size: must be a positive integer (above ${MAX_PAGE}: ${MAX_PAGE})`, `Items a page (default ${USER_PAGE}; above ${MAX_PAGE}: ${MAX_PAGE}).`),
          q: text('Words the question must contain.'), tag_slug: text('A tag of the market (repeatable: any of them).'),
          favorite_markets: FLAG('favorite_markets', 'No favourites are kept here: true answers none.'), no_competition: FLAG('no_competition', 'Markets where nobody scores now.'),
          only_mergeable: FLAG('only_mergeable', 'Markets where the maker holds both outcomes.'), only_open_orders: FLAG('only_open_orders', 'Markets where the maker rests orders.'),
          only_open_positions: FLAG('only_open_positions', 'Markets where the maker holds tokens.'),
          order_by: answering({ type: 'string', enum: [...ORDER_BY], description: 'The sort field.' }, { code: 'bad_request', detail: `order_by: must be one of ${ORDER_BY.join(', ')}` }),
          position: exact(anyCase(['ASC', 'DESC']), 'position: must be ASC or DESC', 'ASC or DESC.'),
        },
      },
      guard, response: rewardsPage(USER_REWARDS_MARKET, true), errors: ERRORS,
      handler: async (req: ApiRequest) => {
        const sizeText = given(req.query, 'page_size');
        const size = sizeText === undefined ? USER_PAGE : Number(sizeText);
        if (!Number.isInteger(size) || size < 1) throw badRequest(`page_size: must be a positive integer (above ${MAX_PAGE}: ${MAX_PAGE})`);
        const { rows } = await marketsOf(req);
        const page = paged(rows.map((r) => r.wire), req.query.next_cursor, Math.min(size, MAX_PAGE));
        return ok({ limit: page.limit, count: page.count, total_count: rows.length, next_cursor: page.next_cursor, data: page.data });
      },
    },
  ];
}
