// Table rows of stored upstream objects (see schema.ts for the columns). `site` is the catalog source that
// wrote the row (see creatorScope.ts); a reconciliation only judges its own upstream's objects by it. A
// written row is never deleted: writing an object is seeing it (store/tombstones.ts).
//
// Version rule: version = 2 × updatedAt (µs) + 1 for a copy fetched from the object's own endpoint, + 0 for
// a copy nested in another object. A newer copy wins; of two copies with the same updatedAt, the object's own
// copy wins; of equal versions, the later insert wins (ReplacingMergeTree). Objects without updatedAt get
// version 0 or 1, so any dated copy replaces them.

import { boolOf, idNumber, microsOf, numberOf, textOf, type GammaObject } from '../upstream/gammaValues.js';

export function versionOf(object: GammaObject, primary: boolean): number {
  const micros = Math.max(0, microsOf(object.updatedAt) ?? 0);
  return micros * 2 + (primary ? 1 : 0);
}

const flag = (value: unknown): number => (boolOf(value) === true ? 1 : 0);
const text = (value: unknown): string => textOf(value) ?? '';
const num = (value: unknown): number | null => numberOf(value) ?? null;
const date = (value: unknown): number | null => microsOf(value) ?? null;

/** The wallet that created a market, lowercased ('' when the upstream does not say). */
export function creatorOf(market: GammaObject): string {
  const raw = textOf(market.submitted_by) ?? textOf(market.submittedBy) ?? '';
  return raw.trim().toLowerCase();
}

export function marketRow(market: GammaObject, site: string, primary: boolean): Record<string, unknown> {
  const id = market.id as string;
  return {
    id,
    id_num: idNumber(id),
    condition_id: text(market.conditionId).toLowerCase(),
    slug: text(market.slug),
    question: text(market.question),
    question_id: text(market.questionID),
    active: flag(market.active),
    closed: flag(market.closed),
    archived: flag(market.archived),
    enable_order_book: flag(market.enableOrderBook),
    neg_risk: flag(market.negRisk),
    creator: creatorOf(market),
    site,
    start_date: date(market.startDate),
    end_date: date(market.endDate),
    created_at: date(market.createdAt),
    updated_at: date(market.updatedAt),
    closed_time: date(market.closedTime),
    volume: num(market.volumeNum ?? market.volume),
    volume_24hr: num(market.volume24hr),
    volume_1wk: num(market.volume1wk),
    volume_1mo: num(market.volume1mo),
    volume_1yr: num(market.volume1yr),
    liquidity: num(market.liquidityNum ?? market.liquidity),
    competitive: num(market.competitive),
    spread: num(market.spread),
    last_trade_price: num(market.lastTradePrice),
    best_bid: num(market.bestBid),
    best_ask: num(market.bestAsk),
    one_day_price_change: num(market.oneDayPriceChange),
    search_text: [text(market.question), text(market.groupItemTitle), text(market.slug)].join(' ').toLowerCase(),
    json: JSON.stringify(market),
    deleted: 0,
    version: versionOf(market, primary),
  };
}

export function eventRow(event: GammaObject, site: string, primary: boolean): Record<string, unknown> {
  const id = event.id as string;
  return {
    id,
    site,
    id_num: idNumber(id),
    slug: text(event.slug),
    ticker: text(event.ticker),
    title: text(event.title),
    active: flag(event.active),
    closed: flag(event.closed),
    archived: flag(event.archived),
    neg_risk: flag(event.negRisk),
    start_date: date(event.startDate),
    end_date: date(event.endDate),
    creation_date: date(event.creationDate),
    created_at: date(event.createdAt),
    updated_at: date(event.updatedAt),
    volume: num(event.volume),
    volume_24hr: num(event.volume24hr),
    liquidity: num(event.liquidity),
    competitive: num(event.competitive),
    open_interest: num(event.openInterest),
    search_text: [text(event.title), text(event.ticker), text(event.slug)].join(' ').toLowerCase(),
    json: JSON.stringify(event),
    deleted: 0,
    version: versionOf(event, primary),
  };
}

export function seriesRow(series: GammaObject, site: string, primary: boolean): Record<string, unknown> {
  const id = series.id as string;
  return {
    id,
    site,
    id_num: idNumber(id),
    slug: text(series.slug),
    ticker: text(series.ticker),
    title: text(series.title),
    active: flag(series.active),
    closed: flag(series.closed),
    archived: flag(series.archived),
    created_at: date(series.createdAt),
    updated_at: date(series.updatedAt),
    volume: num(series.volume),
    json: JSON.stringify(series),
    deleted: 0,
    version: versionOf(series, primary),
  };
}

export function tagRow(tag: GammaObject, site: string, primary: boolean): Record<string, unknown> {
  const id = tag.id as string;
  return {
    id,
    site,
    id_num: idNumber(id),
    label: text(tag.label),
    slug: text(tag.slug),
    created_at: date(tag.createdAt),
    updated_at: date(tag.updatedAt),
    json: JSON.stringify(tag),
    deleted: 0,
    version: versionOf(tag, primary),
  };
}
