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
 * Latest mark of each token that has one. No FINAL: the latest version of each (token, minute) is taken
 * first, then the latest minute with a mark (twice as fast as FINAL here). It still reads every stored
 * minute of the tokens; a table of latest marks per token would make it a point lookup (see README.md).
 */
export async function latestMarks(ctx: ReadContext, tokenIds: readonly string[]): Promise<Map<string, number>> {
  if (tokenIds.length === 0) return new Map();
  const rows = await select<{ token_id: string; mark: number }>(
    ctx,
    `SELECT token_id, argMax(m, minute) AS mark FROM (
       SELECT token_id, minute, argMax(${MARK_SQL}, version) AS m FROM ${ctx.db}.price_history
        WHERE token_id IN {tokens:Array(String)} GROUP BY token_id, minute
     ) WHERE m IS NOT NULL GROUP BY token_id`,
    { tokens: [...new Set(tokenIds)] },
  );
  return new Map(rows.map((r) => [r.token_id, Number(r.mark)]));
}
