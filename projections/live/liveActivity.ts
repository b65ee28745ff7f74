// GET /activity from memory: the account's fills (fillWindows.ts) and ledger entries (ledgerWindows.ts), when
// they suffice, shaped by the read model's own functions (readModel/activity.ts), so the answer is
// ClickHouse's byte for byte at the same log position (test/projections/dataApiReads.test.ts).
//
// When they suffice: newest first by time (the default), the page is exact once offset + limit rows that
// pass the filters come out of a merge of the two windows, newest first, in which no window ran out while
// missing older rows (a missing row could come next). Any other order needs every row: both windows complete.

import { activityQuery, compareRows, toActivity, wantedSources, typeOfKind, type Activity, type ActivityParams, type ActivityQuery, type ActivityRow } from '../readModel/activity.js';
import { tradeIdFor } from '../../engine/index.js';
import type { MarketMetadataSource } from '../readModel/metadata.js';
import type { HeldFill } from './fillWindows.js';
import type { HeldLedgerEntry } from './ledgerWindows.js';
import { liveMarkets, NOT_IN_MEMORY } from './liveReads.js';
import type { LiveState } from './liveState.js';

/** The account's rows in one window that pass the filters, newest first (made as read), and whether older rows exist beyond it. */
interface Stream {
  readonly rows: Iterator<ActivityRow>;
  readonly complete: boolean;
}

const NONE: Stream = { rows: [][Symbol.iterator](), complete: true };

function fillRow(f: HeldFill, taker: boolean): ActivityRow {
  return {
    type: 'TRADE', id: f.fill_id, role: taker ? 'taker' : 'maker', seq: 0, time_ms: f.time_ms, condition_id: f.condition_id,
    outcome: taker ? f.taker_outcome : f.maker_outcome, side: taker ? f.taker_side : f.maker_side, price: taker ? f.taker_price : f.maker_price,
    size: f.size, amount: taker ? f.taker_amount : f.maker_amount,
  };
}

function ledgerRow(e: HeldLedgerEntry): ActivityRow {
  return {
    type: typeOfKind(e.kind), id: tradeIdFor(e.seq), role: '', seq: e.seq, time_ms: e.time_ms, condition_id: e.condition_id, outcome: -1, side: '',
    price: 0, size: e.amount, amount: e.kind === 'redeem' || e.kind === 'convert' || e.kind === 'reward' ? e.payout : e.amount,
  };
}

function passes(q: ActivityQuery, markets: ReadonlySet<string> | undefined, r: ActivityRow): boolean {
  if (markets !== undefined && !markets.has(r.condition_id)) return false;
  if (q.fromMs !== undefined && r.time_ms < q.fromMs) return false;
  if (q.toMs !== undefined && r.time_ms >= q.toMs) return false;
  return q.side === undefined || r.side === q.side;
}

/** The account's fill sides that pass (a fill it took both sides of: taker, then maker). */
function* fillRows(fills: readonly (HeldFill | undefined)[], from: number, q: ActivityQuery, markets: ReadonlySet<string> | undefined): Generator<ActivityRow> {
  for (let i = fills.length - 1; i >= from; i--) {
    const f = fills[i] as HeldFill;
    if (f.taker_account === q.user) {
      const r = fillRow(f, true);
      if (passes(q, markets, r)) yield r;
    }
    if (f.maker_account === q.user) {
      const r = fillRow(f, false);
      if (passes(q, markets, r)) yield r;
    }
  }
}

function* ledgerRows(entries: readonly (HeldLedgerEntry | undefined)[], from: number, q: ActivityQuery, markets: ReadonlySet<string> | undefined, kinds: ReadonlySet<string>): Generator<ActivityRow> {
  for (let i = entries.length - 1; i >= from; i--) {
    const e = entries[i] as HeldLedgerEntry;
    if (!kinds.has(e.kind)) continue;
    const r = ledgerRow(e);
    if (passes(q, markets, r)) yield r;
  }
}

function fillStream(state: LiveState, q: ActivityQuery, markets: ReadonlySet<string> | undefined): Stream | undefined {
  const held = state.fillsOf(q.user);
  return held === undefined ? undefined : { rows: fillRows(held.fills, held.from, q, markets), complete: held.complete };
}

function ledgerStream(state: LiveState, q: ActivityQuery, markets: ReadonlySet<string> | undefined, kinds: readonly string[]): Stream | undefined {
  const held = state.ledger.of(q.user);
  return held === undefined ? undefined : { rows: ledgerRows(held.entries, held.from, q, markets, new Set(kinds)), complete: held.complete };
}

/** The first `need` rows newest first by time, or undefined when memory cannot tell them. */
function newestFirst(a: Stream, b: Stream, need: number): ActivityRow[] | undefined {
  const out: ActivityRow[] = [];
  let ra = a.rows.next();
  let rb = b.rows.next();
  while (out.length < need) {
    if (ra.done === true && !a.complete) return undefined;
    if (rb.done === true && !b.complete) return undefined;
    if (ra.done === true && rb.done === true) break;
    if (rb.done === true || (ra.done !== true && compareRows(ra.value, rb.value, 'TIMESTAMP') > 0)) {
      out.push(ra.value as ActivityRow);
      ra = a.rows.next();
    } else {
      out.push(rb.value);
      rb = b.rows.next();
    }
  }
  return out;
}

/** Every row of both streams (complete ones). */
function everyRow(a: Stream, b: Stream): ActivityRow[] {
  const out: ActivityRow[] = [];
  for (let r = a.rows.next(); r.done !== true; r = a.rows.next()) out.push(r.value);
  for (let r = b.rows.next(); r.done !== true; r = b.rows.next()) out.push(r.value);
  return out;
}

/** GET /activity from memory, or NOT_IN_MEMORY when memory cannot tell the page (the caller asks ClickHouse). */
export async function liveActivity(state: LiveState, metadata: MarketMetadataSource, params: ActivityParams): Promise<Activity[] | typeof NOT_IN_MEMORY> {
  const q = activityQuery(params);
  const { fills, kinds } = wantedSources(q);
  if (q.limit === 0 || (!fills && kinds.length === 0)) return [];
  const markets = q.markets === undefined ? undefined : new Set(q.markets);
  const a = fills ? fillStream(state, q, markets) : NONE;
  const b = kinds.length > 0 ? ledgerStream(state, q, markets, kinds) : NONE;
  if (a === undefined || b === undefined) return NOT_IN_MEMORY;
  const need = q.offset + q.limit;
  let rows: ActivityRow[] | undefined;
  if (q.sortBy === 'TIMESTAMP' && q.direction === 'DESC') rows = newestFirst(a, b, need);
  else if (a.complete && b.complete) {
    const sign = q.direction === 'ASC' ? 1 : -1;
    rows = everyRow(a, b).sort((x, y) => sign * compareRows(x, y, q.sortBy));
  }
  if (rows === undefined) return NOT_IN_MEMORY;
  const page = rows.slice(q.offset, need);
  const info = await liveMarkets(state, metadata, page.map((r) => r.condition_id));
  return page.map((r) => toActivity(q.user, r, info));
}
