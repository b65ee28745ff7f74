// Public surface of the engine.
export { Engine } from './engine.js';
export type { TokenBook, Balances } from './engine.js';
export type * from './commands.js';
export { COMMAND_TYPES } from './commands.js';
export type * from './events.js';
export { EVENT_VERSION, tradeIdFor } from './events.js';
export { REJECT, rejectMessage } from './rejectReasons.js';
export type { RejectCode } from './rejectReasons.js';
export { DEFAULT_ENGINE_CONFIG } from './state.js';
export type { EngineConfig } from './state.js';
export { fastBookFactory } from './book/fastBook.js';
export { referenceBookFactory } from './book/referenceBook.js';
export type { BookFactory, OrderBook, PriceLevel } from './book/orderBook.js';
export * from './units.js';
export { MARKET_TRANSITIONS } from './market.js';
export { ORDER_TRANSITIONS } from './order.js';
export type { OrderStatus } from './order.js';
