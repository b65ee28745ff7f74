// The order-book market forms (spec §2.7, §2.8; upstream §2.9, §3.1): the engine's market (parameters,
// status, live book) joined with its catalog entry (catalog/marketIndex.ts). A market the catalog lacks
// still appears, with '' / false / [] / 0 for the catalog's fields and the outcome labels Yes / No.
//
// State flags, from the engine's status and the catalog's flags:
// | engine status | accepting_orders | closed                | active         |
// |---------------|------------------|-----------------------|----------------|
// | active        | true             | the catalog's `closed` | the catalog's `active` (true when unknown) |
// | paused        | false            | the catalog's `closed` | as above       |
// | resolved      | false            | true                  | as above       |
// `archived` is the catalog's. `status` is the engine's (active, paused, resolved). `enable_order_book` is
// true: every market here has an engine book. Upstream keeps `active: true` on closed markets; so do we.
//
// Numbers: minimum_order_size in shares, minimum_tick_size as a price, maker/taker_base_fee in basis points
// (the engine's), seconds_delay 0 (no matching delay here), token `price` the mark (bookView.ts) or 0.
// `raw_metadata` carries the catalog id, group item title and resolution source ({} without a catalog entry).
// The list form's extra fields (itode, taker_order_delay_ms, order_age_seconds, blockaid_check_enabled)
// are false / 0: none of those mechanisms exists here.
//
// `rewards` is the engine's liquidity rewards program of the market (engine/rewards/, what the sampler scores
// and pays): its daily rate in USDC paid in the exchange's collateral, min_size in shares, max_spread in cents,
// as upstream gives them; no rates and zeros without a program. The catalog's reward fields (a Gamma
// upstream's clobRewards) are handed to the engine as a program (catalog/handoff/rewardsHandOff.ts) and shown as
// catalog data on the catalog surface; here only what is paid is shown. Sampling markets, as upstream's, are
// the markets of the rewards program that trade now.

import { PRICE_ONE, UNIT, type Outcome } from '../../engine/index.js';
import type { Market } from '../../engine/market.js';
import type { IndexedMarket } from '../../catalog/marketIndex.js';
import { REWARD_ASSET } from '../rewards/rewardViews.js';
import { marksOf, type EngineReads } from './bookView.js';

/** What the forms read of the catalog index. */
export interface MarketLookup {
  get(conditionId: string): IndexedMarket | undefined;
}

export interface MarketFlags {
  active: boolean;
  closed: boolean;
  archived: boolean;
  accepting_orders: boolean;
}

export function flagsOf(market: Market, info: IndexedMarket | undefined): MarketFlags {
  return {
    active: info?.active ?? true,
    closed: market.status === 'resolved' || info?.closed === true,
    archived: info?.archived ?? false,
    accepting_orders: market.status === 'active',
  };
}

/** Sampling markets: those with a rewards program that trade now (accepting orders and not closed). */
export function isSampling(engine: EngineReads, market: Market, info: IndexedMarket | undefined): boolean {
  const flags = flagsOf(market, info);
  return flags.accepting_orders && !flags.closed && engine.rewardTerms().has(market.conditionId);
}

export interface WireToken {
  token_id: string;
  outcome: string;
  price: number;
  winner: boolean;
}

const outcomeLabels = (info: IndexedMarket | undefined): readonly [string, string] => info?.outcomes ?? ['Yes', 'No'];

function tokensOf(engine: EngineReads, market: Market, info: IndexedMarket | undefined): WireToken[] {
  const marks = marksOf(engine, market);
  const labels = outcomeLabels(info);
  return ([0, 1] as const).map((outcome: Outcome) => ({
    token_id: market.tokenIds[outcome],
    outcome: labels[outcome],
    price: marks === undefined ? 0 : marks[outcome] / PRICE_ONE,
    winner: market.status === 'resolved' && market.winningOutcome === outcome,
  }));
}

/** Micro-units of price per cent. */
const CENT = PRICE_ONE / 100;

function rewardsOf(engine: EngineReads, market: Market): { rates: { asset_address: string; rewards_daily_rate: number }[]; min_size: number; max_spread: number } {
  const program = engine.rewardTerms().get(market.conditionId);
  if (program === undefined) return { rates: [], min_size: 0, max_spread: 0 };
  return { rates: [{ asset_address: REWARD_ASSET, rewards_daily_rate: program.dailyRate / UNIT }], min_size: program.minSize / UNIT, max_spread: program.maxSpread / CENT };
}

/**
 * A question's id when the catalog does not give it: as upstream builds it (NegRiskIdLib), its event's id with
 * the question index in the last byte, for an event id of that form; '' otherwise.
 */
function questionIdOf(market: Market): string {
  const id = market.negRiskMarketId;
  if (id === null || !/^0x[0-9a-f]{62}00$/.test(id)) return '';
  return id.slice(0, 64) + market.questionIndex.toString(16).padStart(2, '0');
}

/** Fields shared by the full and the list form, in upstream's order. */
function baseForm(engine: EngineReads, market: Market, info: IndexedMarket | undefined): Record<string, unknown> {
  const p = market.params;
  return {
    enable_order_book: true,
    ...flagsOf(market, info),
    accepting_order_timestamp: info?.acceptingOrdersTimestamp ?? '',
    minimum_order_size: p.minSize / UNIT,
    minimum_tick_size: p.tickSize / PRICE_ONE,
    condition_id: market.conditionId,
    question_id: info?.questionId ?? questionIdOf(market),
    question: info?.question ?? '',
    description: info?.description ?? '',
    market_slug: info?.slug ?? '',
    end_date_iso: info?.endDate ?? '',
    game_start_time: info?.gameStartTime ?? '',
    seconds_delay: 0,
    fpmm: info?.fpmm ?? '',
    maker_base_fee: p.makerFeeBps,
    taker_base_fee: p.takerFeeBps,
    notifications_enabled: false,
    neg_risk: p.negRisk,
    // The engine's event when the market is a question of one (the operator may list it with no catalog entry).
    neg_risk_market_id: market.negRiskMarketId ?? info?.negRiskMarketId ?? '',
    neg_risk_request_id: info?.negRiskRequestId ?? '',
    icon: info?.icon ?? '',
    image: info?.image ?? '',
    rewards: rewardsOf(engine, market),
    is_50_50_outcome: false,
    tokens: tokensOf(engine, market, info),
    tags: [...(info?.tags ?? [])],
  };
}

/** GET /markets/{condition_id}, /sampling-markets (spec §2.7 full form). */
export function fullForm(engine: EngineReads, market: Market, info: IndexedMarket | undefined): Record<string, unknown> {
  const event = info?.event;
  return {
    ...baseForm(engine, market, info),
    status: market.status,
    market_id: info?.marketId ?? 0,
    slug: info?.slug ?? '',
    assets_ids: [...market.tokenIds],
    outcomes: [...outcomeLabels(info)],
    event: { id: event?.id ?? '', slug: event?.slug ?? '', title: event?.title ?? '', ticker: event?.ticker ?? '', description: event?.description ?? '' },
    raw_metadata: info === undefined ? {} : { id: info.catalogId, groupItemTitle: info.groupItemTitle, resolutionSource: info.resolutionSource },
  };
}

/** GET /markets?next_cursor (spec §2.7 list variant). */
export function listForm(engine: EngineReads, market: Market, info: IndexedMarket | undefined): Record<string, unknown> {
  return { ...baseForm(engine, market, info), itode: false, taker_order_delay_ms: 0, order_age_seconds: 0, blockaid_check_enabled: false };
}

/** GET /simplified-markets, /sampling-simplified-markets (spec §2.8). */
export function simplifiedForm(engine: EngineReads, market: Market, info: IndexedMarket | undefined): Record<string, unknown> {
  const flags = flagsOf(market, info);
  return {
    condition_id: market.conditionId,
    status: market.status,
    question: info?.question ?? '',
    slug: info?.slug ?? '',
    neg_risk: market.params.negRisk,
    active: flags.active,
    closed: flags.closed,
    archived: flags.archived,
    accepting_orders: flags.accepting_orders,
    market_id: info?.marketId ?? 0,
    tokens: tokensOf(engine, market, info),
    rewards: rewardsOf(engine, market),
    assets_ids: [...market.tokenIds],
    outcomes: [...outcomeLabels(info)],
  };
}

/**
 * GET /clob-markets/{condition_id}: the compact form the official V2 client reads (upstream §2.9). `fd` is
 * the V2 USDC platform fee, which this exchange does not charge (its fees are mbf/tbf in basis points on
 * proceeds, buyers paying in tokens), so its rate is 0 and a client needs no extra USDC for a BUY. `r` is
 * the engine's rewards program (min size in shares, max spread in cents), null without one.
 */
export function compactForm(engine: EngineReads, market: Market, info: IndexedMarket | undefined): Record<string, unknown> {
  const labels = outcomeLabels(info);
  const program = engine.rewardTerms().get(market.conditionId);
  const out: Record<string, unknown> = {
    c: market.conditionId,
    t: [{ t: market.tokenIds[0], o: labels[0] }, { t: market.tokenIds[1], o: labels[1] }],
    mts: market.params.tickSize / PRICE_ONE,
    nr: market.params.negRisk,
    fd: { r: 0, e: 0, to: true },
    mbf: market.params.makerFeeBps,
    tbf: market.params.takerFeeBps,
    r: program === undefined ? null : { mi: program.minSize / UNIT, ma: program.maxSpread / CENT },
    ao: market.status === 'active',
    mos: market.params.minSize / UNIT,
    sd: 0,
    itode: false,
    ibce: false,
    rfqe: false,
  };
  if (info !== undefined && info.acceptingOrdersTimestamp !== '') out.aot = info.acceptingOrdersTimestamp;
  if (info !== undefined && info.gameStartTime !== '') out.gst = info.gameStartTime;
  return out;
}
