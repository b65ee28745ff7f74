// Price history per token and minute: the last trade price and the midpoint at the end of that minute
// (one row per token for every minute in which its market's book or last trade changed; readers carry
// values forward over quiet minutes). Outcome 1's prices are the mirror of outcome 0's. Within a batch a
// later record in the same minute replaces the row; across batches the higher version (log position) wins.

import type { LogRecord } from '../../log/eventLog.js';
import { PRICE_ONE } from '../../engine/index.js';
import { chMinute, type Row, type RowSink } from '../rows.js';
import type { MarketsBuilder } from './markets.js';
import type { OrdersBuilder } from './orders.js';

export class PriceHistoryBuilder {
  /** Last trade per market, outcome 0's price. */
  readonly lastTrade = new Map<string, number>();
  private pending = new Map<string, Row>();

  constructor(
    private readonly markets: MarketsBuilder,
    private readonly orders: OrdersBuilder,
  ) {}

  apply(record: LogRecord, touched: ReadonlySet<string>): void {
    let time = 0;
    for (const e of record.events) {
      time = e.time;
      if (e.type === 'TradeExecuted') this.lastTrade.set(e.conditionId, e.price);
    }
    for (const conditionId of touched) {
      const m = this.markets.markets.get(conditionId);
      if (m === undefined) continue;
      const { bid, ask } = this.orders.bestPrices(conditionId);
      const mid = bid !== undefined && ask !== undefined ? Math.round((bid + ask) / 2) : null;
      const last = this.lastTrade.get(conditionId) ?? null;
      const minute = chMinute(time);
      m.tokens.forEach((tokenId, i) => {
        const mirror = (p: number | null): number | null => (p === null ? null : i === 0 ? p : PRICE_ONE - p);
        this.pending.set(`${tokenId}|${minute}`, { token_id: tokenId, minute, last_trade: mirror(last), mid: mirror(mid), version: record.pos });
      });
    }
  }

  /** Moves the rows of the batch into `out`. */
  flush(out: RowSink): void {
    for (const row of this.pending.values()) out.add('price_history', row);
    this.pending = new Map();
  }
}
