// The WebSocket channels' counters, read by /metrics when scraped (server/metrics.ts).

export interface WsCounters {
  /** Open connections by channel. */
  marketConnections: number;
  userConnections: number;
  connectionsTotal: number;
  /** Current subscriptions: assets on the market channel, markets (or "all") on the user channel. */
  subscriptions: number;
  /** Messages and bytes handed to subscribers (a topic message counts once per subscriber). */
  messagesSent: number;
  bytesSent: number;
  slowConsumersDropped: number;
  /** Upgrades refused for the per-IP connection limit. */
  connectionsRefused: number;
  /** Error frames sent and connections closed for bad credentials. */
  errorFrames: number;
  authFailures: number;
}

export function newWsCounters(): WsCounters {
  return { marketConnections: 0, userConnections: 0, connectionsTotal: 0, subscriptions: 0, messagesSent: 0, bytesSent: 0, slowConsumersDropped: 0, connectionsRefused: 0, errorFrames: 0, authFailures: 0 };
}
