// A token's book at past moments, rebuilt from the book history tables (builders/bookHistory.ts): the last
// whole book stored before the records asked for (book_snapshots), then every level change after it
// (book_level_changes), record by record, with the fields GET /book shows beside the levels as each record left
// them (book_changes). The book "at" a moment is the book after the last record at or before it.
//
// Contract: for every record that changed a token's book, the rebuilt book equals the engine's book of that
// token right after the record (levels best first here; api/clob/bookHistoryRoutes.ts turns it into GET /book's
// shape, best last). Times are the records' engine times (ms).

import { select, type ReadContext } from './context.js';

export interface HistoricBook {
  readonly pos: number;
  readonly timeMs: number;
  readonly conditionId: string;
  /** (price, size) in the token's terms and base units, best first. */
  readonly bids: readonly (readonly [number, number])[];
  readonly asks: readonly (readonly [number, number])[];
  /** The market's last fill in the token's price; null before the first. */
  readonly lastTrade: number | null;
  readonly tickSize: number;
  readonly minSize: number;
  readonly negRisk: boolean;
}

interface ChangeRow {
  pos: number;
  ms: number;
  condition_id: string;
  last_trade: number | null;
  tick_size: number;
  min_size: number;
  neg_risk: boolean | number;
}

const CHANGE_COLUMNS = 'pos, toUnixTimestamp64Milli(time) AS ms, condition_id, last_trade, tick_size, min_size, neg_risk';
const MS = (name: string): string => `fromUnixTimestamp64Milli({${name}:Int64}, 'UTC')`;

/** How many records changed the token's book between startMs and endMs (both included). */
export async function bookChangeCount(ctx: ReadContext, tokenId: string, startMs: number, endMs: number): Promise<number> {
  const [row] = await select<{ n: number }>(
    ctx,
    `SELECT count() AS n FROM ${ctx.db}.book_changes WHERE token_id = {token:String} AND time >= ${MS('start')} AND time <= ${MS('end')}`,
    { token: tokenId, start: startMs, end: endMs },
  );
  return Number(row?.n ?? 0);
}

/** The books after the records that changed the token's book between startMs and endMs, oldest first, paged. */
export async function bookChanges(ctx: ReadContext, tokenId: string, startMs: number, endMs: number, limit: number, offset: number): Promise<HistoricBook[]> {
  const page = await select<ChangeRow>(
    ctx,
    `SELECT ${CHANGE_COLUMNS} FROM ${ctx.db}.book_changes WHERE token_id = {token:String} AND time >= ${MS('start')} AND time <= ${MS('end')}
      ORDER BY time, pos LIMIT {limit:UInt32} OFFSET {offset:UInt64}`,
    { token: tokenId, start: startMs, end: endMs, limit, offset },
  );
  return rebuild(ctx, tokenId, page);
}

/** The book after the last record at or before each of `moments` (ascending ms); undefined before the token's first. */
export async function booksAt(ctx: ReadContext, tokenId: string, moments: readonly number[]): Promise<(HistoricBook | undefined)[]> {
  if (moments.length === 0) return [];
  const last = moments[moments.length - 1] as number;
  const first = moments[0] as number;
  // The last record at or before the first moment, then every record up to the last moment.
  const before = await select<ChangeRow>(
    ctx,
    `SELECT ${CHANGE_COLUMNS} FROM ${ctx.db}.book_changes WHERE token_id = {token:String} AND time <= ${MS('first')} ORDER BY time DESC, pos DESC LIMIT 1`,
    { token: tokenId, first },
  );
  const within = await select<ChangeRow>(
    ctx,
    `SELECT ${CHANGE_COLUMNS} FROM ${ctx.db}.book_changes WHERE token_id = {token:String} AND time > ${MS('first')} AND time <= ${MS('last')} ORDER BY time, pos`,
    { token: tokenId, first, last },
  );
  const books = await rebuild(ctx, tokenId, [...before, ...within]);
  const out: (HistoricBook | undefined)[] = [];
  let i = -1;
  for (const moment of moments) {
    while (i + 1 < books.length && (books[i + 1] as HistoricBook).timeMs <= moment) i += 1;
    out.push(i < 0 ? undefined : books[i]);
  }
  return out;
}

/** The books after each of `rows` (records of the token, ascending): from the last snapshot before the first. */
async function rebuild(ctx: ReadContext, tokenId: string, rows: readonly ChangeRow[]): Promise<HistoricBook[]> {
  if (rows.length === 0) return [];
  const first = rows[0] as ChangeRow;
  const last = rows[rows.length - 1] as ChangeRow;
  const [base] = await select<{ pos: number; ms: number; bids: [number, number][]; asks: [number, number][] }>(
    ctx,
    // The levels as [price, size] arrays whatever the session's output_format_json_named_tuples_as_objects
    // (chDB applies a query's settings to its whole session): named tuples may otherwise come as objects.
    `SELECT pos, toUnixTimestamp64Milli(time) AS ms, arrayMap(l -> [l.price, l.size], bids) AS bids, arrayMap(l -> [l.price, l.size], asks) AS asks FROM ${ctx.db}.book_snapshots
      WHERE token_id = {token:String} AND time <= ${MS('at')} AND pos < {pos:UInt64} ORDER BY time DESC, pos DESC LIMIT 1`,
    { token: tokenId, at: Number(first.ms), pos: Number(first.pos) },
  );
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  for (const [p, s] of base?.bids ?? []) bids.set(Number(p), Number(s));
  for (const [p, s] of base?.asks ?? []) asks.set(Number(p), Number(s));
  const from = base === undefined ? 0 : Number(base.pos);
  const changes = await select<{ pos: number; side: string; price: number; size: number }>(
    ctx,
    `SELECT pos, side, price, size FROM ${ctx.db}.book_level_changes
      WHERE token_id = {token:String} AND time >= ${MS('start')} AND time <= ${MS('end')} AND pos > {from:UInt64} AND pos <= {to:UInt64}
      ORDER BY time, pos, side, price`,
    { token: tokenId, start: base === undefined ? 0 : Number(base.ms), end: Number(last.ms), from, to: Number(last.pos) },
  );
  const out: HistoricBook[] = [];
  let c = 0;
  for (const row of rows) {
    const pos = Number(row.pos);
    for (; c < changes.length && Number((changes[c] as { pos: number }).pos) <= pos; c++) {
      const change = changes[c] as { side: string; price: number; size: number };
      const side = change.side === 'BUY' ? bids : asks;
      if (Number(change.size) === 0) side.delete(Number(change.price));
      else side.set(Number(change.price), Number(change.size));
    }
    out.push({
      pos,
      timeMs: Number(row.ms),
      conditionId: row.condition_id,
      bids: [...bids].sort((a, b) => b[0] - a[0]),
      asks: [...asks].sort((a, b) => a[0] - b[0]),
      lastTrade: row.last_trade === null ? null : Number(row.last_trade),
      tickSize: Number(row.tick_size),
      minSize: Number(row.min_size),
      negRisk: Boolean(row.neg_risk),
    });
  }
  return out;
}
