// The market channel's events in upstream's shapes (upstream-conventions §4.1). Prices and sizes are the
// decimal strings of GET /book, timestamps ms since the epoch as strings, '' for a price that does not exist.

import { formatUnits, PRICE_ONE, type MarketParams, type MarketResolved, type TradeExecuted } from '../../engine/index.js';
import type { IndexedMarket } from '../../catalog/marketIndex.js';
import type { BookSnapshot } from '../clob/bookView.js';
import type { LevelChange } from './marketLevels.js';

const price = (units: number | undefined): string => (units === undefined ? '' : formatUnits(units));

export function bookEvent(book: BookSnapshot): Record<string, unknown> {
  return { event_type: 'book', ...book };
}

export interface PriceChangeEntry {
  asset_id: string;
  price: string;
  size: string;
  side: 'BUY' | 'SELL';
  hash: string;
  best_bid: string;
  best_ask: string;
}

export function priceChangeEvent(
  market: string,
  assetId: string,
  timestamp: number,
  changes: readonly LevelChange[],
  after: { hash: string; bid: number | undefined; ask: number | undefined },
): Record<string, unknown> {
  const best_bid = price(after.bid);
  const best_ask = price(after.ask);
  const price_changes: PriceChangeEntry[] = changes.map((c) => ({ asset_id: assetId, price: formatUnits(c.price), size: formatUnits(c.size), side: c.side, hash: after.hash, best_bid, best_ask }));
  return { event_type: 'price_change', market, price_changes, timestamp: String(timestamp) };
}

export function bestBidAskEvent(market: string, assetId: string, timestamp: number, bid: number | undefined, ask: number | undefined): Record<string, unknown> {
  const spread = bid === undefined || ask === undefined ? '' : formatUnits(ask - bid);
  return { event_type: 'best_bid_ask', market, asset_id: assetId, best_bid: price(bid), best_ask: price(ask), spread, timestamp: String(timestamp) };
}

/** The fill as `outcome`'s token sees it: its price, and the taker's side in its terms. */
export function lastTradePriceEvent(e: TradeExecuted, outcome: 0 | 1, tokenId: string, transactionHash: string): Record<string, unknown> {
  const p = outcome === 0 ? e.price : PRICE_ONE - e.price;
  const takerSide = e.taker.outcome === outcome ? e.taker.side : e.taker.side === 'BUY' ? 'SELL' : 'BUY';
  return {
    event_type: 'last_trade_price',
    asset_id: tokenId,
    market: e.conditionId,
    price: formatUnits(p),
    size: formatUnits(e.size),
    fee_rate_bps: String(e.taker.feeBps),
    side: takerSide,
    timestamp: String(e.time),
    transaction_hash: transactionHash,
  };
}

export function tickSizeChangeEvent(market: string, assetId: string, previous: MarketParams, next: MarketParams, timestamp: number): Record<string, unknown> {
  return { event_type: 'tick_size_change', asset_id: assetId, market, old_tick_size: formatUnits(previous.tickSize), new_tick_size: formatUnits(next.tickSize), timestamp: String(timestamp) };
}

function eventMessage(m: IndexedMarket | undefined): Record<string, string> {
  const e = m?.event;
  return { id: e?.id ?? '', ticker: e?.ticker ?? '', slug: e?.slug ?? '', title: e?.title ?? '', description: e?.description ?? '' };
}

/** A market the catalog handed to the order book; catalog fields are '' when the index does not know it yet. */
export function newMarketEvent(conditionId: string, tokenIds: readonly [string, string], params: MarketParams, m: IndexedMarket | undefined, timestamp: number): Record<string, unknown> {
  return {
    event_type: 'new_market',
    id: m?.catalogId ?? '',
    question: m?.question ?? '',
    market: conditionId,
    slug: m?.slug ?? '',
    description: m?.description ?? '',
    assets_ids: [...tokenIds],
    outcomes: [...(m?.outcomes ?? ['Yes', 'No'])],
    event_message: eventMessage(m),
    timestamp: String(timestamp),
    tags: [...(m?.tags ?? [])],
    condition_id: conditionId,
    active: true,
    clob_token_ids: [...tokenIds],
    sports_market_type: '',
    line: '',
    game_start_time: m?.gameStartTime ?? '',
    order_price_min_tick_size: formatUnits(params.tickSize),
    group_item_title: m?.groupItemTitle ?? '',
    taker_base_fee: String(params.takerFeeBps),
    fees_enabled: params.takerFeeBps > 0 || params.makerFeeBps > 0,
  };
}

export function marketResolvedEvent(e: MarketResolved, tokenIds: readonly [string, string], m: IndexedMarket | undefined): Record<string, unknown> {
  return {
    event_type: 'market_resolved',
    id: m?.catalogId ?? '',
    market: e.conditionId,
    assets_ids: [...tokenIds],
    winning_asset_id: e.winningTokenId,
    winning_outcome: (m?.outcomes ?? ['Yes', 'No'])[e.winningOutcome],
    event_message: eventMessage(m),
    timestamp: String(e.time),
    tags: [...(m?.tags ?? [])],
  };
}
