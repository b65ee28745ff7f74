// Engine markets as the log states them: listing, parameter changes, status changes and resolution. Keeps
// every market in memory (the positions and price-history builders need token → market and resolution).

import type { EventsRecord } from '../../log/eventLog.js';
import type { MarketParams, Outcome } from '../../engine/index.js';
import type { RowSink } from '../rows.js';

export interface MarketState {
  conditionId: string;
  tokens: [string, string];
  params: MarketParams;
  status: 'active' | 'paused' | 'resolved';
  winningOutcome: Outcome | null;
  listedAt: number;
  updatedAt: number;
}

export class MarketsBuilder {
  readonly markets = new Map<string, MarketState>();
  readonly byToken = new Map<string, { market: MarketState; outcome: Outcome }>();

  /** Restores a market from its stored row. */
  restore(m: MarketState): void {
    this.markets.set(m.conditionId, m);
    this.byToken.set(m.tokens[0], { market: m, outcome: 0 });
    this.byToken.set(m.tokens[1], { market: m, outcome: 1 });
  }

  apply(record: EventsRecord, out: RowSink): void {
    // Created on the first market event: most records have none.
    let touched: Set<MarketState> | undefined;
    for (const e of record.events) {
      switch (e.type) {
        case 'MarketListed': {
          const m: MarketState = {
            conditionId: e.conditionId, tokens: [e.tokenIds[0], e.tokenIds[1]],
            params: { tickSize: e.tickSize, minSize: e.minSize, makerFeeBps: e.makerFeeBps, takerFeeBps: e.takerFeeBps, negRisk: e.negRisk },
            status: 'active', winningOutcome: null, listedAt: e.time, updatedAt: e.time,
          };
          this.restore(m);
          (touched ??= new Set()).add(m);
          break;
        }
        case 'MarketUpdated': {
          const m = this.markets.get(e.conditionId);
          if (m === undefined) break;
          m.params = { tickSize: e.tickSize, minSize: e.minSize, makerFeeBps: e.makerFeeBps, takerFeeBps: e.takerFeeBps, negRisk: e.negRisk };
          m.updatedAt = e.time;
          (touched ??= new Set()).add(m);
          break;
        }
        case 'MarketStatusChanged':
        case 'MarketResolved': {
          const m = this.markets.get(e.conditionId);
          if (m === undefined) break;
          if (e.type === 'MarketStatusChanged') m.status = e.to;
          else m.winningOutcome = e.winningOutcome;
          m.updatedAt = e.time;
          (touched ??= new Set()).add(m);
          break;
        }
        default:
          break;
      }
    }
    if (touched === undefined || !out.keeps) return;
    for (const m of touched) {
      out
        .row('engine_markets')
        .string(m.conditionId).string(m.tokens[0]).string(m.tokens[1]).int(m.params.tickSize).int(m.params.minSize).int(m.params.makerFeeBps)
        .int(m.params.takerFeeBps).bool(m.params.negRisk).string(m.status).int(m.winningOutcome ?? -1).time(m.listedAt).time(m.updatedAt).int(record.pos)
        .end();
    }
  }
}
