// The columns the projector writes, per table, in the order its builders write each TabSeparated line
// (projections/builders/*). A builder and its list change together; the types are the tables' own
// (projections/schema.ts): inserts read them from the table.

import type { ProjectedTable } from './schema.js';

export const COLUMNS: Readonly<Record<ProjectedTable, readonly string[]>> = {
  fills: [
    'fill_id', 'pos', 'seq', 'time', 'condition_id', 'kind', 'size', 'price', 'bucket_index',
    'taker_order_id', 'taker_account', 'taker_owner', 'taker_token_id', 'taker_outcome', 'taker_side', 'taker_price', 'taker_amount', 'taker_fee', 'taker_fee_bps',
    'maker_order_id', 'maker_account', 'maker_owner', 'maker_token_id', 'maker_outcome', 'maker_side', 'maker_price', 'maker_amount', 'maker_fee', 'maker_fee_bps',
    'taker_builder', 'maker_builder', 'taker_remaining', 'maker_remaining',
  ],
  orders: [
    'order_id', 'account', 'owner', 'condition_id', 'token_id', 'outcome', 'side', 'price', 'original_size', 'size_matched', 'status',
    'order_type', 'post_only', 'expiration', 'maker_amount', 'taker_amount', 'associate_trades', 'builder', 'created_at', 'updated_at', 'version',
  ],
  order_events: ['order_id', 'pos', 'seq', 'time', 'kind', 'account', 'remaining', 'fill_id', 'detail'],
  positions: ['account', 'token_id', 'condition_id', 'outcome', 'size', 'cost', 'total_bought', 'realized_pnl', 'updated_at', 'version', 'total_cost'],
  engine_markets: [
    'condition_id', 'token0', 'token1', 'tick_size', 'min_size', 'maker_fee_bps', 'taker_fee_bps', 'neg_risk', 'status', 'winning_outcome',
    'listed_at', 'updated_at', 'version',
  ],
  price_history: ['token_id', 'minute', 'last_trade', 'mid', 'version', 'spread'],
  book_level_changes: ['token_id', 'pos', 'seq', 'time', 'side', 'price', 'size'],
  book_changes: ['token_id', 'condition_id', 'pos', 'seq', 'time', 'last_trade', 'tick_size', 'min_size', 'neg_risk', 'levels'],
  book_snapshots: ['token_id', 'pos', 'seq', 'time', 'bids', 'asks'],
  ledger_events: ['pos', 'seq', 'time', 'account', 'kind', 'condition_id', 'amount', 'payout'],
  reward_samples: ['condition_id', 'pos', 'seq', 'at', 'samples', 'midpoint', 'account', 'q_one', 'q_two', 'q_min', 'share'],
  reward_earnings: ['condition_id', 'day', 'pos', 'seq', 'time', 'account', 'amount', 'paid', 'pool', 'samples'],
  account_totals: ['account', 'cash', 'tokens', 'volume', 'updated_at', 'version'],
};
