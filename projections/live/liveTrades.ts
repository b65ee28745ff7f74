// GET /trades?user= and GET /data/trades from the fills memory holds (fillWindows.ts), when they suffice:
// each read checks its parameters and shapes its answer with the read model's own functions, so for the
// same log position the answer is ClickHouse's byte for byte (test/projections/liveTrades.test.ts). A page
// the account's window cannot fill while older fills exist that memory no longer holds, a read without a
// user, or an account memory cannot tell about answers NOT_IN_MEMORY: the caller asks ClickHouse.

import { activityTradesQuery, toActivityTrade, type ActivityTrade, type ActivityTradesParams, type TradeSideRow } from '../readModel/activityTrades.js';
import { accountTradesQuery, endTradePage, tradePage, type AccountTradesParams, type AccountTradesQuery, type TradePage } from '../readModel/accountTrades.js';
import { cursorFor, END_CURSOR } from '../readModel/cursor.js';
import type { MarketInfo } from '../readModel/markets.js';
import type { MarketMetadataSource } from '../readModel/metadata.js';
import { pageBytes } from '../readModel/jsonText.js';
import { transactionHashOf } from '../readModel/wire.js';
import type { HeldFill } from './fillWindows.js';
import { liveMarkets, NOT_IN_MEMORY } from './liveReads.js';
import type { LiveState } from './liveState.js';

/** The fill's transaction hash, computed once per fill held. */
function txHashOf(f: HeldFill): string {
  if (f.txHash === '') f.txHash = transactionHashOf(f.fill_id);
  return f.txHash;
}

const sideRow = (f: HeldFill, taker: boolean): TradeSideRow => ({
  fill_id: f.fill_id,
  time_ms: f.time_ms,
  account: taker ? f.taker_account : f.maker_account,
  condition_id: f.condition_id,
  outcome: taker ? f.taker_outcome : f.maker_outcome,
  side: taker ? f.taker_side : f.maker_side,
  price: taker ? f.taker_price : f.maker_price,
  size: f.size,
  amount: taker ? f.taker_amount : f.maker_amount,
});

/** GET /trades with `user`: the user's fill sides newest first (a fill the user took both sides of: taker's first). */
export async function liveActivityTrades(state: LiveState, metadata: MarketMetadataSource, params: ActivityTradesParams): Promise<ActivityTrade[] | typeof NOT_IN_MEMORY> {
  const q = activityTradesQuery(params);
  if (q.limit === 0) return [];
  if (q.user === undefined) return NOT_IN_MEMORY;
  const held = state.fillsOf(q.user);
  if (held === undefined) return NOT_IN_MEMORY;
  const user = q.user;
  const markets = q.markets === undefined ? undefined : new Set(q.markets);
  const wanted = (f: HeldFill, taker: boolean): boolean => {
    if (markets !== undefined && !markets.has(f.condition_id)) return false;
    if (q.side !== undefined && q.side !== (taker ? f.taker_side : f.maker_side)) return false;
    if (q.filterType === 'CASH') return (taker ? f.taker_amount : f.maker_amount) >= q.threshold;
    if (q.filterType === 'TOKENS') return f.size >= q.threshold;
    return true;
  };
  const need = q.offset + q.limit;
  const rows: TradeSideRow[] = [];
  const hashes: string[] = [];
  let matched = 0;
  const take = (f: HeldFill, taker: boolean): void => {
    if (!wanted(f, taker)) return;
    matched += 1;
    if (matched <= q.offset || matched > need) return;
    rows.push(sideRow(f, taker));
    hashes.push(txHashOf(f));
  };
  for (let i = held.fills.length - 1; i >= held.from && matched < need; i--) {
    const f = held.fills[i] as HeldFill;
    if (f.taker_account === user) take(f, true);
    if (!q.takerOnly && f.maker_account === user) take(f, false);
  }
  if (matched < need && !held.complete) return NOT_IN_MEMORY;
  const info = await liveMarkets(state, metadata, rows.map((r) => r.condition_id));
  return rows.map((r, i) => toActivityTrade(r, info, hashes[i]));
}

function accountFilter(q: AccountTradesQuery): (f: HeldFill) => boolean {
  return (f) =>
    (q.taker === undefined || f.taker_account === q.taker) &&
    (q.maker === undefined || f.maker_account === q.maker) &&
    (q.makerAddress === undefined || f.taker_account === q.makerAddress || f.maker_account === q.makerAddress) &&
    (q.assetId === undefined || f.taker_token_id === q.assetId || f.maker_token_id === q.assetId) &&
    (q.id === undefined || f.fill_id === q.id) &&
    (q.market === undefined || f.condition_id === q.market) &&
    (q.before === undefined || Math.floor(f.time_ms / 1000) < q.before) &&
    (q.after === undefined || Math.floor(f.time_ms / 1000) > q.after);
}

/** The caller's fills a page of GET /data/trades shows, from the offset on (one more says a page follows). */
interface AccountTradeRows {
  readonly q: AccountTradesQuery & { readonly offset: number };
  readonly rows: readonly HeldFill[];
  readonly info: Map<string, MarketInfo>;
}

async function accountTradeRows(state: LiveState, metadata: MarketMetadataSource, params: AccountTradesParams): Promise<AccountTradeRows | 'end' | typeof NOT_IN_MEMORY> {
  const q = accountTradesQuery(params);
  if (q.offset === 'end') return 'end';
  const offset = q.offset;
  const held = state.fillsOf(q.caller);
  if (held === undefined) return NOT_IN_MEMORY;
  const wanted = accountFilter(q);
  // One row past the page says whether another page follows.
  const need = offset + q.limit + 1;
  const rows: HeldFill[] = [];
  let matched = 0;
  for (let i = held.fills.length - 1; i >= held.from && matched < need; i--) {
    const f = held.fills[i] as HeldFill;
    if (!wanted(f)) continue;
    matched += 1;
    if (matched > offset) rows.push(f);
  }
  if (matched < need && !held.complete) return NOT_IN_MEMORY;
  const info = await liveMarkets(state, metadata, rows.slice(0, q.limit).map((r) => r.condition_id));
  return { q: { ...q, offset }, rows, info };
}

/** GET /data/trades: the caller's fills (as taker or maker) newest first, a page at the cursor's offset. */
export async function liveAccountTrades(state: LiveState, metadata: MarketMetadataSource, params: AccountTradesParams): Promise<TradePage | typeof NOT_IN_MEMORY> {
  const found = await accountTradeRows(state, metadata, params);
  if (found === 'end') return endTradePage(params);
  if (found === NOT_IN_MEMORY) return found;
  return tradePage(found.q, found.q.offset, found.rows, found.info, txHashOf);
}

/**
 * GET /data/trades as the bytes of the JSON text the route's schema serialiser would write for
 * liveAccountTrades' page (the page past the last, which has no trades, as that object), from the trade JSON
 * memory keeps.
 */
export async function liveAccountTradesJson(state: LiveState, metadata: MarketMetadataSource, params: AccountTradesParams): Promise<Buffer | TradePage | typeof NOT_IN_MEMORY> {
  const found = await accountTradeRows(state, metadata, params);
  if (found === 'end') return endTradePage(params);
  if (found === NOT_IN_MEMORY) return found;
  const { q, rows, info } = found;
  const count = Math.min(rows.length, q.limit);
  const items: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const f = rows[i] as HeldFill;
    const entry = state.tradeJson.entryOf(f, info.get(f.condition_id), txHashOf(f));
    items.push(entry.head, f.taker_account === q.caller ? TAKER_BYTES : MAKER_BYTES, entry.tail);
  }
  return pageBytes(items, rows.length > q.limit ? cursorFor(q.offset + q.limit) : END_CURSOR, q.limit, count, 3);
}

/** The reader's `trader_side` value, between a kept trade's head and tail. */
const TAKER_BYTES = Buffer.from('"TAKER"');
const MAKER_BYTES = Buffer.from('"MAKER"');
