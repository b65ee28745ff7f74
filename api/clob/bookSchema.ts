// The wire shape of one order-book snapshot (spec §2.9, upstream §3.2), shared by GET /book, POST /books and the
// book history (GET /book?at=, GET /orderbook-history), and stated in the OpenAPI document.

import { arr, bool, obj, str } from '../schemas/common.js';

const LEVEL = obj({ price: str(), size: str() });

/** Key order is the hash's (upstream §3.2): fast-json-stringify writes properties in schema order. */
export const BOOK_SCHEMA = obj({
  market: str('Condition id.'),
  asset_id: str('Token id.'),
  timestamp: str('When the book was read, ms since the epoch.'),
  hash: str('SHA-1 of this JSON with hash "".'),
  bids: arr(LEVEL),
  asks: arr(LEVEL),
  min_order_size: str(),
  tick_size: str(),
  neg_risk: bool(),
  last_trade_price: str('Price of the last fill in this token; "" before the first.'),
});
