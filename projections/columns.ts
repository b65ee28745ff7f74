// The columns the projector writes, per table, in the order its builders write each row
// (projections/builders/*), with the kind of value each holds (storage/nativeBlock.ts). A builder and its list
// change together; the types are the tables' own (projections/schema.ts): an insert casts each column to its
// table's type (an integer column of any width is written as Int64, a LowCardinality(String) as String).

import type { NativeKind } from '../storage/nativeBlock.js';
import type { ProjectedTable } from './schema.js';

type Columns = readonly (readonly [name: string, kind: NativeKind])[];

/** One side of a fill: the taker's or the maker's columns, named with `who`. */
const fillSide = (who: 'taker' | 'maker'): Columns => [
  [`${who}_order_id`, 'string'], [`${who}_account`, 'string'], [`${who}_owner`, 'string'], [`${who}_token_id`, 'string'], [`${who}_outcome`, 'int'],
  [`${who}_side`, 'string'], [`${who}_price`, 'int'], [`${who}_amount`, 'int'], [`${who}_fee`, 'int'], [`${who}_fee_bps`, 'int'],
];

export const COLUMN_KINDS: Readonly<Record<ProjectedTable, Columns>> = {
  fills: [
    ['fill_id', 'string'], ['pos', 'int'], ['seq', 'int'], ['time', 'time'], ['condition_id', 'string'], ['kind', 'string'], ['size', 'int'], ['price', 'int'], ['bucket_index', 'int'],
    ...fillSide('taker'),
    ...fillSide('maker'),
    ['taker_builder', 'string'], ['maker_builder', 'string'], ['taker_remaining', 'int'], ['maker_remaining', 'int'],
  ],
  orders: [
    ['order_id', 'string'], ['account', 'string'], ['owner', 'string'], ['condition_id', 'string'], ['token_id', 'string'], ['outcome', 'int'], ['side', 'string'],
    ['price', 'int'], ['original_size', 'int'], ['size_matched', 'int'], ['status', 'string'], ['order_type', 'string'], ['post_only', 'bool'], ['expiration', 'int'],
    ['maker_amount', 'int'], ['taker_amount', 'int'], ['associate_trades', 'strings'], ['builder', 'string'], ['created_at', 'time'], ['updated_at', 'time'], ['version', 'int'],
  ],
  order_events: [['order_id', 'string'], ['pos', 'int'], ['seq', 'int'], ['time', 'time'], ['kind', 'string'], ['account', 'string'], ['remaining', 'int'], ['fill_id', 'string'], ['detail', 'string']],
  positions: [
    ['account', 'string'], ['token_id', 'string'], ['condition_id', 'string'], ['outcome', 'int'], ['size', 'int'], ['cost', 'int'], ['total_bought', 'int'], ['realized_pnl', 'int'],
    ['updated_at', 'time'], ['version', 'int'], ['total_cost', 'int'],
  ],
  engine_markets: [
    ['condition_id', 'string'], ['token0', 'string'], ['token1', 'string'], ['tick_size', 'int'], ['min_size', 'int'], ['maker_fee_bps', 'int'], ['taker_fee_bps', 'int'],
    ['neg_risk', 'bool'], ['status', 'string'], ['winning_outcome', 'int'], ['listed_at', 'time'], ['updated_at', 'time'], ['version', 'int'],
  ],
  price_history: [['token_id', 'string'], ['minute', 'minute'], ['last_trade', 'nullInt'], ['mid', 'nullInt'], ['version', 'int'], ['spread', 'nullInt']],
  book_level_changes: [['token_id', 'string'], ['pos', 'int'], ['seq', 'int'], ['time', 'time'], ['side', 'string'], ['price', 'int'], ['size', 'int']],
  book_changes: [
    ['token_id', 'string'], ['condition_id', 'string'], ['pos', 'int'], ['seq', 'int'], ['time', 'time'], ['last_trade', 'nullInt'], ['tick_size', 'int'], ['min_size', 'int'],
    ['neg_risk', 'bool'], ['levels', 'int'],
  ],
  book_snapshots: [['token_id', 'string'], ['pos', 'int'], ['seq', 'int'], ['time', 'time'], ['bids', 'pairs'], ['asks', 'pairs']],
  ledger_events: [['pos', 'int'], ['seq', 'int'], ['time', 'time'], ['account', 'string'], ['kind', 'string'], ['condition_id', 'string'], ['amount', 'int'], ['payout', 'int']],
  reward_samples: [
    ['condition_id', 'string'], ['pos', 'int'], ['seq', 'int'], ['at', 'time'], ['samples', 'int'], ['midpoint', 'int'], ['account', 'string'], ['q_one', 'int'], ['q_two', 'int'],
    ['q_min', 'int'], ['share', 'int'],
  ],
  reward_earnings: [
    // day: 'YYYY-MM-DD', which the insert casts to the table's Date.
    ['condition_id', 'string'], ['day', 'string'], ['pos', 'int'], ['seq', 'int'], ['time', 'time'], ['account', 'string'], ['amount', 'int'], ['paid', 'bool'], ['pool', 'int'],
    ['samples', 'int'],
  ],
  account_totals: [['account', 'string'], ['cash', 'int'], ['tokens', 'int'], ['volume', 'int'], ['updated_at', 'time'], ['version', 'int']],
};

/** The column names of each table, in the order its rows are written. */
export const COLUMNS: Readonly<Record<ProjectedTable, readonly string[]>> = columnNames();

function columnNames(): Record<ProjectedTable, readonly string[]> {
  const out = {} as Record<ProjectedTable, readonly string[]>;
  for (const table of Object.keys(COLUMN_KINDS) as ProjectedTable[]) out[table] = COLUMN_KINDS[table].map(([name]) => name);
  return out;
}
