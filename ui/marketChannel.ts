// A client of the service's WebSocket market channel (docs/websocket.md; upstream's market channel): subscribes
// to a set of tokens, sends the text PING heartbeat, and reconnects after a drop, subscribing again (the
// server then sends fresh `book` snapshots, so nothing missed while away is kept stale).

import type { BookSnapshot } from './api.js';
import type { PriceChange } from './bookState.js';

export interface LastTrade {
  asset_id: string;
  price: string;
  size: string;
  side: 'BUY' | 'SELL';
  timestamp: string;
  transaction_hash: string;
}

export interface MarketHandlers {
  book(book: BookSnapshot): void;
  priceChange(changes: readonly PriceChange[]): void;
  lastTrade(trade: LastTrade): void;
}

export type LiveState = 'connecting' | 'live' | 'reconnecting';

const HEARTBEAT_MS = 10_000;
const RECONNECT_MS = 1_000;

export class MarketChannel {
  private socket: WebSocket | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly assetIds: readonly string[],
    private readonly handlers: MarketHandlers,
    private readonly onState: (state: LiveState) => void,
  ) {
    this.connect();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.retry);
    this.socket?.close();
  }

  private connect(): void {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${scheme}://${location.host}/ws/market`);
    this.socket = socket;
    socket.onopen = () => {
      socket.send(JSON.stringify({ type: 'market', assets_ids: this.assetIds }));
      this.heartbeat = setInterval(() => socket.send('PING'), HEARTBEAT_MS);
      this.onState('live');
    };
    socket.onmessage = (message) => {
      if (typeof message.data !== 'string' || message.data === 'PONG') return;
      const parsed: unknown = JSON.parse(message.data);
      for (const event of Array.isArray(parsed) ? parsed : [parsed]) this.dispatch(event as Record<string, unknown>);
    };
    socket.onclose = () => {
      clearInterval(this.heartbeat);
      if (this.closed) return;
      this.onState('reconnecting');
      this.retry = setTimeout(() => this.connect(), RECONNECT_MS);
    };
  }

  private dispatch(event: Record<string, unknown>): void {
    switch (event.event_type) {
      case 'book':
        this.handlers.book(event as unknown as BookSnapshot);
        break;
      case 'price_change':
        this.handlers.priceChange(event.price_changes as PriceChange[]);
        break;
      case 'last_trade_price':
        this.handlers.lastTrade(event as unknown as LastTrade);
        break;
      default:
        // tick_size_change, best_bid_ask and errors change nothing the page shows.
        break;
    }
  }
}
