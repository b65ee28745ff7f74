// Markets as the read model shows them: the engine's view (tokens, resolution, neg-risk) from
// engine_markets, merged with the injected metadata (titles, labels, dates).

import type { Outcome } from '../../engine/index.js';
import { select, type ReadContext } from './context.js';
import { FALLBACK_METADATA, type MarketMetadata } from './metadata.js';

export interface MarketInfo extends MarketMetadata {
  readonly conditionId: string;
  /** Outcome 0's and outcome 1's token ids ('' when the engine does not know the market). */
  readonly tokens: readonly [string, string];
  readonly negRisk: boolean;
  /** The winning outcome once resolved, else null. */
  readonly winningOutcome: Outcome | null;
}

interface EngineMarketRow {
  condition_id: string;
  token0: string;
  token1: string;
  neg_risk: boolean;
  winning_outcome: number;
}

/** The markets among `conditionIds` (unknown ones get the fallback metadata and no tokens). */
export async function loadMarkets(ctx: ReadContext, conditionIds: readonly string[]): Promise<Map<string, MarketInfo>> {
  const ids = [...new Set(conditionIds)];
  const out = new Map<string, MarketInfo>();
  if (ids.length === 0) return out;
  const rows = await select<EngineMarketRow>(
    ctx,
    `SELECT condition_id, argMax(token0, version) AS token0, argMax(token1, version) AS token1, argMax(neg_risk, version) AS neg_risk,
            argMax(winning_outcome, version) AS winning_outcome
       FROM ${ctx.db}.engine_markets WHERE condition_id IN {ids:Array(String)} GROUP BY condition_id`,
    { ids },
  );
  const engine = new Map(rows.map((r) => [r.condition_id, r]));
  const metadata = await ctx.metadata(ids);
  for (const id of ids) {
    const e = engine.get(id);
    const winning = e === undefined || Number(e.winning_outcome) < 0 ? null : (Number(e.winning_outcome) as Outcome);
    out.set(id, marketInfo(id, e === undefined ? undefined : { tokens: [e.token0, e.token1], negRisk: Boolean(e.neg_risk), winningOutcome: winning }, metadata.get(id)));
  }
  return out;
}

/** What the engine knows of a market, as marketInfo() takes it. */
export interface EngineMarket {
  readonly tokens: readonly [string, string];
  readonly negRisk: boolean;
  readonly winningOutcome: Outcome | null;
}

/** A market as the read model shows it: the engine's view (undefined: unknown to the engine) and the metadata. */
export function marketInfo(conditionId: string, engine: EngineMarket | undefined, metadata: MarketMetadata | undefined): MarketInfo {
  const m = metadata ?? FALLBACK_METADATA;
  // Field by field rather than spreads: this runs for every market of every in-memory read, and spreading
  // objects of varied shapes cost a third of a /positions read.
  return {
    title: m.title,
    slug: m.slug,
    icon: m.icon,
    eventSlug: m.eventSlug,
    eventId: m.eventId,
    outcomes: m.outcomes,
    endDate: m.endDate,
    conditionId,
    tokens: engine === undefined ? ['', ''] : engine.tokens,
    negRisk: engine === undefined ? (m.negRisk ?? false) : engine.negRisk,
    winningOutcome: engine === undefined ? null : engine.winningOutcome,
  };
}

/** The label of an outcome. */
export function outcomeLabel(market: MarketInfo | undefined, outcome: number): string {
  return (market ?? FALLBACK_METADATA).outcomes[outcome === 1 ? 1 : 0];
}
