// Rebuilds the projector's in-memory state from the latest-state tables, each builder as of a log position
// (`at`): every stored row with version <= that position, latest version per key. Normally every builder is
// restored as of the recorded progress; for a pending batch, recovery.ts says which builders are restored
// as of its end instead (rows of a crashed batch may have been merged over the older ones).

import type { ClickHouseClient } from '@clickhouse/client';
import type { OrderType, Outcome, Side } from '../engine/index.js';
import type { MarketsBuilder } from './builders/markets.js';
import type { OrdersBuilder } from './builders/orders.js';
import type { PositionsBuilder } from './builders/positions.js';
import type { AccountTotalsBuilder } from './builders/accountTotals.js';
import type { PriceHistoryBuilder } from './builders/priceHistory.js';
import type { BookHistoryBuilder } from './builders/bookHistory.js';
import type { BuilderName } from './recovery.js';

export interface Builders {
  readonly markets: MarketsBuilder;
  readonly orders: OrdersBuilder;
  readonly positions: PositionsBuilder;
  readonly prices: PriceHistoryBuilder;
  /** The projector's only (the in-memory read model keeps no account totals). */
  readonly accounts?: AccountTotalsBuilder;
}

const READ = { output_format_json_quote_64bit_integers: 0 } as const;

/** The log position each builder is restored as of (accounts: when restored). */
export type RestorePoints = Readonly<Record<Exclude<BuilderName, 'accounts'>, number>> & { readonly accounts?: number };

async function rows<T>(ch: ClickHouseClient, query: string, pos: number): Promise<T[]> {
  const result = await ch.query({ query, format: 'JSONEachRow', query_params: { pos }, clickhouse_settings: READ });
  return (await result.json()) as T[];
}

const ms = (text: string): number => Date.parse(`${text.replace(' ', 'T')}Z`);

export async function restoreState(ch: ClickHouseClient, db: string, at: RestorePoints, b: Builders): Promise<void> {
  type MarketRow = { condition_id: string; token0: string; token1: string; tick_size: number; min_size: number; maker_fee_bps: number; taker_fee_bps: number; neg_risk: boolean; status: 'active' | 'paused' | 'resolved'; winning_outcome: number; listed_at: string; updated_at: string };
  for (const m of await rows<MarketRow>(ch, `SELECT condition_id, argMax(token0, version) AS token0, argMax(token1, version) AS token1, argMax(tick_size, version) AS tick_size, argMax(min_size, version) AS min_size, argMax(maker_fee_bps, version) AS maker_fee_bps, argMax(taker_fee_bps, version) AS taker_fee_bps, argMax(neg_risk, version) AS neg_risk, argMax(status, version) AS status, argMax(winning_outcome, version) AS winning_outcome, argMax(listed_at, version) AS listed_at, argMax(updated_at, version) AS updated_at FROM ${db}.engine_markets WHERE version <= {pos:UInt64} GROUP BY condition_id`, at.markets)) {
    b.markets.restore({
      conditionId: m.condition_id, tokens: [m.token0, m.token1],
      params: { tickSize: Number(m.tick_size), minSize: Number(m.min_size), makerFeeBps: Number(m.maker_fee_bps), takerFeeBps: Number(m.taker_fee_bps), negRisk: Boolean(m.neg_risk) },
      status: m.status, winningOutcome: Number(m.winning_outcome) < 0 ? null : (Number(m.winning_outcome) as Outcome), listedAt: ms(m.listed_at), updatedAt: ms(m.updated_at),
    });
  }
  type OrderRow = { order_id: string; account: string; owner: string; condition_id: string; token_id: string; outcome: number; side: Side; price: number; original_size: number; size_matched: number; status: string; order_type: OrderType; post_only: boolean; expiration: number; maker_amount: number; taker_amount: number; associate_trades: string[]; builder: string; created_at: string; updated_at: string };
  const orderCols = ['account', 'owner', 'condition_id', 'token_id', 'outcome', 'side', 'price', 'original_size', 'size_matched', 'status', 'order_type', 'post_only', 'expiration', 'maker_amount', 'taker_amount', 'associate_trades', 'builder', 'created_at', 'updated_at'];
  const latestOrders = `SELECT order_id, ${orderCols.map((c) => `argMax(${c}, version) AS ${c}`).join(', ')} FROM ${db}.orders WHERE version <= {pos:UInt64} GROUP BY order_id HAVING status = 'LIVE' ORDER BY min(version), order_id`;
  for (const o of await rows<OrderRow>(ch, latestOrders, at.orders)) {
    b.orders.restore({
      id: o.order_id, account: o.account, owner: o.owner, conditionId: o.condition_id, tokenId: o.token_id, outcome: Number(o.outcome) as Outcome, side: o.side,
      price: Number(o.price), size: Number(o.original_size), matched: Number(o.size_matched), status: o.status, orderType: o.order_type, postOnly: Boolean(o.post_only),
      expiration: Number(o.expiration), makerAmount: Number(o.maker_amount), takerAmount: Number(o.taker_amount), trades: o.associate_trades, builder: o.builder,
      createdAt: ms(o.created_at), updatedAt: ms(o.updated_at), resting: true,
    });
  }
  type PositionRow = { account: string; token_id: string; condition_id: string; outcome: number; size: number; cost: number; total_bought: number; total_cost: number; realized_pnl: number; updated_at: string };
  const posCols = ['condition_id', 'outcome', 'size', 'cost', 'total_bought', 'total_cost', 'realized_pnl', 'updated_at'];
  for (const p of await rows<PositionRow>(ch, `SELECT account, token_id, ${posCols.map((c) => `argMax(${c}, version) AS ${c}`).join(', ')} FROM ${db}.positions WHERE version <= {pos:UInt64} GROUP BY account, token_id`, at.positions)) {
    b.positions.restore({
      account: p.account, tokenId: p.token_id, conditionId: p.condition_id, outcome: Number(p.outcome) as Outcome, size: Number(p.size), cost: Number(p.cost),
      totalBought: Number(p.total_bought), totalCost: Number(p.total_cost), realizedPnl: Number(p.realized_pnl), updatedAt: ms(p.updated_at),
    });
  }
  if (b.accounts !== undefined && at.accounts !== undefined) {
    type TotalsRow = { account: string; cash: number; tokens: number; volume: number; updated_at: string };
    const latest = `SELECT account, ${['cash', 'tokens', 'volume', 'updated_at'].map((c) => `argMax(${c}, version) AS ${c}`).join(', ')} FROM ${db}.account_totals WHERE version <= {pos:UInt64} GROUP BY account`;
    for (const t of await rows<TotalsRow>(ch, latest, at.accounts)) {
      b.accounts.restore({ account: t.account, cash: Number(t.cash), tokens: Number(t.tokens), volume: Number(t.volume), updatedAt: ms(t.updated_at) });
    }
  }
  const lastTrades = await rows<{ token_id: string; last: number }>(
    ch,
    `SELECT token_id, argMax(last_trade, (minute, version)) AS last FROM ${db}.price_history
      WHERE version <= {pos:UInt64} AND last_trade IS NOT NULL GROUP BY token_id`,
    at.prices,
  );
  for (const { token_id, last } of lastTrades) {
    const ref = b.markets.byToken.get(token_id);
    if (ref !== undefined && ref.outcome === 0) b.prices.lastTrade.set(ref.market.conditionId, Number(last));
  }
}

/**
 * The book history's state as of `pos`: for each token with a stored snapshot, how many changes it has had
 * since and the minute of that snapshot (its next snapshot is due after SNAPSHOT_EVERY changes or in a later
 * minute); the level changes seen while the open orders were
 * restored are forgotten.
 */
export async function restoreBookHistory(ch: ClickHouseClient, db: string, pos: number, book: BookHistoryBuilder): Promise<void> {
  book.reset();
  book.sinceSnapshot.clear();
  const since = await rows<{ token_id: string; since: number; minute: number }>(
    ch,
    `SELECT token_id, countIf(c.pos > s.last) AS since, any(s.minute) AS minute
       FROM ${db}.book_changes AS c
       INNER JOIN (SELECT token_id, max(pos) AS last, toUnixTimestamp(toStartOfMinute(argMax(time, pos))) * 1000 AS minute FROM ${db}.book_snapshots WHERE pos <= {pos:UInt64} GROUP BY token_id) AS s USING (token_id)
      WHERE c.pos <= {pos:UInt64}
      GROUP BY token_id`,
    pos,
  );
  for (const { token_id, since: n, minute } of since) book.sinceSnapshot.set(token_id, { changes: Number(n), minute: Number(minute) });
}
