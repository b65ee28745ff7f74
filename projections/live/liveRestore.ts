// Start-up of the in-memory read model from the stored projections: every builder as of the projector's
// committed position (restoreState(), as the projector itself restarts), each market's mark, then the fill
// windows (fillsRestore.ts) and the ledger windows (ledgerRestore.ts). Must run while the projector writes
// nothing newer (before its run() starts): the mark state is read from the latest rows, which would otherwise
// run ahead of that position.

import type { ClickHouseClient } from '@clickhouse/client';
import { PriceHistoryBuilder } from '../builders/priceHistory.js';
import { MARK_SQL, markFrom } from '../readModel/marks.js';
import { restoreState } from '../restoreState.js';
import { restoreFills } from './fillsRestore.js';
import { restoreLedger } from './ledgerRestore.js';
import type { LiveState } from './liveState.js';

const READ = { output_format_json_quote_64bit_integers: 0 } as const;

const num = (x: number | null): number | null => (x === null ? null : Number(x));

async function rows<T>(ch: ClickHouseClient, query: string, params: Record<string, unknown>): Promise<T[]> {
  const result = await ch.query({ query, format: 'JSONEachRow', query_params: params, clickhouse_settings: READ });
  return (await result.json()) as T[];
}

/** Restores `state` (fresh) as of log position `at`, the projector's committed position. */
export async function restoreLive(ch: ClickHouseClient, db: string, at: number, state: LiveState): Promise<void> {
  if (at <= 0) return;
  const prices = new PriceHistoryBuilder(state.markets, state.orders);
  await restoreState(ch, db, { markets: at, orders: at, positions: at, prices: at }, { markets: state.markets, orders: state.orders, positions: state.positions, prices });
  const token0 = new Map<string, string>();
  for (const m of state.markets.markets.values()) token0.set(m.tokens[0], m.conditionId);
  const tokens = [...token0.keys()];
  if (tokens.length > 0) {
    // The latest minute's row of each market (outcome 0's token), and for markets that never traded (whose
    // mark can still be missing) the latest earlier minute's mark.
    const latest = await rows<{ token_id: string; mid: number | null; last: number | null; spread: number | null; minute: number }>(
      ch,
      `SELECT token_id, tupleElement(l, 1) AS mid, tupleElement(l, 2) AS last, tupleElement(s, 1) AS spread, toUnixTimestamp(tupleElement(l, 3)) AS minute
         FROM (SELECT token_id, argMaxMerge(latest) AS l, argMaxMerge(latest_spread) AS s FROM ${db}.latest_prices WHERE token_id IN {tokens:Array(String)} GROUP BY token_id)`,
      { tokens },
    );
    const untraded = latest.filter((r) => prices.lastTrade.get(token0.get(r.token_id) ?? '') === undefined).map((r) => r.token_id);
    const earlier = new Map<string, { minute: number; mark: number }[]>();
    if (untraded.length > 0) {
      const marked = await rows<{ token_id: string; minute: number; mark: number }>(
        ch,
        `SELECT token_id, toUnixTimestamp(minute) AS minute, m AS mark FROM (
           SELECT token_id, minute, argMax(${MARK_SQL}, version) AS m FROM ${db}.price_history
            WHERE token_id IN {tokens:Array(String)} GROUP BY token_id, minute
         ) WHERE m IS NOT NULL ORDER BY token_id, minute DESC LIMIT 2 BY token_id`,
        { tokens: untraded },
      );
      for (const r of marked) earlier.set(r.token_id, [...(earlier.get(r.token_id) ?? []), { minute: Number(r.minute), mark: Number(r.mark) }]);
    }
    for (const r of latest) {
      const conditionId = token0.get(r.token_id) as string;
      const minute = Number(r.minute);
      const mark = markFrom(num(r.mid), num(r.spread), num(r.last));
      const before = (earlier.get(r.token_id) ?? []).find((e) => e.minute < minute);
      state.restoreMark(conditionId, prices.lastTrade.get(conditionId), minute * 1000, mark, before?.mark ?? null);
    }
  }
  await restoreFills(ch, db, at, state.fills);
  await restoreLedger(ch, db, at, state.ledger);
  state.pos = at;
  state.horizon = at;
}
