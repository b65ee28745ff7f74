// The uWS topics the stream publisher publishes to and connections subscribe to. A message is serialised
// once and published to one topic; uWS copies it to every subscriber.

/** Book, price, trade and tick-size events of one token (market channel). */
export const tokenTopic = (tokenId: string): string => `m:${tokenId}`;
/** best_bid_ask of one token (market channel with custom_feature_enabled). */
export const customTokenTopic = (tokenId: string): string => `c:${tokenId}`;
/** market_resolved of one market (market channel with custom_feature_enabled). */
export const resolvedTopic = (conditionId: string): string => `r:${conditionId}`;
/** new_market of every market (market channel with custom_feature_enabled). */
export const NEW_MARKET_TOPIC = 'new_market';
/** Every order and trade event of one API key (user channel without a market filter). */
export const userTopic = (apiKey: string): string => `u:${apiKey}`;
/** The order and trade events of one API key in one market (user channel with a market filter). */
export const userMarketTopic = (apiKey: string, conditionId: string): string => `u:${apiKey}:${conditionId}`;

/** Where published messages go: uWS's app in the service, anything with the same two calls in tests. */
export interface Fanout {
  publish(topic: string, message: string): void;
  subscribers(topic: string): number;
}
