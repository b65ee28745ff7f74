// Response schemas of the account reads (fast-json-stringify serialises with them: every field sent is here).
// Orders are upstream's flat OpenOrder (upstream-conventions §2.7); GET /data/order/{id} adds the spec's
// camelCase `order` wrapper (spec §2.11) to the same object. Trades are spec §2.10 / upstream §2.8.

import type { JsonSchema } from '../http/apiTypes.js';
import { arr, int, obj, str } from '../schemas/common.js';

export const ORDER: JsonSchema = obj({
  id: str('Order id: the EIP-712 hash of the signed order.'),
  status: str('LIVE, MATCHED, CANCELED, EXPIRED or CANCELED_MARKET_RESOLVED.'),
  owner: str('API key that placed the order.'),
  maker_address: str('Account whose balances fund the order (the signed maker), lower-case.'),
  market: str('Condition id.'),
  asset_id: str('Token id.'),
  side: str('BUY or SELL.'),
  original_size: str('Shares.'),
  size_matched: str('Shares filled so far.'),
  price: str('Limit price.'),
  outcome: str('Outcome label.'),
  expiration: str('Unix seconds; "0" = none.'),
  order_type: str('GTC, GTD, FOK or FAK.'),
  associate_trades: arr(str()),
  created_at: int('Unix seconds.'),
});

/** The spec's wrapper (§2.11), camelCase; createdAt in ISO 8601. */
export const ORDER_WRAPPER: JsonSchema = obj({
  associateTrades: arr(str()),
  id: str(),
  status: str(),
  market: str(),
  originalSize: str(),
  outcome: str(),
  makerAddress: str(),
  owner: str(),
  price: str(),
  sizeMatched: str(),
  assetId: str(),
  side: str(),
  type: str(),
  createdAt: str('ISO 8601.'),
});

const ORDER_PROPERTIES = (ORDER as { properties: Record<string, JsonSchema> }).properties;

/** GET /data/order/{id}: the wrapper and the flat fields in one object. */
export const ORDER_ANSWER: JsonSchema = obj({ order: ORDER_WRAPPER, ...ORDER_PROPERTIES });

const MAKER_ORDER: JsonSchema = obj({
  order_id: str(), maker_address: str(), owner: str(), matched_amount: str(), fee_rate_bps: str(), price: str(), asset_id: str(), outcome: str(), side: str(),
});

export const TRADE: JsonSchema = obj({
  id: str('Trade id (one per fill).'),
  taker_order_id: str(),
  market: str('Condition id.'),
  asset_id: str('Token id of the taker order.'),
  side: str('Side of the taker order.'),
  size: str('Shares.'),
  fee_rate_bps: str(),
  price: str(),
  status: str('CONFIRMED: settled inside the exchange.'),
  match_time: str('Unix seconds.'),
  last_update: str('Unix seconds.'),
  outcome: str(),
  bucket_index: int('Index of the fill among its taker order\'s fills.'),
  owner: str('API key of the taker order.'),
  maker_address: str('Account of the taker order.'),
  transaction_hash: str(),
  trader_side: str('TAKER or MAKER: the role of the caller (of the attributed order on /builder/trades).'),
  type: str(),
  maker_orders: arr(MAKER_ORDER),
});

/** A cursor page `{data, next_cursor, limit, count}`. */
export function page(items: JsonSchema): JsonSchema {
  return obj({ data: arr(items), next_cursor: str('MA== first; LTE= when no page follows.'), limit: int(), count: int() });
}

/** The official client's BuilderTrade (upstream §2.8): one fill seen from the order that carried the builder code. */
export const BUILDER_TRADE: JsonSchema = obj({
  id: str('Trade id (the fill id, as in the bare-array form).'),
  tradeType: str('TAKER or MAKER: the role of the attributed order.'),
  takerOrderHash: str('Id of the taker order.'),
  builder: str('Builder code of the attributed order.'),
  market: str('Condition id.'),
  assetId: str('Token id of the attributed order.'),
  side: str('BUY or SELL: side of the attributed order.'),
  size: str('Shares, decimal.'),
  sizeUsdc: str('Collateral, decimal: what the attributed side paid (BUY) or received before fees (SELL).'),
  price: str('The attributed side\'s price in its own token.'),
  status: str('CONFIRMED: settled inside the exchange.'),
  outcome: str('Outcome label of the attributed order\'s token.'),
  outcomeIndex: int('0 or 1.'),
  owner: str('API key of the attributed order.'),
  maker: str('Account of the attributed order (its signed maker).'),
  transactionHash: str(),
  matchTime: str('Unix seconds.'),
  bucketIndex: int('Index of the fill among its taker order\'s fills.'),
  fee: str('Fee the attributed side paid, decimal: tokens for a BUY, collateral for a SELL.'),
  feeUsdc: str('That fee in collateral at the side\'s price, decimal.'),
  builderFee: str('"0": no builder fees are charged.'),
  builderCode: str('Builder code of the attributed order.'),
  err_msg: { type: ['string', 'null'], description: 'Always null.' },
  createdAt: str('The fill\'s time, ISO 8601 (seconds).'),
  updatedAt: str('Same as createdAt: a fill never changes.'),
});

/**
 * GET /builder/trades: the spec's bare array (§4.3) without `builder_code`, the official client's page of
 * BuilderTrade with it. fast-json-stringify picks the branch by validating the body against each in turn.
 */
export const BUILDER_TRADES_ANSWER: JsonSchema = { anyOf: [arr(TRADE), page(BUILDER_TRADE)] };
