// The MarketInfo of each market as the in-memory reads show it, made once and reused while what it is made of
// is unchanged: the engine's market as the log states it (its tokens, neg-risk flag and winning outcome) and
// the metadata object the source gave (compared by identity: the catalog's source gives one object per
// indexed market, catalog/marketIndex.ts; a source that makes new objects per call just misses). A page of
// 100 orders or 200 positions otherwise made 100–200 of these objects per request.
//
// Only markets the engine has listed are kept, so the cache holds at most one entry per listed market, whatever
// ids a query names.

import { marketInfo, type MarketInfo } from '../readModel/markets.js';
import type { MarketMetadata } from '../readModel/metadata.js';
import type { MarketState } from '../builders/markets.js';
import type { Outcome } from '../../engine/index.js';

interface Entry {
  readonly market: MarketState;
  readonly tokens: readonly [string, string];
  readonly negRisk: boolean;
  readonly winning: Outcome | null;
  readonly meta: MarketMetadata | undefined;
  readonly info: MarketInfo;
}

export class MarketInfoCache {
  private readonly entries = new Map<string, Entry>();

  /** marketInfo(conditionId, the engine's view of `market`, meta), made anew only when one of them changed. */
  infoOf(conditionId: string, market: MarketState | undefined, meta: MarketMetadata | undefined): MarketInfo {
    if (market === undefined) return marketInfo(conditionId, undefined, meta);
    const kept = this.entries.get(conditionId);
    if (kept !== undefined && kept.market === market && kept.meta === meta && kept.tokens === market.tokens && kept.negRisk === market.params.negRisk && kept.winning === market.winningOutcome) {
      return kept.info;
    }
    const info = marketInfo(conditionId, { tokens: market.tokens, negRisk: market.params.negRisk, winningOutcome: market.winningOutcome }, meta);
    this.entries.set(conditionId, { market, tokens: market.tokens, negRisk: market.params.negRisk, winning: market.winningOutcome, meta, info });
    return info;
  }
}
