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
  {
    // Rows ClickHouse can derive from rows it already holds are no longer sent: both fill_sides rows and both
    // 'fill' order_events rows of a fill come from its fills row, through materialized views (the fill carries
    // each order's remaining size, -1 when the projector did not know the order, which then has no 'fill' event).
    // A view's insert is deduplicated on a token derived from its source insert's token: a batch inserted
    // again after a crash between the fills part and a view's part completes the view and duplicates
    // nothing (checked by test/projections/projectorDerived.test.ts).
    // latest_prices: each token's last price_history row by (minute, version), so the latest mark is a
    // point lookup rather than a read of every stored minute (projections/readModel/marks.ts).
    version: 2,
    name: 'fill_sides and fill order events derived from fills; latest_prices',
    statements: [
      `ALTER TABLE {db}.fills ADD COLUMN IF NOT EXISTS taker_remaining Int64 DEFAULT -1, ADD COLUMN IF NOT EXISTS maker_remaining Int64 DEFAULT -1`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.fill_sides_mv TO {db}.fill_sides AS
         SELECT fill_id, s.1 AS role, pos, time, s.2 AS account, s.3 AS owner, s.4 AS order_id, condition_id, s.5 AS token_id, s.6 AS outcome,
                s.7 AS side, s.8 AS price, size, s.9 AS amount, s.10 AS fee, s.11 AS fee_bps, kind
           FROM {db}.fills
          ARRAY JOIN [('taker', taker_account, taker_owner, taker_order_id, taker_token_id, taker_outcome, taker_side, taker_price, taker_amount, taker_fee, taker_fee_bps),
                      ('maker', maker_account, maker_owner, maker_order_id, maker_token_id, maker_outcome, maker_side, maker_price, maker_amount, maker_fee, maker_fee_bps)] AS s`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.order_fill_events_mv TO {db}.order_events AS
         SELECT s.1 AS order_id, pos, seq, time, 'fill' AS kind, s.2 AS account, s.3 AS remaining, fill_id, '' AS detail
           FROM {db}.fills
          ARRAY JOIN [(taker_order_id, taker_account, taker_remaining), (maker_order_id, maker_account, maker_remaining)] AS s
          WHERE s.3 >= 0`,
      `CREATE TABLE IF NOT EXISTS {db}.latest_prices (
         token_id String,
         latest AggregateFunction(argMax, Tuple(Nullable(Int64), Nullable(Int64), DateTime('UTC')), Tuple(DateTime('UTC'), UInt64))
       ) ENGINE = AggregatingMergeTree ORDER BY token_id ${DEDUP}, index_granularity = 256`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.latest_prices_mv TO {db}.latest_prices AS
         SELECT token_id, argMaxState((mid, last_trade, minute), (minute, version)) AS latest
           FROM {db}.price_history GROUP BY token_id`,
      // Rows projected before this migration (argMax states merge, so a repeated backfill changes nothing).
      `INSERT INTO {db}.latest_prices
         SELECT token_id, argMaxState((mid, last_trade, minute), (minute, version))
           FROM {db}.price_history GROUP BY token_id`,
    ],
  },
  {
    // A batch's part stays in the compact format (all columns in one file) until merges make it 256 MiB: at
    // the default threshold (10 MiB) every batch's part of fills, fill_sides and orders was a wide part, a
    // file pair per column. Measured on the benchmark's batches replayed into chDB: 4-7% less ClickHouse CPU
    // per fill. Parts merged past 256 MiB are wide, as large parts should be.
    version: 3,
    name: 'batch parts in the compact format',
    statements: ['fills', 'fill_sides', 'orders', 'order_events', 'positions', 'engine_markets', 'price_history', 'ledger_events', 'latest_prices'].map(
      (table) => `ALTER TABLE {db}.${table} MODIFY SETTING min_bytes_for_wide_part = 268435456`,
    ),
  },
];

/**
 * Tables the projector writes, in the order it writes them, one at a time. The order is part of crash
 * recovery (recovery.ts): a table whose rows depend on a builder's state comes before that builder's own
 * table. fill_sides and the 'fill' rows of order_events are written by ClickHouse from fills (migration 2);
 * latest_prices from price_history.
 */
export const PROJECTED_TABLES = ['ledger_events', 'fills', 'order_events', 'price_history', 'positions', 'orders', 'engine_markets'] as const;
export type ProjectedTable = (typeof PROJECTED_TABLES)[number];
