// GET /prices-history and POST /batch-prices-history (spec §2.14, §4.3; upstream §3.4), per token id.
// Contract:
// - p is the token's mark at the end of the bucket (marks.ts): upstream's displayed price, the book's midpoint
//   while the spread is at most 0.10, else the last trade (else, never traded, the midpoint), so that the line
//   follows the trades when the book is wide or one-sided and the midpoint when it is tight. t is Unix seconds.
// - The range is [start, end): it ends at endTs, or now; `interval` reaches back 1h, 6h, 1d, 1w or 1m (one
//   MONTH, 30 days: the documented order max, all, 1m, 1w, ... runs from long to short) from that end, and
//   startTs, when given too, starts it no earlier (the later of the two); `max` and `all`, or no interval,
//   start at startTs or else the token's first mark. (Upstream calls interval and startTs/endTs mutually
//   exclusive; here their combination has this one meaning, so no request is refused for it.)
// - Points are buckets of `fidelity` minutes (default 1) from the start, floored to the minute: t is the
//   bucket's start and p the mark at the end of the bucket (or at `end`, for a bucket it cuts). Quiet
//   minutes carry the previous mark forward, also from before the range; buckets before the first mark
//   have no point.
// - At most MAX_POINTS points per token: beyond that the fidelity (given or default) is raised to fit. A start
//   after the end is an empty range. (So every request the API's schemas admit has an answer: api/clob/
//   historyRoutes.ts.)

import { ReadModelInputError } from './errors.js';
import { idList, intIn, oneOf, unixSeconds } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { MARK_SQL } from './marks.js';
import { toFloat } from './wire.js';

export const PRICE_INTERVALS = ['max', 'all', '1m', '1w', '1d', '6h', '1h'] as const;
export type PriceInterval = (typeof PRICE_INTERVALS)[number];
const INTERVAL_SECONDS: Record<Exclude<PriceInterval, 'max' | 'all'>, number> = { '1m': 30 * 86_400, '1w': 7 * 86_400, '1d': 86_400, '6h': 6 * 3_600, '1h': 3_600 };
export const MAX_POINTS = 100_000;
export const MAX_FIDELITY = 366 * 1_440;
export const BATCH_MAX_TOKENS = 20;

export interface PricePoint {
  t: number;
  p: number;
}

interface RangeParams {
  readonly interval?: string;
  readonly startTs?: number | string;
  readonly endTs?: number | string;
  /** Minutes per point. */
  readonly fidelity?: number;
}

export interface PriceHistoryParams extends RangeParams {
  /** Token id. */
  readonly market: string;
}

export interface BatchPriceHistoryParams extends RangeParams {
  /** Token ids, 1 to 20. */
  readonly markets: readonly string[];
}

interface Range {
  /** Unix seconds, floored to the minute; undefined: from each token's first mark. */
  readonly start: number | undefined;
  /** Unix seconds, exclusive; with a fraction when the range ends now. */
  readonly end: number;
  readonly fidelity: number | undefined;
}

function range(ctx: ReadContext, params: RangeParams): Range {
  const interval = oneOf('interval', params.interval, PRICE_INTERVALS);
  const startTs = unixSeconds('startTs', params.startTs);
  const endTs = unixSeconds('endTs', params.endTs);
  const fidelity = params.fidelity === undefined ? undefined : intIn('fidelity', params.fidelity, 1, 1, MAX_FIDELITY);
  // "Now" keeps its milliseconds: a mark made in the current second (of a minute that began in it) is inside a
  // range that ends now, which whole seconds would leave out of the exclusive end.
  const now = ctx.now() / 1000;
  const end = endTs ?? now;
  // A start after the end: an empty range (a whole second, as the query binds it, at or after the end).
  if (startTs !== undefined && startTs > end) return { start: Math.ceil(end), end, fidelity };
  const back = interval === undefined || interval === 'max' || interval === 'all' ? undefined : end - INTERVAL_SECONDS[interval];
  const from = back === undefined ? startTs : startTs === undefined ? back : Math.max(startTs, back);
  return { start: from === undefined ? undefined : Math.max(0, from - (from % 60)), end, fidelity };
}

interface MarkRow {
  token_id: string;
  m: number;
  p: number;
}

function points(rows: readonly MarkRow[], r: Range): PricePoint[] {
  const first = r.start ?? rows[0]?.m;
  if (first === undefined || first >= r.end) return [];
  const minutes = Math.ceil((r.end - first) / 60);
  let fidelity = r.fidelity ?? 1;
  if (Math.ceil(minutes / fidelity) > MAX_POINTS) fidelity = Math.ceil(minutes / MAX_POINTS);
  const step = fidelity * 60;
  const out: PricePoint[] = [];
  let i = 0;
  let mark: number | undefined;
  for (let t = first; t < r.end; t += step) {
    const bucketEnd = Math.min(t + step, r.end);
    while (i < rows.length && (rows[i] as MarkRow).m < bucketEnd) mark = (rows[i++] as MarkRow).p;
    if (mark !== undefined) out.push({ t, p: toFloat(Number(mark)) });
  }
  return out;
}

async function histories(ctx: ReadContext, tokens: readonly string[], params: RangeParams): Promise<Record<string, PricePoint[]>> {
  const r = range(ctx, params);
  const start = r.start ?? 0;
  // The marks inside the range, and the last one before it (carried in).
  const rows = await select<MarkRow>(
    ctx,
    `SELECT token_id, m, p FROM (
       SELECT token_id, toUnixTimestamp(minute) AS m, ${MARK_SQL} AS p FROM ${ctx.db}.price_history FINAL
        WHERE token_id IN {tokens:Array(String)} AND minute >= toDateTime({start:UInt32}, 'UTC') AND minute < toDateTime({end:UInt32}, 'UTC') AND p IS NOT NULL
       UNION ALL
       SELECT token_id, toUnixTimestamp(max(minute)) AS m, argMax(${MARK_SQL}, minute) AS p FROM ${ctx.db}.price_history FINAL
        WHERE token_id IN {tokens:Array(String)} AND minute < toDateTime({start:UInt32}, 'UTC') AND ${MARK_SQL} IS NOT NULL GROUP BY token_id
     ) ORDER BY token_id, m`,
    { tokens, start, end: Math.ceil(r.end) },
  );
  const byToken = new Map<string, MarkRow[]>();
  for (const row of rows) {
    const list = byToken.get(row.token_id) ?? [];
    list.push(row);
    byToken.set(row.token_id, list);
  }
  const out: Record<string, PricePoint[]> = {};
  for (const token of tokens) out[token] = points(byToken.get(token) ?? [], r);
  return out;
}

/** GET /prices-history?market=<token id>. */
export async function priceHistory(ctx: ReadContext, params: PriceHistoryParams): Promise<{ history: PricePoint[] }> {
  const token = idList('market', typeof params.market === 'string' ? [params.market] : undefined, 1)?.[0];
  if (token === undefined) throw new ReadModelInputError('market', 'a token id is required');
  return { history: (await histories(ctx, [token], params))[token] ?? [] };
}

/** POST /batch-prices-history: `history` keyed by token id. */
export async function batchPriceHistory(ctx: ReadContext, params: BatchPriceHistoryParams): Promise<{ history: Record<string, PricePoint[]> }> {
  const tokens = idList('markets', params.markets, BATCH_MAX_TOKENS);
  if (tokens === undefined || tokens.length === 0) throw new ReadModelInputError('markets', 'at least one token id is required');
  return { history: await histories(ctx, tokens, params) };
}
