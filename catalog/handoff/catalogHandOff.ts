// Hands every order-book market of the catalog to the engine (at start, after the demo catalog loads or a
// sync runs): reads them from ClickHouse in pages and passes them to handOffMarkets, which skips whatever
// the engine already has, then to handOffRewards (their liquidity rewards programs). Deleted markets are left
// out (their engine side is deletionHandOff.ts's).

import { queryRows } from '../../storage/clickhouse.js';
import { tableOf, type CatalogDb } from '../catalogDb.js';
import { LIVE_ROW } from '../store/tombstones.js';
import type { GammaObject } from '../upstream/gammaValues.js';
import { handOffMarkets, type CommandSink, type EngineMarketView, type HandOffReport } from './handOffMarkets.js';
import { handOffRewards, type EngineRewardsView } from './rewardsHandOff.js';

const isRewardsView = (engine: EngineMarketView): engine is EngineMarketView & EngineRewardsView => typeof (engine as Partial<EngineRewardsView>).rewardTerms === 'function';

const PAGE = 5000;

function merge(into: HandOffReport | undefined, next: HandOffReport): HandOffReport {
  if (into === undefined) return next;
  const skipped: Record<string, number> = { ...into.skipped };
  for (const [reason, n] of Object.entries(next.skipped)) skipped[reason] = (skipped[reason] ?? 0) + n;
  return {
    listed: into.listed + next.listed,
    updated: into.updated + next.updated,
    resolved: into.resolved + next.resolved,
    paused: into.paused + next.paused,
    unchanged: into.unchanged + next.unchanged,
    skipped,
    conflicts: [...into.conflicts, ...next.conflicts],
    rejected: [...into.rejected, ...next.rejected],
  };
}

export async function handOffCatalog(catalog: CatalogDb, host: CommandSink, engine: EngineMarketView): Promise<HandOffReport> {
  let report: HandOffReport | undefined;
  for (let offset = 0; ; offset += PAGE) {
    const rows = await queryRows<{ json: string }>(
      catalog.client,
      `SELECT json FROM ${tableOf(catalog, 'markets')} FINAL WHERE enable_order_book = 1 AND ${LIVE_ROW} ORDER BY id_num, id LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
      { limit: PAGE, offset },
    );
    const markets = rows.map((r) => JSON.parse(r.json) as GammaObject);
    report = merge(report, await handOffMarkets(host, engine, markets));
    // The catalog's liquidity rewards, once its markets are listed (an engine view without programs has none to take).
    if (isRewardsView(engine)) {
      const rewards = await handOffRewards(host, engine, markets);
      report = { ...report, rejected: [...report.rejected, ...rewards.rejected] };
    }
    if (rows.length < PAGE) return report;
  }
}
