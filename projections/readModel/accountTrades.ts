// Trades in the CLOB shape (spec §2.10): GET /data/trades for the authenticated account and
// GET /builder/trades. One trade per fill: `id` is the fill id, the top level describes the taker order
// (maker_address is the taker order's signer, as upstream), `maker_orders` holds the one resting order
// the fill matched, and bucket_index is the fill's index among the fills of its taker command. Fills
// settle inside the exchange, so status is CONFIRMED from the start and transaction_hash is derived from
// the fill id (wire.ts). match_time and last_update are Unix seconds as strings (a fill never changes).
// Newest first (time, then fill id, descending); pages are offsets behind base64 cursors (cursor.ts).
// GET /builder/trades has two forms over the same query: the spec's bare array of these trades
// (builderTrades) and the official client's envelope of camelCase BuilderTrade items (builderTradesPage).

import { UNIT } from '../../engine/index.js';
import { ReadModelInputError } from './errors.js';
import { idList, intIn, text, unixSeconds } from './inputs.js';
import { select, type ReadContext } from './context.js';
import { cursorFor, END_CURSOR, parseCursor } from './cursor.js';
import { loadMarkets, outcomeLabel, type MarketInfo } from './markets.js';
import { SqlFilters } from './sqlFilters.js';
import { toDecimal, transactionHashOf } from './wire.js';

export const ACCOUNT_TRADES_DEFAULT_PAGE = 100;
export const ACCOUNT_TRADES_MAX_PAGE = 1_000;

export interface MakerOrder {
  order_id: string;
  maker_address: string;
  owner: string;
  matched_amount: string;
  fee_rate_bps: string;
  price: string;
  asset_id: string;
  outcome: string;
  side: 'BUY' | 'SELL';
}

export interface AccountTrade {
  id: string;
  taker_order_id: string;
  market: string;
  asset_id: string;
  side: 'BUY' | 'SELL';
  size: string;
  fee_rate_bps: string;
  price: string;
  status: 'CONFIRMED';
  match_time: string;
  last_update: string;
  outcome: string;
  bucket_index: number;
  owner: string;
  maker_address: string;
  transaction_hash: string;
  trader_side: 'TAKER' | 'MAKER';
  type: 'TAKER';
  maker_orders: MakerOrder[];
}

export interface TradePage {
  data: AccountTrade[];
  next_cursor: string;
  limit: number;
  count: number;
}

/** The columns of a `fills` row that a trade in the CLOB shape shows; the store that holds it does not matter. */
export interface TradeRow {
  readonly fill_id: string;
  readonly time_ms: number;
  readonly condition_id: string;
  readonly size: number;
  readonly bucket_index: number;
  readonly taker_order_id: string; readonly taker_account: string; readonly taker_owner: string; readonly taker_token_id: string; readonly taker_outcome: number;
  readonly taker_side: 'BUY' | 'SELL'; readonly taker_price: number; readonly taker_fee_bps: number;
  readonly maker_order_id: string; readonly maker_account: string; readonly maker_owner: string; readonly maker_token_id: string; readonly maker_outcome: number;
  readonly maker_side: 'BUY' | 'SELL'; readonly maker_price: number; readonly maker_fee_bps: number;
}

interface FillRow extends TradeRow {
  taker_amount: number; taker_fee: number; taker_builder: string;
  maker_amount: number; maker_fee: number; maker_builder: string;
}

const COLUMNS = `fill_id, toUnixTimestamp64Milli(time) AS time_ms, condition_id, size, bucket_index,
  taker_order_id, taker_account, taker_owner, taker_token_id, taker_outcome, taker_side, taker_price, taker_amount, taker_fee, taker_fee_bps, taker_builder,
  maker_order_id, maker_account, maker_owner, maker_token_id, maker_outcome, maker_side, maker_price, maker_amount, maker_fee, maker_fee_bps, maker_builder`;

/** A trade in the CLOB shape; `txHash` is transactionHashOf(r.fill_id) (a store may have it at hand). */
export function toTrade(r: TradeRow, m: MarketInfo | undefined, traderSide: 'TAKER' | 'MAKER', txHash = transactionHashOf(r.fill_id)): AccountTrade {
  const seconds = String(Math.floor(Number(r.time_ms) / 1000));
  return {
    id: r.fill_id,
    taker_order_id: r.taker_order_id,
    market: r.condition_id,
    asset_id: r.taker_token_id,
    side: r.taker_side,
    size: toDecimal(Number(r.size)),
    fee_rate_bps: String(r.taker_fee_bps),
    price: toDecimal(Number(r.taker_price)),
    status: 'CONFIRMED',
    match_time: seconds,
    last_update: seconds,
    outcome: outcomeLabel(m, r.taker_outcome),
    bucket_index: Number(r.bucket_index),
    owner: r.taker_owner,
    maker_address: r.taker_account,
    transaction_hash: txHash,
    trader_side: traderSide,
    type: 'TAKER',
    maker_orders: [{
      order_id: r.maker_order_id,
      maker_address: r.maker_account,
      owner: r.maker_owner,
      matched_amount: toDecimal(Number(r.size)),
      fee_rate_bps: String(r.maker_fee_bps),
      price: toDecimal(Number(r.maker_price)),
      asset_id: r.maker_token_id,
      outcome: outcomeLabel(m, r.maker_outcome),
      side: r.maker_side,
    }],
  };
}

interface Common {
  readonly id?: string;
  readonly market?: string;
  /** Unix seconds; only trades strictly before / after it. */
  readonly before?: string | number;
  readonly after?: string | number;
  readonly nextCursor?: string;
  /** Page size (the server's choice on the wire); default 100. */
  readonly limit?: number;
  /** Address of either order (the taker order's or the maker order's account). */
  readonly makerAddress?: string;
  /** Token id of either order. */
  readonly assetId?: string;
}

/** The checked filters shared by the trade reads; offset 'end' = the cursor that follows the last page. */
export interface TradeFilters {
  readonly id: string | undefined;
  readonly market: string | undefined;
  /** Unix seconds, strict. */
  readonly before: number | undefined;
  readonly after: number | undefined;
  readonly limit: number;
  readonly offset: number | 'end';
  readonly makerAddress: string | undefined;
  readonly assetId: string | undefined;
}

/** Checks the shared filters (throws ReadModelInputError), in the order their errors take precedence. */
function commonFilters(params: Common): TradeFilters {
  const id = text('id', params.id);
  const market = text('market', params.market);
  const before = unixSeconds('before', params.before);
  const after = unixSeconds('after', params.after);
  const limit = intIn('limit', params.limit, ACCOUNT_TRADES_DEFAULT_PAGE, 1, ACCOUNT_TRADES_MAX_PAGE);
  const offset = parseCursor('next_cursor', params.nextCursor);
  const makerAddress = text('maker_address', params.makerAddress);
  const assetId = idList('asset_id', params.assetId === undefined ? undefined : [params.assetId], 1)?.[0];
  return { id, market, before, after, limit, offset, makerAddress, assetId };
}

function addCommonFilters(q: TradeFilters, f: SqlFilters): void {
  if (q.makerAddress !== undefined) f.add('taker_account = {addr:String} OR maker_account = {addr:String}', { addr: q.makerAddress });
  if (q.assetId !== undefined) f.add('taker_token_id = {asset:String} OR maker_token_id = {asset:String}', { asset: q.assetId });
  if (q.id !== undefined) f.add('fill_id = {id:String}', { id: q.id });
  if (q.market !== undefined) f.add('condition_id = {market:String}', { market: q.market });
  if (q.before !== undefined) f.add('toUnixTimestamp(time) < {before:Int64}', { before: q.before });
  if (q.after !== undefined) f.add('toUnixTimestamp(time) > {after:Int64}', { after: q.after });
}

async function page(ctx: ReadContext, where: string, f: SqlFilters, offset: number, limit: number): Promise<FillRow[]> {
  return select<FillRow>(
    ctx,
    `SELECT ${COLUMNS} FROM ${ctx.db}.fills ${where} ORDER BY time DESC, fill_id DESC LIMIT {limit:UInt32} OFFSET {offset:UInt32}`,
    { ...f.params, limit: limit + 1, offset },
  );
}

export interface AccountTradesParams extends Common {
  /** The authenticated address: only fills where it was the taker or the maker. */
  readonly caller: string;
  /** Taker address. */
  readonly taker?: string;
  /** Maker (counterparty) address. */
  readonly maker?: string;
}

/** The checked parameters of GET /data/trades. */
export interface AccountTradesQuery extends TradeFilters {
  readonly caller: string;
  readonly taker: string | undefined;
  readonly maker: string | undefined;
}

/** Checks the parameters (throws ReadModelInputError); shared by every store that serves the read. */
export function accountTradesQuery(params: AccountTradesParams): AccountTradesQuery {
  const caller = text('caller', params.caller);
  if (caller === undefined || caller === '') throw new ReadModelInputError('caller', 'the authenticated address is required');
  const taker = text('taker', params.taker);
  const maker = text('maker', params.maker);
  return { caller, taker, maker, ...commonFilters(params) };
}

/** The answer past the last page: `limit` as the caller gave it (unchecked, as the cursor ends the read first). */
export const endTradePage = (params: AccountTradesParams): TradePage => ({ data: [], next_cursor: END_CURSOR, limit: params.limit ?? ACCOUNT_TRADES_DEFAULT_PAGE, count: 0 });

/**
 * The page of GET /data/trades from its rows from the offset on (at most limit + 1: one more says a page
 * follows); `txHash` gives a row's transaction hash when the store has it at hand.
 */
export function tradePage<R extends TradeRow>(q: AccountTradesQuery, offset: number, rows: readonly R[], info: ReadonlyMap<string, MarketInfo>, txHash?: (r: R) => string): TradePage {
  const shown = rows.slice(0, q.limit);
  return {
    data: shown.map((r) => toTrade(r, info.get(r.condition_id), r.taker_account === q.caller ? 'TAKER' : 'MAKER', txHash?.(r))),
    next_cursor: rows.length > q.limit ? cursorFor(offset + q.limit) : END_CURSOR,
    limit: q.limit,
    count: shown.length,
  };
}

/**
 * GET /data/trades. trader_side says whether the caller was the taker (TAKER) or the maker. `taker` and
 * `maker` name the account of that role; `makerAddress` (the official client's parameter) an account of
 * either role, and `assetId` the token of either order.
 */
export async function accountTrades(ctx: ReadContext, params: AccountTradesParams): Promise<TradePage> {
  const q = accountTradesQuery(params);
  if (q.offset === 'end') return endTradePage(params);
  const f = new SqlFilters({ caller: q.caller });
  if (q.taker !== undefined) f.add('taker_account = {taker:String}', { taker: q.taker });
  if (q.maker !== undefined) f.add('maker_account = {maker:String}', { maker: q.maker });
  addCommonFilters(q, f);
  // The caller's fills come from fill_sides (ordered by account); their rows in `fills` by its key prefix.
  const where = `WHERE (condition_id, time, fill_id) IN (SELECT condition_id, time, fill_id FROM ${ctx.db}.fill_sides WHERE account = {caller:String})${f.and}`;
  const rows = await page(ctx, where, f, q.offset, q.limit);
  const info = await loadMarkets(ctx, rows.slice(0, q.limit).map((r) => r.condition_id));
  return tradePage(q, q.offset, rows, info);
}

export interface BuilderTradesParams extends Common {
  /** The builder whose trades to list; absent: every trade that carried any builder code. */
  readonly builderCode?: string;
}

interface BuilderRows {
  /** Up to limit + 1 rows: one more than the page says whether another page follows. */
  readonly rows: FillRow[];
  readonly offset: number;
  readonly limit: number;
  /** Whether the taker order is the attributed one (else the maker order). */
  readonly takerAttributed: (r: FillRow) => boolean;
}

/** The query both forms of GET /builder/trades share; 'end' for the terminal cursor. */
async function builderRows(ctx: ReadContext, params: BuilderTradesParams): Promise<BuilderRows | 'end'> {
  const f = new SqlFilters();
  const code = text('builder_code', params.builderCode);
  if (code !== undefined) f.add('taker_builder = {code:String} OR maker_builder = {code:String}', { code });
  else f.add(`taker_builder != '' OR maker_builder != ''`);
  const q = commonFilters(params);
  addCommonFilters(q, f);
  if (q.offset === 'end') return 'end';
  const rows = await page(ctx, f.where, f, q.offset, q.limit);
  const takerAttributed = (r: FillRow): boolean => (code === undefined ? r.taker_builder !== '' : r.taker_builder === code);
  return { rows, offset: q.offset, limit: q.limit, takerAttributed };
}

/**
 * GET /builder/trades without `builder_code`: fills whose taker or maker order carried a builder code, as
 * a bare array (spec §4.3). trader_side names the side of the attributed order (TAKER when the taker's
 * carried the code). The wire has no envelope for a next cursor: a full page means there may be more, at
 * cursorFor(offset + limit).
 */
export async function builderTrades(ctx: ReadContext, params: BuilderTradesParams = {}): Promise<AccountTrade[]> {
  const found = await builderRows(ctx, params);
  if (found === 'end') return [];
  const rows = found.rows.slice(0, found.limit);
  const info = await loadMarkets(ctx, rows.map((r) => r.condition_id));
  return rows.map((r) => toTrade(r, info.get(r.condition_id), found.takerAttributed(r) ? 'TAKER' : 'MAKER'));
}

/**
 * The official client's BuilderTrade (upstream-conventions §2.8): one fill seen from the order that
 * carried the builder code (the attributed side). Decimal strings as elsewhere on the CLOB surface.
 */
export interface BuilderTrade {
  /** The fill id (the same `id` as the spec form and GET /data/trades). */
  id: string;
  /** TAKER or MAKER: the role of the attributed order in the fill. */
  tradeType: 'TAKER' | 'MAKER';
  /** The taker order's id, whichever side is attributed. */
  takerOrderHash: string;
  /** The attributed order's builder code (there is no other builder identity here). */
  builder: string;
  market: string;
  /** Token id of the attributed order. */
  assetId: string;
  side: 'BUY' | 'SELL';
  /** Shares, decimal. */
  size: string;
  /** Collateral, decimal: what the attributed side paid (BUY) or received before fees (SELL). */
  sizeUsdc: string;
  /** The attributed side's price in its own token. */
  price: string;
  status: 'CONFIRMED';
  outcome: string;
  outcomeIndex: number;
  /** API key of the attributed order. */
  owner: string;
  /** Account of the attributed order (its signed maker, the funding account). */
  maker: string;
  transactionHash: string;
  /** Unix seconds as a string (like match_time). */
  matchTime: string;
  bucketIndex: number;
  /** Fee the attributed side paid, decimal, in the unit it pays it: tokens for a BUY, collateral for a SELL. */
  fee: string;
  /** That fee's collateral value at the side's price (a SELL's fee is already collateral), decimal. */
  feeUsdc: string;
  /** "0": no builder fees are charged here (GET /fees/builder-fees answers 0/0). */
  builderFee: string;
  builderCode: string;
  err_msg: null;
  /** The fill's time, ISO 8601 to the second (a fill never changes, so updatedAt = createdAt). */
  createdAt: string;
  updatedAt: string;
}

export interface BuilderTradePage {
  data: BuilderTrade[];
  next_cursor: string;
  limit: number;
  count: number;
}

/** Collateral value of `fee` tokens at `price` (micro-units), rounded to the nearest base unit. */
function tokensAsCollateral(fee: number, price: number): number {
  const unit = BigInt(UNIT);
  return Number((BigInt(fee) * BigInt(price) + unit / 2n) / unit);
}

function toBuilderTrade(r: FillRow, m: MarketInfo | undefined, taker: boolean): BuilderTrade {
  const ms = Number(r.time_ms);
  const iso = new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const side = taker ? r.taker_side : r.maker_side;
  const price = Number(taker ? r.taker_price : r.maker_price);
  const fee = Number(taker ? r.taker_fee : r.maker_fee);
  const outcome = Number(taker ? r.taker_outcome : r.maker_outcome);
  const code = taker ? r.taker_builder : r.maker_builder;
  return {
    id: r.fill_id,
    tradeType: taker ? 'TAKER' : 'MAKER',
    takerOrderHash: r.taker_order_id,
    builder: code,
    market: r.condition_id,
    assetId: taker ? r.taker_token_id : r.maker_token_id,
    side,
    size: toDecimal(Number(r.size)),
    sizeUsdc: toDecimal(Number(taker ? r.taker_amount : r.maker_amount)),
    price: toDecimal(price),
    status: 'CONFIRMED',
    outcome: outcomeLabel(m, outcome),
    outcomeIndex: outcome,
    owner: taker ? r.taker_owner : r.maker_owner,
    maker: taker ? r.taker_account : r.maker_account,
    transactionHash: transactionHashOf(r.fill_id),
    matchTime: String(Math.floor(ms / 1000)),
    bucketIndex: Number(r.bucket_index),
    fee: toDecimal(fee),
    feeUsdc: toDecimal(side === 'BUY' ? tokensAsCollateral(fee, price) : fee),
    builderFee: '0',
    builderCode: code,
    err_msg: null,
    createdAt: iso,
    updatedAt: iso,
  };
}

/**
 * GET /builder/trades with `builder_code` (only the official client sends it): the same fills as
 * builderTrades, as `{data: BuilderTrade[], next_cursor, limit, count}` with cursors as GET /data/trades.
 */
export async function builderTradesPage(ctx: ReadContext, params: BuilderTradesParams = {}): Promise<BuilderTradePage> {
  const found = await builderRows(ctx, params);
  if (found === 'end') return { data: [], next_cursor: END_CURSOR, limit: params.limit ?? ACCOUNT_TRADES_DEFAULT_PAGE, count: 0 };
  const shown = found.rows.slice(0, found.limit);
  const info = await loadMarkets(ctx, shown.map((r) => r.condition_id));
  return {
    data: shown.map((r) => toBuilderTrade(r, info.get(r.condition_id), found.takerAttributed(r))),
    next_cursor: found.rows.length > found.limit ? cursorFor(found.offset + found.limit) : END_CURSOR,
    limit: found.limit,
    count: shown.length,
  };
}
