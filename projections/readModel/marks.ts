// The mark of a token: the price we quote for it at a point in time, from price_history. Contract:
//   mark at the end of minute M = the midpoint of the book at the end of M when both sides had orders,
//   else the last trade price; minutes with no row carry the previous mark forward; a token whose book
//   never had both sides and which never traded has no mark.
// The same definition serves `curPrice` in /positions (the latest mark, 1 or 0 once the market is resolved)
// and `p` in price history. Prices are micro-units in the token's own terms.

import { select, type ReadContext } from './context.js';

/** The SQL expression of a price_history row's mark (NULL when the row has neither midpoint nor trade). */
export const MARK_SQL = 'coalesce(mid, last_trade)';

/**
 * Latest mark of each token that has one: a point lookup in latest_prices (each token's last price_history
 * row by (minute, version), kept by ClickHouse beside price_history; projections/schema.ts, migration 2).
 * When that row has no mark, the latest mark is an earlier minute's: only those tokens are looked up in
 * price_history, taking the latest version of each minute first, then the latest minute with a mark. A token
 * without a latest_prices row has no price_history row either, so no mark.
 */
export async function latestMarks(ctx: ReadContext, tokenIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (tokenIds.length === 0) return out;
  const latest = await select<{ token_id: string; mark: number | null }>(
    ctx,
    `SELECT token_id, coalesce(tupleElement(l, 1), tupleElement(l, 2)) AS mark
       FROM (SELECT token_id, argMaxMerge(latest) AS l FROM ${ctx.db}.latest_prices WHERE token_id IN {tokens:Array(String)} GROUP BY token_id)`,
    { tokens: [...new Set(tokenIds)] },
  );
  const earlier: string[] = [];
  for (const r of latest) {
    if (r.mark === null) earlier.push(r.token_id);
    else out.set(r.token_id, Number(r.mark));
  }
  if (earlier.length === 0) return out;
  const rows = await select<{ token_id: string; mark: number }>(
    ctx,
    `SELECT token_id, argMax(m, minute) AS mark FROM (
       SELECT token_id, minute, argMax(${MARK_SQL}, version) AS m FROM ${ctx.db}.price_history
        WHERE token_id IN {tokens:Array(String)} GROUP BY token_id, minute
     ) WHERE m IS NOT NULL GROUP BY token_id`,
    { tokens: earlier },
  );
  for (const r of rows) out.set(r.token_id, Number(r.mark));
  return out;
}
