// What the order-book surface reads of the engine's live state, in a token's own terms (outcome-1 tokens
// see the mirrored book, engine/engine.ts `book`). Pure functions of the engine; integers until the wire.
//
// - Book snapshot (spec §2.9, upstream §3.2): levels ordered best LAST (bids ascending, asks descending);
//   prices and sizes as exact decimal strings; `hash` = SHA-1 hex of the compact JSON of the snapshot with
//   `hash: ""`, keys in the order market, asset_id, timestamp, hash, bids, asks, min_order_size, tick_size,
//   neg_risk, last_trade_price; `timestamp` = when it was read (ms, string); `last_trade_price` = the
//   market's last fill in this token's price, '' before the first.
// - Last trade side: the taker's side in this token's terms. The engine keeps the taker's own outcome and
//   side; a taker of the other outcome traded the opposite side of this token (buying NO = selling YES).
// - Midpoint = (best bid + best ask) / 2, exact: prices are multiples of the 0.0001 tick, so the sum is
//   even in micro-units. Spread = best ask − best bid.
// - Mark (the token `price` in market lists): upstream's displayed price, the midpoint when both sides have
//   orders and the spread is at most 0.10, else the last trade, else (never traded) the midpoint, else none
//   (0 on the wire); 1 / 0 once the market is resolved. The read model's rule (projections/readModel/marks.ts,
//   markFrom), from live state instead of price history.

import { createHash } from 'node:crypto';
import { formatUnits, PRICE_ONE, type Engine, type Outcome, type PriceLevel } from '../../engine/index.js';
import type { Market } from '../../engine/market.js';
import { markFrom } from '../../projections/readModel/marks.js';
import type { BookSideName } from './clobInputs.js';

/** The latest moment a book history read accepts (ms): the last of 2299, where ClickHouse's DateTime64 ends. */
export const LATEST_MOMENT_MS = 10_413_791_999_999;

/** The engine reads this surface makes. */
export type EngineReads = Pick<Engine, 'book' | 'market' | 'marketOfToken' | 'markets' | 'seq' | 'rewardTerms'>;

export interface WireLevel {
  price: string;
  size: string;
}

export interface BookSnapshot {
  market: string;
  asset_id: string;
  timestamp: string;
  hash: string;
  bids: WireLevel[];
  asks: WireLevel[];
  min_order_size: string;
  tick_size: string;
  neg_risk: boolean;
  last_trade_price: string;
}

export interface LastTrade {
  /** Micro-units, in the token's terms. */
  readonly price: number;
  readonly side: BookSideName;
}

/** The last fill of `market` as the holder of `outcome` sees it. */
export function lastTradeOf(market: Market, outcome: Outcome): LastTrade | undefined {
  const last = market.lastTrade;
  if (last === null) return undefined;
  const price = outcome === 0 ? last.price : PRICE_ONE - last.price;
  const side = last.takerOutcome === outcome ? last.takerSide : last.takerSide === 'BUY' ? 'SELL' : 'BUY';
  return { price, side };
}

/** SHA-1 of the snapshot's compact JSON with an empty hash (upstream §3.2). */
export function bookHash(snapshot: BookSnapshot): string {
  return createHash('sha1').update(JSON.stringify({ ...snapshot, hash: '' })).digest('hex');
}

function wireLevels(levels: readonly PriceLevel[]): WireLevel[] {
  const out: WireLevel[] = new Array<WireLevel>(levels.length);
  for (let i = 0; i < levels.length; i += 1) {
    const level = levels[levels.length - 1 - i] as PriceLevel;
    out[i] = { price: formatUnits(level.price), size: formatUnits(level.size) };
  }
  return out;
}

/** The full book of a token, or undefined when no listed market has the token. */
export function bookSnapshot(engine: EngineReads, tokenId: string, nowMs: number): BookSnapshot | undefined {
  const snapshot = unstampedBook(engine, tokenId);
  if (snapshot === undefined) return undefined;
  snapshot.timestamp = String(Math.floor(nowMs));
  snapshot.hash = bookHash(snapshot);
  return snapshot;
}

/** A token's book with timestamp and hash still empty. */
function unstampedBook(engine: EngineReads, tokenId: string): BookSnapshot | undefined {
  const book = engine.book(tokenId);
  if (book === undefined) return undefined;
  const { market, outcome } = book;
  const last = lastTradeOf(market, outcome);
  return {
    market: market.conditionId,
    asset_id: tokenId,
    timestamp: '',
    hash: '',
    bids: wireLevels(book.bids),
    asks: wireLevels(book.asks),
    min_order_size: formatUnits(market.params.minSize),
    tick_size: formatUnits(market.params.tickSize),
    neg_risk: market.params.negRisk,
    last_trade_price: last === undefined ? '' : formatUnits(last.price),
  };
}

/**
 * A token's book as long as the engine applies no command, with its compact JSON cut around the two fields
 * that change with the clock: JSON = head + timestamp + middle + hash + tail. Stamping it with a time
 * (stampBook) then costs one SHA-1 and a few concatenations instead of formatting and serialising 80 levels.
 */
export interface BookTemplate {
  /** The snapshot with timestamp and hash empty; its level arrays are shared by every stamp. */
  readonly unstamped: BookSnapshot;
  /** `{"market":…,"asset_id":…,"timestamp":"` */
  readonly head: string;
  /** `","hash":"` */
  readonly middle: string;
  /** `","bids":[…],…}` */
  readonly tail: string;
}

export interface StampedBook {
  readonly snapshot: BookSnapshot;
  /** The snapshot's compact JSON, keys in the hash order (the same bytes as JSON.stringify(snapshot)). */
  readonly json: string;
}

export function bookTemplate(engine: EngineReads, tokenId: string): BookTemplate | undefined {
  const unstamped = unstampedBook(engine, tokenId);
  if (unstamped === undefined) return undefined;
  const { market, asset_id, bids, asks, min_order_size, tick_size, neg_risk, last_trade_price } = unstamped;
  return {
    unstamped,
    head: `{"market":${JSON.stringify(market)},"asset_id":${JSON.stringify(asset_id)},"timestamp":"`,
    middle: '","hash":"',
    tail: `",${JSON.stringify({ bids, asks, min_order_size, tick_size, neg_risk, last_trade_price }).slice(1)}`,
  };
}

/** The template at `nowMs`: the same snapshot and hash bookSnapshot gives, and its JSON. */
export function stampBook(template: BookTemplate, nowMs: number): StampedBook {
  // A decimal integer needs no JSON escaping; a SHA-1 hex digest neither.
  const timestamp = String(Math.floor(nowMs));
  const before = template.head + timestamp + template.middle;
  const hash = createHash('sha1').update(before).update(template.tail).digest('hex');
  return { snapshot: { ...template.unstamped, timestamp, hash }, json: before + hash + template.tail };
}

export interface TokenQuote {
  readonly market: Market;
  readonly outcome: Outcome;
  /** Micro-units; undefined when the side is empty. */
  readonly bestBid: number | undefined;
  readonly bestAsk: number | undefined;
}

/** Best bid and ask of a token, or undefined when no listed market has the token. */
export function quoteOf(engine: EngineReads, tokenId: string): TokenQuote | undefined {
  const book = engine.book(tokenId, 1);
  if (book === undefined) return undefined;
  return { market: book.market, outcome: book.outcome, bestBid: book.bids[0]?.price, bestAsk: book.asks[0]?.price };
}

/** BUY → best bid, SELL → best ask (upstream §3.3: the side of the resting orders). */
export function priceFor(quote: TokenQuote, side: BookSideName): number | undefined {
  return side === 'BUY' ? quote.bestBid : quote.bestAsk;
}

export function midpointOf(quote: TokenQuote): number | undefined {
  if (quote.bestBid === undefined || quote.bestAsk === undefined) return undefined;
  return (quote.bestBid + quote.bestAsk) / 2;
}

export function spreadOf(quote: TokenQuote): number | undefined {
  if (quote.bestBid === undefined || quote.bestAsk === undefined) return undefined;
  return quote.bestAsk - quote.bestBid;
}

/** Micro-units → decimal string; '' for a value that does not exist. */
export function decimalOrEmpty(value: number | undefined): string {
  return value === undefined ? '' : formatUnits(value);
}

/** Marks of outcome 0 and outcome 1 (micro-units), see the contract above; undefined when none. */
export function marksOf(engine: EngineReads, market: Market): readonly [number, number] | undefined {
  if (market.status === 'resolved') return market.winningOutcome === 0 ? [PRICE_ONE, 0] : [0, PRICE_ONE];
  const quote = quoteOf(engine, market.tokenIds[0]);
  const mid = quote === undefined ? undefined : midpointOf(quote);
  const spread = quote === undefined ? undefined : spreadOf(quote);
  const mark0 = markFrom(mid ?? null, spread ?? null, market.lastTrade?.price ?? null);
  return mark0 === null ? undefined : [mark0, PRICE_ONE - mark0];
}
