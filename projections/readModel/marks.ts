// The mark of a token: the price we show for it, upstream's rule for the displayed price ("the midpoint of the
// bid-ask spread in the orderbook, unless that spread is over $0.10, in which case the last traded price is
// used": https://docs.polymarket.com/polymarket-learn/trading/how-are-prices-calculated). Contract:
//   mark = the midpoint when both sides have orders and the spread (best ask − best bid) is at most 0.10;
//          else the last trade price; else, for a book that never traded, the midpoint whatever its spread
//          (the only price it has); a token whose book never had both sides and which never traded has none.
// In price_history the mark at the end of minute M is that rule over the row's mid, spread and last_trade; a
// row projected before price_history had `spread` (NULL beside a midpoint) shows its midpoint. Minutes with no
// row carry the previous mark forward.
// The same definition serves `curPrice` in /positions (the latest mark, 1 or 0 once the market is resolved),
// `p` in price history, the in-memory read model's marks (projections/live/liveState.ts, through markFrom
// below) and the token `price` of the CLOB's market forms (api/clob/bookView.ts). Prices are micro-units in the
// token's own terms.

import { select, type ReadContext } from './context.js';

/** The widest spread (micro-units, $0.10) at which the midpoint is the mark. */
export const MAX_MIDPOINT_SPREAD = 100_000;

/**
 * The mark of a book with midpoint `mid` and spread `spread` (both null unless both sides have orders; a
 * spread null beside a midpoint is unknown and taken as narrow) whose last trade was `last` (null: none).
 */
export function markFrom(mid: number | null, spread: number | null, last: number | null): number | null {
  if (mid === null) return last;
  return last === null || spread === null || spread <= MAX_MIDPOINT_SPREAD ? mid : last;
}

/** markFrom() in SQL over three Nullable(Int64) expressions. */
export function markSql(mid: string, spread: string, last: string): string {
  return `multiIf(${mid} IS NULL, ${last}, ${last} IS NULL OR ifNull(${spread} <= ${MAX_MIDPOINT_SPREAD}, 1), ${mid}, ${last})`;
}

/** The SQL expression of a price_history row's mark (NULL when the row has neither midpoint nor trade). */
export const MARK_SQL = markSql('mid', 'spread', 'last_trade');

/**
 * Latest mark of each token that has one: a point lookup in latest_prices (each token's last price_history
 * row by (minute, version), kept by ClickHouse beside price_history: its mid and last_trade in `latest`, its
 * spread in `latest_spread`; projections/schema.ts, migrations 2 and 34).
 * When that row has no mark, the latest mark is an earlier minute's: only those tokens are looked up in
 * price_history, taking the latest version of each minute first, then the latest minute with a mark. A token
 * without a latest_prices row has no price_history row either, so no mark.
 */
export async function latestMarks(ctx: ReadContext, tokenIds: readonly string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (tokenIds.length === 0) return out;
  const latest = await select<{ token_id: string; mark: number | null }>(
    ctx,
    `SELECT token_id, ${markSql('tupleElement(l, 1)', 'tupleElement(s, 1)', 'tupleElement(l, 2)')} AS mark
       FROM (SELECT token_id, argMaxMerge(latest) AS l, argMaxMerge(latest_spread) AS s FROM ${ctx.db}.latest_prices WHERE token_id IN {tokens:Array(String)} GROUP BY token_id)`,
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
