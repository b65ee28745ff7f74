// Price history per token and minute: the last trade price, the midpoint and the spread (best ask − best bid)
// at the end of that minute, midpoint and spread null unless both sides had orders (one row per token for every
// minute in which its market's book or last trade changed; readers carry values forward over quiet minutes).
// The mark is a rule over the three (readModel/marks.ts). Outcome 1's prices are the mirror of outcome 0's; its
// spread is outcome 0's. Within a batch a later record in the same minute replaces the row; across batches the
// higher version (log position) wins.

import type { EventsRecord } from '../../log/eventLog.js';
import { PRICE_ONE } from '../../engine/index.js';
import type { RowSink } from '../rows.js';
import type { MarketsBuilder } from './markets.js';
import type { OrdersBuilder } from './orders.js';

/** Outcome 1's price from outcome 0's. */
function mirror(p: number | null): number | null {
  return p === null ? null : PRICE_ONE - p;
}

interface PriceRow {
  readonly tokenId: string;
  readonly minuteMs: number;
  last: number | null;
  mid: number | null;
  spread: number | null;
  version: number;
}

export class PriceHistoryBuilder {
  /** Last trade per market, outcome 0's price. */
  readonly lastTrade = new Map<string, number>();
  /**
   * The batch's rows by token, then minute (start of the minute, ms): a later record in the same minute
   * updates the row. Two maps rather than one keyed by token and minute: no key string built per record.
   */
  private pending = new Map<string, Map<number, PriceRow>>();

  constructor(
    private readonly markets: MarketsBuilder,
    private readonly orders: OrdersBuilder,
  ) {}

  apply(record: EventsRecord, touched: ReadonlySet<string>): void {
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
      const spread = bid !== undefined && ask !== undefined ? ask - bid : null;
      const last = this.lastTrade.get(conditionId) ?? null;
      const minuteMs = time - (time % 60_000);
      const [token0, token1] = m.tokens;
      this.put(token0, minuteMs, last, mid, spread, record.pos);
      this.put(token1, minuteMs, mirror(last), mirror(mid), spread, record.pos);
    }
  }

  private put(tokenId: string, minuteMs: number, last: number | null, mid: number | null, spread: number | null, version: number): void {
    let minutes = this.pending.get(tokenId);
    if (minutes === undefined) {
      minutes = new Map();
      this.pending.set(tokenId, minutes);
    }
    const row = minutes.get(minuteMs);
    if (row === undefined) {
      minutes.set(minuteMs, { tokenId, minuteMs, last, mid, spread, version });
      return;
    }
    row.last = last;
    row.mid = mid;
    row.spread = spread;
    row.version = version;
  }

  /** Moves the rows of the batch into `out`. */
  flush(out: RowSink): void {
    for (const minutes of this.pending.values()) for (const r of minutes.values()) out.row('price_history').string(r.tokenId).minute(r.minuteMs).nullInt(r.last).nullInt(r.mid).int(r.version).nullInt(r.spread).end();
    this.pending = new Map();
  }
}
