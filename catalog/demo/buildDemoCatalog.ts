// Expands demoDefinitions.ts into the demo catalog in the upstream (Gamma) shape: a catalog dump
// { site, tags, series, events, markets } that dumpImport.ts reads. Deterministic: ids count up from fixed
// bases, condition ids, question ids and token ids are SHA-256 of the market's slug (token ids as decimal
// uint256 text), and every number derived from a hash. `npx tsx catalog/demo/buildDemoCatalog.ts --write`
// (from the repository root) regenerates demoCatalog.json; a test keeps the two equal.

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEMO_CREATORS, DEMO_EVENTS, DEMO_REWARDS, DEMO_SERIES, DEMO_TAGS, type DemoEvent, type DemoMarket } from './demoDefinitions.js';

export const DEMO_SITE = 'demo';
const AS_OF = Date.UTC(2026, 10, 21, 12, 0, 0);
const IMAGE_BASE = 'https://assets.example.com/demo';
const RESOLVER = '0x6a9d222616c90fca5754cd1333cfd9b7fb6a4f74';

type Json = Record<string, unknown>;

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
/** A number in [0, 1) from a label. */
const unit = (label: string): number => parseInt(sha256(label).slice(0, 8), 16) / 2 ** 32;
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');
const legacy = (ms: number): string => iso(ms).replace('T', ' ').replace('Z', '+00');
const decimals = (n: number, places: number): number => Number(n.toFixed(places));
const priceText = (p: number): string => String(decimals(p, 4));

export const demoConditionId = (slug: string): string => '0x' + sha256(`pmx-demo:condition:${slug}`);
export const demoTokenId = (slug: string, outcome: 0 | 1): string => BigInt('0x' + sha256(`pmx-demo:token:${slug}:${outcome}`)).toString(10);

function tagObject(index: number): Json {
  const tag = DEMO_TAGS[index] as (typeof DEMO_TAGS)[number];
  return { id: String(901 + index), label: tag.label, slug: tag.slug, forceShow: false, forceHide: false, requiresTranslation: false, createdAt: '2026-01-05T10:00:00Z', updatedAt: '2026-06-01T10:00:00Z' };
}

function seriesObject(index: number): Json {
  const series = DEMO_SERIES[index] as (typeof DEMO_SERIES)[number];
  return {
    id: String(9001 + index),
    ticker: series.slug,
    slug: series.slug,
    title: series.title,
    seriesType: 'single',
    recurrence: series.recurrence,
    image: `${IMAGE_BASE}/series-${series.slug}.png`,
    icon: `${IMAGE_BASE}/series-${series.slug}.png`,
    layout: 'default',
    active: true,
    closed: false,
    archived: false,
    new: false,
    featured: false,
    restricted: true,
    createdAt: '2026-01-10T09:00:00Z',
    updatedAt: iso(AS_OF - 3_600_000),
    volume: decimals(unit(`series-volume:${series.slug}`) * 40_000_000, 2),
    liquidity: decimals(unit(`series-liquidity:${series.slug}`) * 4_000_000, 2),
    commentCount: Math.floor(unit(`series-comments:${series.slug}`) * 5000),
  };
}

interface EventTimes {
  readonly start: number;
  readonly end: number;
  readonly updated: number;
}

function timesOf(event: DemoEvent): EventTimes {
  const start = Date.parse(event.start);
  const end = Date.parse(event.end);
  const updated = event.resolved === true ? end + 86_400_000 : AS_OF - Math.floor(unit(`updated:${event.slug}`) * 3_600_000);
  return { start, end, updated };
}

function eventSummary(event: DemoEvent, id: string, times: EventTimes): Json {
  const closed = event.resolved === true;
  return {
    id,
    ticker: event.slug,
    slug: event.slug,
    title: event.title,
    description: event.description,
    resolutionSource: event.resolutionSource ?? '',
    startDate: iso(times.start),
    creationDate: iso(times.start + 600_000),
    endDate: iso(times.end),
    image: `${IMAGE_BASE}/${event.slug}.png`,
    icon: `${IMAGE_BASE}/${event.slug}.png`,
    active: true,
    closed,
    archived: false,
    createdAt: iso(times.start - 3_600_000),
    updatedAt: iso(times.updated),
  };
}

function marketObject(event: DemoEvent, eventJson: Json, market: DemoMarket, id: number, groupIndex: number, times: EventTimes): Json {
  const closed = market.winner !== undefined;
  const outcomes = market.outcomes ?? ['Yes', 'No'];
  const prices = closed ? (market.winner === 0 ? ['1', '0'] : ['0', '1']) : [priceText(market.price), priceText(1 - market.price)];
  const tick = market.tick ?? 0.01;
  const volume = decimals(unit(`volume:${market.slug}`) * 5_000_000 + 10_000, 6);
  const liquidity = closed ? 0 : decimals(unit(`liquidity:${market.slug}`) * 400_000 + 5_000, 4);
  const spread = closed ? tick : decimals(tick * (1 + Math.floor(unit(`spread:${market.slug}`) * 3)), 4);
  const bid = decimals(Math.max(tick, market.price - spread / 2), 3);
  const negRiskId = '0x' + sha256(`pmx-demo:negrisk:${event.slug}`).slice(0, 62) + '00';
  const created = times.start - 3_000_000;
  return {
    id: String(id),
    question: market.question,
    conditionId: demoConditionId(market.slug),
    slug: market.slug,
    resolutionSource: event.resolutionSource ?? '',
    endDate: iso(times.end),
    liquidity: String(liquidity),
    startDate: iso(times.start),
    image: `${IMAGE_BASE}/${market.slug}.png`,
    icon: `${IMAGE_BASE}/${market.slug}.png`,
    description: event.description,
    outcomes: JSON.stringify(outcomes).replaceAll('","', '", "'),
    outcomePrices: JSON.stringify(prices).replaceAll('","', '", "'),
    volume: String(volume),
    active: true,
    closed,
    marketMakerAddress: '',
    createdAt: iso(created),
    updatedAt: iso(times.updated),
    ...(closed ? { closedTime: legacy(times.end + 3_600_000) } : {}),
    new: false,
    featured: false,
    submitted_by: DEMO_CREATORS[event.creator],
    archived: false,
    resolvedBy: RESOLVER,
    restricted: true,
    ...(market.group !== undefined ? { groupItemTitle: market.group, groupItemThreshold: String(groupIndex) } : {}),
    // A question of a neg-risk event has its event's id with its question index in the last byte (upstream's NegRiskIdLib).
    questionID: event.negRisk ? negRiskId.slice(0, 64) + groupIndex.toString(16).padStart(2, '0') : '0x' + sha256(`pmx-demo:question:${market.slug}`),
    enableOrderBook: true,
    orderPriceMinTickSize: tick,
    orderMinSize: market.minShares ?? 5,
    ...(closed ? { umaResolutionStatus: 'resolved' } : {}),
    volumeNum: volume,
    liquidityNum: liquidity,
    endDateIso: iso(times.end).slice(0, 10),
    startDateIso: iso(times.start).slice(0, 10),
    hasReviewedDates: true,
    volume24hr: closed ? 0 : decimals(volume * 0.04 * unit(`v24:${market.slug}`), 6),
    volume1wk: closed ? 0 : decimals(volume * 0.2 * unit(`v1wk:${market.slug}`), 6),
    volume1mo: decimals(volume * 0.6, 6),
    volume1yr: volume,
    clobTokenIds: JSON.stringify([demoTokenId(market.slug, 0), demoTokenId(market.slug, 1)]).replaceAll('","', '", "'),
    umaBond: '500',
    umaReward: '5',
    volumeClob: volume,
    liquidityClob: liquidity,
    makerBaseFee: 0,
    takerBaseFee: market.takerFeeBps ?? 0,
    acceptingOrders: !closed,
    negRisk: event.negRisk,
    ...(event.negRisk ? { negRiskMarketID: negRiskId, negRiskRequestID: '0x' + sha256(`pmx-demo:negrisk-request:${market.slug}`) } : {}),
    events: [eventJson],
    acceptingOrdersTimestamp: iso(times.start),
    competitive: closed ? 0 : decimals(0.6 + 0.4 * unit(`competitive:${market.slug}`), 6),
    rewardsMinSize: 50,
    rewardsMaxSpread: 4.5,
    // A pool as upstream's catalog shows one (USDC.e, open-ended), for the markets DEMO_REWARDS names.
    ...(!closed && DEMO_REWARDS[market.slug] !== undefined
      ? { clobRewards: [{ id: String(700_000 + id), conditionId: demoConditionId(market.slug), assetAddress: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174', rewardsAmount: 0, rewardsDailyRate: DEMO_REWARDS[market.slug], startDate: iso(times.start).slice(0, 10), endDate: '2500-12-31' }] }
      : {}),
    spread,
    lastTradePrice: closed ? (market.winner === 0 ? 0.999 : 0.001) : decimals(market.price, 3),
    ...(closed ? {} : { bestBid: bid, bestAsk: decimals(bid + spread, 3) }),
    oneDayPriceChange: closed ? 0 : decimals((unit(`change:${market.slug}`) - 0.5) * 0.1, 4),
    umaResolutionStatuses: closed ? '["proposed", "resolved"]' : '[]',
    ...(closed ? { automaticallyResolved: true } : {}),
    feesEnabled: (market.takerFeeBps ?? 0) > 0,
  };
}

export interface DemoCatalogDump {
  readonly site: string;
  readonly tags: Json[];
  readonly series: Json[];
  readonly events: Json[];
  readonly markets: Json[];
}

export function buildDemoCatalog(): DemoCatalogDump {
  const tags = DEMO_TAGS.map((_, i) => tagObject(i));
  const series = DEMO_SERIES.map((_, i) => seriesObject(i));
  const events: Json[] = [];
  const markets: Json[] = [];
  let nextMarketId = 900_001;
  DEMO_EVENTS.forEach((event, index) => {
    const id = String(90_001 + index);
    const times = timesOf(event);
    const summary = eventSummary(event, id, times);
    const eventMarkets = event.markets.map((market, groupIndex) => marketObject(event, summary, market, nextMarketId++, groupIndex, times));
    markets.push(...eventMarkets);
    const volume = eventMarkets.reduce((n, m) => n + (m.volumeNum as number), 0);
    const liquidity = eventMarkets.reduce((n, m) => n + (m.liquidityNum as number), 0);
    const seriesIndex = DEMO_SERIES.findIndex((s) => s.slug === event.series);
    events.push({
      ...summary,
      new: false,
      featured: index < 3,
      restricted: true,
      liquidity: decimals(liquidity, 4),
      volume: decimals(volume, 6),
      openInterest: decimals(liquidity * 1.7, 4),
      sortBy: event.negRisk ? 'price' : 'ascending',
      competitive: decimals(0.6 + 0.4 * unit(`competitive:${event.slug}`), 6),
      volume24hr: decimals(eventMarkets.reduce((n, m) => n + (m.volume24hr as number), 0), 6),
      enableOrderBook: true,
      liquidityClob: decimals(liquidity, 4),
      negRisk: event.negRisk,
      ...(event.negRisk ? { negRiskMarketID: '0x' + sha256(`pmx-demo:negrisk:${event.slug}`).slice(0, 62) + '00' } : {}),
      commentCount: Math.floor(unit(`comments:${event.slug}`) * 2000),
      tags: event.tags.map((slug) => tags[DEMO_TAGS.findIndex((t) => t.slug === slug)]),
      ...(seriesIndex >= 0 ? { series: [series[seriesIndex]], seriesSlug: event.series } : {}),
      cyom: false,
      showAllOutcomes: true,
      showMarketImages: event.negRisk,
      enableNegRisk: event.negRisk,
      automaticallyActive: true,
      negRiskAugmented: false,
      eventMetadata: { demo: true },
    });
  });
  return { site: DEMO_SITE, tags, series, events, markets };
}

export const DEMO_CATALOG_FILE = 'demoCatalog.json';

export function renderDemoCatalog(): string {
  return JSON.stringify(buildDemoCatalog(), null, 2) + '\n';
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1] && process.argv.includes('--write')) {
  const target = join(process.cwd(), 'catalog', 'demo', DEMO_CATALOG_FILE);
  writeFileSync(target, renderDemoCatalog());
  process.stdout.write(`wrote ${target}\n`);
}
