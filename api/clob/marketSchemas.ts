// Response schemas of the order-book market forms (marketForms.ts). fast-json-stringify writes exactly
// these properties, in this order, so each schema names every field its form builds.

import type { JsonSchema } from '../http/apiTypes.js';
import { arr, bool, int, num, obj, str } from '../schemas/common.js';

const texts = (...names: string[]): Record<string, JsonSchema> => Object.fromEntries(names.map((n) => [n, str()]));

const TOKEN = obj({ token_id: str(), outcome: str(), price: num('The mark: midpoint, else last trade, else 0; 1/0 once resolved.'), winner: bool() });
const REWARDS = obj({ rates: arr(obj({ asset_address: str(), rewards_daily_rate: num() })), min_size: num(), max_spread: num() });

const BASE: Record<string, JsonSchema> = {
  enable_order_book: bool(),
  active: bool(),
  closed: bool(),
  archived: bool(),
  accepting_orders: bool(),
  accepting_order_timestamp: str(),
  minimum_order_size: num('Shares.'),
  minimum_tick_size: num(),
  ...texts('condition_id', 'question_id', 'question', 'description', 'market_slug', 'end_date_iso', 'game_start_time'),
  seconds_delay: num(),
  fpmm: str(),
  maker_base_fee: num('Basis points.'),
  taker_base_fee: num('Basis points.'),
  notifications_enabled: bool(),
  neg_risk: bool(),
  ...texts('neg_risk_market_id', 'neg_risk_request_id', 'icon', 'image'),
  rewards: REWARDS,
  is_50_50_outcome: bool(),
  tokens: arr(TOKEN),
  tags: arr(str()),
};

export const FULL_MARKET = obj({
  ...BASE,
  status: str('Engine status: active, paused or resolved.'),
  market_id: int('Catalog id; 0 when the catalog lacks the market.'),
  slug: str(),
  assets_ids: arr(str()),
  outcomes: arr(str()),
  event: obj(texts('id', 'slug', 'title', 'ticker', 'description')),
  raw_metadata: { type: 'object', additionalProperties: true },
});

export const LIST_MARKET = obj({ ...BASE, itode: bool(), taker_order_delay_ms: num(), order_age_seconds: num(), blockaid_check_enabled: bool() });

export const SIMPLIFIED_MARKET = obj({
  ...texts('condition_id', 'status', 'question', 'slug'),
  neg_risk: bool(),
  active: bool(),
  closed: bool(),
  archived: bool(),
  accepting_orders: bool(),
  market_id: int(),
  tokens: arr(TOKEN),
  rewards: REWARDS,
  assets_ids: arr(str()),
  outcomes: arr(str()),
});

export const COMPACT_MARKET = obj(
  {
    c: str('Condition id.'),
    t: arr(obj({ t: str('Token id.'), o: str('Outcome label.') })),
    mts: num('Minimum tick size.'),
    nr: bool('Neg risk.'),
    fd: obj({ r: num('V2 platform fee rate (0: not charged here).'), e: num(), to: bool() }),
    mbf: int('Maker base fee, bps.'),
    tbf: int('Taker base fee, bps.'),
    r: { anyOf: [{ type: 'null' }, obj({ mi: num('Rewards min size.'), ma: num('Rewards max spread.') })] },
    ao: bool('Accepting orders.'),
    mos: num('Minimum order size, shares.'),
    sd: num('Seconds delay.'),
    aot: str('Accepting orders since.'),
    gst: str('Game start time.'),
    itode: bool(),
    ibce: bool(),
    rfqe: bool(),
  },
  { optional: ['aot', 'gst'] },
);

/** A cursor page (upstream §3.1). */
export function pageOf(item: JsonSchema): JsonSchema {
  return obj({ limit: int('Page size.'), count: int('Items in this page.'), next_cursor: str('"LTE=" when no page follows.'), data: arr(item) });
}
