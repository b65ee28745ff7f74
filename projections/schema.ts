// The projection tables (component 'projections'). Amounts and prices are integers in the engine's units
// (6-decimal base units; prices in micro-units), times are DateTime64(3) UTC. Every table written by the
// projector is deduplicated by insert token (non_replicated_deduplication_window) so that a batch inserted
// twice lands once; tables holding a latest state are ReplacingMergeTree on a `version` (the log position),
// read with FINAL or argMax. See README.md, "Tables for analysts".

import type { Migration } from '../storage/migrations.js';

const DEDUP = 'SETTINGS non_replicated_deduplication_window = 10000';

export const PROJECTION_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'fills, orders, positions, markets, price history, ledger, progress',
    statements: [
      `CREATE TABLE IF NOT EXISTS {db}.fills (
         fill_id String, pos UInt64, seq UInt64, time DateTime64(3, 'UTC'), condition_id String, kind LowCardinality(String),
         size Int64, price Int64, bucket_index UInt32,
         taker_order_id String, taker_account String, taker_owner String, taker_token_id String, taker_outcome UInt8,
         taker_side LowCardinality(String), taker_price Int64, taker_amount Int64, taker_fee Int64, taker_fee_bps UInt16,
         maker_order_id String, maker_account String, maker_owner String, maker_token_id String, maker_outcome UInt8,
         maker_side LowCardinality(String), maker_price Int64, maker_amount Int64, maker_fee Int64, maker_fee_bps UInt16,
         taker_builder String, maker_builder String
       ) ENGINE = MergeTree ORDER BY (condition_id, time, fill_id) ${DEDUP}`,
      `CREATE TABLE IF NOT EXISTS {db}.fill_sides (
         fill_id String, role LowCardinality(String), pos UInt64, time DateTime64(3, 'UTC'), account String, owner String,
         order_id String, condition_id String, token_id String, outcome UInt8, side LowCardinality(String), price Int64,
         size Int64, amount Int64, fee Int64, fee_bps UInt16, kind LowCardinality(String)
       ) ENGINE = MergeTree ORDER BY (account, time, fill_id, role) ${DEDUP}`,
      `CREATE TABLE IF NOT EXISTS {db}.orders (
         order_id String, account String, owner String, condition_id String, token_id String, outcome UInt8,
         side LowCardinality(String), price Int64, original_size Int64, size_matched Int64, status LowCardinality(String),
         order_type LowCardinality(String), post_only Bool, expiration UInt64, maker_amount Int64, taker_amount Int64,
         associate_trades Array(String), builder String, created_at DateTime64(3, 'UTC'), updated_at DateTime64(3, 'UTC'), version UInt64
       ) ENGINE = ReplacingMergeTree(version) ORDER BY order_id ${DEDUP}`,
      `CREATE TABLE IF NOT EXISTS {db}.order_events (
         order_id String, pos UInt64, seq UInt64, time DateTime64(3, 'UTC'), kind LowCardinality(String), account String,
         remaining Int64, fill_id String, detail String
       ) ENGINE = MergeTree ORDER BY (order_id, seq) ${DEDUP}`,
      `CREATE TABLE IF NOT EXISTS {db}.positions (
         account String, token_id String, condition_id String, outcome UInt8, size Int64, cost Int64, total_bought Int64,
         realized_pnl Int64, updated_at DateTime64(3, 'UTC'), version UInt64
       ) ENGINE = ReplacingMergeTree(version) ORDER BY (account, token_id) ${DEDUP}, index_granularity = 1024`,
      `CREATE TABLE IF NOT EXISTS {db}.engine_markets (
         condition_id String, token0 String, token1 String, tick_size Int64, min_size Int64, maker_fee_bps UInt16,
         taker_fee_bps UInt16, neg_risk Bool, status LowCardinality(String), winning_outcome Int8, listed_at DateTime64(3, 'UTC'),
         updated_at DateTime64(3, 'UTC'), version UInt64
       ) ENGINE = ReplacingMergeTree(version) ORDER BY condition_id ${DEDUP}`,
      `CREATE TABLE IF NOT EXISTS {db}.price_history (
         token_id String, minute DateTime('UTC'), last_trade Nullable(Int64), mid Nullable(Int64), version UInt64
       ) ENGINE = ReplacingMergeTree(version) ORDER BY (token_id, minute) ${DEDUP}`,
      `CREATE TABLE IF NOT EXISTS {db}.ledger_events (
         pos UInt64, seq UInt64, time DateTime64(3, 'UTC'), account String, kind LowCardinality(String), condition_id String,
         amount Int64, payout Int64
       ) ENGINE = MergeTree ORDER BY (account, time, seq) ${DEDUP}`,
      `CREATE TABLE IF NOT EXISTS {db}.projection_progress (
         projector String, pos UInt64, pending_from UInt64, pending_to UInt64, version UInt64, updated_at DateTime64(3, 'UTC') DEFAULT now64(3)
       ) ENGINE = ReplacingMergeTree(version) ORDER BY projector`,
    ],
  },
];

/** Tables the projector writes, in the order it writes them. */
export const PROJECTED_TABLES = ['fills', 'fill_sides', 'orders', 'order_events', 'positions', 'engine_markets', 'price_history', 'ledger_events'] as const;
export type ProjectedTable = (typeof PROJECTED_TABLES)[number];
