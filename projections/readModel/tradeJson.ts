// A trade in the CLOB shape (accountTrades.ts) as JSON text, byte for byte what the route's schema serialiser
// (fast-json-stringify over api/trading/accountSchemas.ts TRADE, properties in schema order) writes for the same
// object; test/projections/shownJson.test.ts holds the two together over generated trades and odd strings.
//
// Why it exists: a page of 100 trades is ~90 KB of JSON, and serialising it costs more than finding it. The
// in-memory read model keeps each shown fill's JSON (projections/live/tradeJsonCache.ts) and a page is then
// these texts joined. A trade's JSON depends on the reader only through `trader_side`, so it is kept as the
// text before that value and the text after it.

import type { AccountTrade, MakerOrder } from './accountTrades.js';
import { jsonInt, jsonText } from './jsonText.js';

function makerOrderJson(m: MakerOrder): string {
  return `{"order_id":${jsonText(m.order_id)},"maker_address":${jsonText(m.maker_address)},"owner":${jsonText(m.owner)}`
    + `,"matched_amount":${jsonText(m.matched_amount)},"fee_rate_bps":${jsonText(m.fee_rate_bps)},"price":${jsonText(m.price)}`
    + `,"asset_id":${jsonText(m.asset_id)},"outcome":${jsonText(m.outcome)},"side":${jsonText(m.side)}}`;
}

/** A trade's JSON around its `trader_side` value: the whole is `head + jsonText(trader_side) + tail`. */
export interface TradeJsonParts {
  readonly head: string;
  readonly tail: string;
}

export function tradeJsonParts(t: AccountTrade): TradeJsonParts {
  const head = `{"id":${jsonText(t.id)},"taker_order_id":${jsonText(t.taker_order_id)},"market":${jsonText(t.market)}`
    + `,"asset_id":${jsonText(t.asset_id)},"side":${jsonText(t.side)},"size":${jsonText(t.size)},"fee_rate_bps":${jsonText(t.fee_rate_bps)}`
    + `,"price":${jsonText(t.price)},"status":${jsonText(t.status)},"match_time":${jsonText(t.match_time)},"last_update":${jsonText(t.last_update)}`
    + `,"outcome":${jsonText(t.outcome)},"bucket_index":${jsonInt(t.bucket_index)},"owner":${jsonText(t.owner)}`
    + `,"maker_address":${jsonText(t.maker_address)},"transaction_hash":${jsonText(t.transaction_hash)},"trader_side":`;
  const tail = `,"type":${jsonText(t.type)},"maker_orders":[${t.maker_orders.map(makerOrderJson).join(',')}]}`;
  return { head, tail };
}
