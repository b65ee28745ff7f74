// Every order-book read of the CLOB surface (spec §4.3, §8.2; upstream §2.9, §3), as HTTP routes. Live
// values (books, prices, market parameters and status) come from the engine's state in this process;
// catalog fields from the in-memory market index; price history from ClickHouse. Nothing here writes.
// Decisions where the spec is silent are listed in api/clob/README.md.

import type { RouteDef } from '../http/apiTypes.js';
import type { ReadContext } from '../../projections/readModel/index.js';
import type { EngineReads } from './bookView.js';
import type { MarketLookup } from './marketForms.js';
import { bookRoutes } from './bookRoutes.js';
import { bookHistoryRoutes } from './bookHistoryRoutes.js';
import { historyRoutes } from './historyRoutes.js';
import { marketRoutes } from './marketRoutes.js';
import { priceRoutes } from './priceRoutes.js';
import { serviceInfoRoutes } from './serviceInfoRoutes.js';

export interface ClobReadDeps {
  /** The engine (engine/engine.ts): books, markets, tokens. Read between commands, never written. */
  readonly engine: EngineReads;
  /** Catalog fields of markets by condition id (catalog/marketIndex.ts `MarketIndex`). */
  readonly markets: MarketLookup;
  /** ClickHouse reads for price history (projections/readModel). */
  readonly history: ReadContext;
  /** Wall clock, ms since the epoch (book timestamps, /time). */
  readonly clock: () => number;
  /** The projector's progress: book history is read once it holds what this process acknowledged. */
  readonly projection?: { readonly position: number; waitFor(pos: number, timeoutMs?: number): Promise<void> };
  /** The last log position this process acknowledged. */
  readonly acknowledged?: () => number;
}

export function clobReadRoutes(deps: ClobReadDeps): RouteDef[] {
  return [
    ...serviceInfoRoutes(deps),
    ...bookRoutes(deps),
    ...priceRoutes(deps),
    ...marketRoutes(deps),
    ...historyRoutes({ history: deps.history, projection: deps.projection, acknowledged: deps.acknowledged }),
    ...bookHistoryRoutes(deps),
  ];
}
