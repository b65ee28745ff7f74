// An order in the CLOB shape (accountOrders.ts, upstream's OpenOrder) as JSON text, byte for byte what the
// route's schema serialiser (fast-json-stringify over api/trading/accountSchemas.ts ORDER, properties in schema
// order) writes for the same object; test/projections/shownJson.test.ts holds the two together over generated
// orders. The in-memory read model keeps the text of each order GET /data/orders has shown
// (projections/live/orderJsonCache.ts), so that a page is these texts joined.

import type { AccountOrder } from './accountOrders.js';
import { jsonInt, jsonText } from './jsonText.js';

export function orderJson(o: AccountOrder): string {
  let trades = '';
  for (let i = 0; i < o.associate_trades.length; i++) trades += (i > 0 ? ',' : '') + jsonText(o.associate_trades[i] as string);
  return `{"id":${jsonText(o.id)},"status":${jsonText(o.status)},"owner":${jsonText(o.owner)},"maker_address":${jsonText(o.maker_address)}`
    + `,"market":${jsonText(o.market)},"asset_id":${jsonText(o.asset_id)},"side":${jsonText(o.side)},"original_size":${jsonText(o.original_size)}`
    + `,"size_matched":${jsonText(o.size_matched)},"price":${jsonText(o.price)},"outcome":${jsonText(o.outcome)},"expiration":${jsonText(o.expiration)}`
    + `,"order_type":${jsonText(o.order_type)},"associate_trades":[${trades}],"created_at":${jsonInt(o.created_at)}}`;
}
