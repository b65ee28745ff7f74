// The read model: query functions over the projection tables, in the shapes of the spec. See README.md.

export { ReadModelInputError } from './errors.js';
export { readContext, type ReadContext, type ReadContextOptions } from './context.js';
export { FALLBACK_METADATA, metadataFrom, noMetadata, type MarketMetadata, type MarketMetadataSource } from './metadata.js';
export { activityTrades, ACTIVITY_TRADES_DEFAULT_LIMIT, ACTIVITY_TRADES_MAX_LIMIT, type ActivityTrade, type ActivityTradesParams } from './activityTrades.js';
export { positions, POSITION_SORTS, type Position, type PositionsParams } from './positions.js';
export { holders, HOLDERS_DEFAULT_LIMIT, HOLDERS_MAX_LIMIT, type Holder, type HolderGroup, type HoldersParams } from './holders.js';
export { accountTrades, builderTrades, builderTradesPage, type AccountTrade, type AccountTradesParams, type BuilderTrade, type BuilderTradePage, type BuilderTradesParams, type MakerOrder, type TradePage } from './accountTrades.js';
export { accountOrder, accountOrders, ACCOUNT_ORDERS_DEFAULT_PAGE, ACCOUNT_ORDERS_MAX_PAGE, type AccountOrder, type AccountOrderParams, type AccountOrdersParams, type OrderPage, type OrderStatus } from './accountOrders.js';
export { cursorFor, END_CURSOR, FIRST_CURSOR, parseCursor } from './cursor.js';
export { batchPriceHistory, priceHistory, PRICE_INTERVALS, MAX_POINTS, type PricePoint, type PriceHistoryParams, type BatchPriceHistoryParams } from './priceHistory.js';
export { assetOf, transactionHashOf } from './wire.js';
