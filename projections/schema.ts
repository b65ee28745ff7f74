// The projection tables (component 'projections'). Amounts and prices are integers in the engine's units
// (6-decimal base units; prices in micro-units), times are DateTime64(3) UTC. Every table written by the
// projector is deduplicated by insert token (non_replicated_deduplication_window) so that a batch inserted
// twice lands once; tables holding a latest state are ReplacingMergeTree on a `version` (the log position),
// read with FINAL or argMax. See README.md, "Tables for analysts".

import type { Migration } from '../storage/migrations.js';

const DEDUP = 'SETTINGS non_replicated_deduplication_window = 10000';

/**
 * account_totals rows (version 0) of every account, from what the positions and fill_sides tables hold: how
 * migration 4 gives them to accounts projected before it (bench:projections fills its synthetic tables so).
 */
export const ACCOUNT_TOTALS_FROM_TABLES = `INSERT INTO {db}.account_totals
  SELECT p.account, p.cash, p.tokens, v.volume, p.updated_at, 0 FROM
    (SELECT account, sum(realized_pnl - cost) AS cash, sum(size) AS tokens, max(updated_at) AS updated_at FROM {db}.positions FINAL GROUP BY account) AS p
    LEFT JOIN (SELECT account, sum(amount) AS volume FROM {db}.fill_sides GROUP BY account) AS v USING (account)`;

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
  {
    // total_cost: the collateral ever paid for a position's tokens, whose average buy price /closed-positions
    // shows once the position is closed (its cost is 0 by then). Rows projected before this migration read an
    // estimate, total_bought at the average price they held (0 once closed); the projector carries it on.
    // account_totals: each account's trading cash, tokens held and volume (builders/accountTotals.ts), which
    // the leaderboards rank by (readModel/leaderboard.ts). Accounts projected before this migration get a row
    // at version 0 from what the tables hold: cash = Σ (realized_pnl − cost) and tokens = Σ size over their
    // positions, volume = Σ amount over their fill sides (a batch left pending by a crash at that moment is
    // counted in them and then redone: an upgrade starts from a cleanly stopped projector).
    version: 4,
    name: 'positions.total_cost, account_totals',
    statements: [
      `ALTER TABLE {db}.positions ADD COLUMN IF NOT EXISTS total_cost Int64 DEFAULT if(size > 0, toInt64(cost / size * total_bought), 0)`,
      `CREATE TABLE IF NOT EXISTS {db}.account_totals (
         account String, cash Int64, tokens Int64, volume Int64, updated_at DateTime64(3, 'UTC'), version UInt64
       ) ENGINE = ReplacingMergeTree(version) ORDER BY account ${DEDUP}, min_bytes_for_wide_part = 268435456`,
      ACCOUNT_TOTALS_FROM_TABLES,
    ],
  },
  {
    // The book history (builders/bookHistory.ts): every level change of every token, an index of the records
    // that changed a token's book with the fields GET /book shows beside its levels, and whole books at a
    // token's first change, its first change in each minute and every 100 changes. Numbered apart from the others' sequence (versions are
    // applied by number, whatever their order). Retention: --book-history-retention-days sets a TTL on the
    // three at start (projections/bookHistoryRetention.ts).
    version: 10,
    name: 'book history: book_level_changes, book_changes, book_snapshots',
    statements: [
      `CREATE TABLE IF NOT EXISTS {db}.book_level_changes (
         token_id String, pos UInt64, seq UInt64, time DateTime64(3, 'UTC'), side LowCardinality(String), price Int64, size Int64
       ) ENGINE = MergeTree ORDER BY (token_id, time, pos, side, price) ${DEDUP}, min_bytes_for_wide_part = 268435456`,
      `CREATE TABLE IF NOT EXISTS {db}.book_changes (
         token_id String, condition_id String, pos UInt64, seq UInt64, time DateTime64(3, 'UTC'), last_trade Nullable(Int64),
         tick_size Int64, min_size Int64, neg_risk Bool, levels UInt32
       ) ENGINE = MergeTree ORDER BY (token_id, time, pos) ${DEDUP}, min_bytes_for_wide_part = 268435456`,
      `CREATE TABLE IF NOT EXISTS {db}.book_snapshots (
         token_id String, pos UInt64, seq UInt64, time DateTime64(3, 'UTC'), bids Array(Tuple(price Int64, size Int64)), asks Array(Tuple(price Int64, size Int64))
       ) ENGINE = MergeTree ORDER BY (token_id, time, pos) ${DEDUP}, min_bytes_for_wide_part = 268435456`,
    ],
  },
  {
    // The spread beside the midpoint, for the mark's rule (upstream's displayed price: the midpoint unless the
    // spread is over 0.10, readModel/marks.ts): price_history.spread (ask − bid when both sides had orders; rows
    // projected before it have NULL, which the mark reads as narrow) and latest_prices.latest_spread, the spread
    // of the same row as `latest`. latest_prices_mv is made again to write both. Numbered apart, like the book
    // history.
    version: 34,
    name: 'price_history.spread, latest_prices.latest_spread',
    statements: [
      `ALTER TABLE {db}.price_history ADD COLUMN IF NOT EXISTS spread Nullable(Int64)`,
      `ALTER TABLE {db}.latest_prices ADD COLUMN IF NOT EXISTS latest_spread AggregateFunction(argMax, Tuple(Nullable(Int64)), Tuple(DateTime('UTC'), UInt64))`,
      `DROP VIEW IF EXISTS {db}.latest_prices_mv`,
      `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.latest_prices_mv TO {db}.latest_prices AS
         SELECT token_id, argMaxState((mid, last_trade, minute), (minute, version)) AS latest, argMaxState(tuple(spread), (minute, version)) AS latest_spread
           FROM {db}.price_history GROUP BY token_id`,
    ],
  },
  {
    // Liquidity rewards (builders/rewards.ts, docs/rewards.md): the makers' scores of each sample and their
    // earnings of each market and day. Numbered apart from the others' sequence, like the book history.
    version: 35,
    name: 'liquidity rewards: reward_samples, reward_earnings',
    statements: [
      `CREATE TABLE IF NOT EXISTS {db}.reward_samples (
         condition_id String, pos UInt64, seq UInt64, at DateTime64(3, 'UTC'), samples UInt32, midpoint Int64, account String,
         q_one Int64, q_two Int64, q_min Int64, share Int64
       ) ENGINE = MergeTree ORDER BY (condition_id, at, account) ${DEDUP}`,
      `CREATE TABLE IF NOT EXISTS {db}.reward_earnings (
         condition_id String, day Date, pos UInt64, seq UInt64, time DateTime64(3, 'UTC'), account String, amount Int64, paid Bool,
         pool Int64, samples UInt32
       ) ENGINE = MergeTree ORDER BY (account, day, condition_id) ${DEDUP}`,
    ],
  },
  {
    // The merge selector's base for every projection table, 10 instead of ClickHouse's 5. Its rule weighs each
    // part as at least 5 MiB (a fixed cost per part), so while a table is small all its parts look alike and,
    // at base 5, every few inserts are merged into the table's one big part: at the projector's one commit a
    // second under light load, merge CPU grows with the table for its first hour or so (the soak's growth).
    // At base 10 merges wait for about ten parts and build tiers, and the cost per insert stays flat (chDB, 600
    // inserts of 60 rows 100 ms apart: base 5 7.2 s of CPU and growing with every hundred inserts, base 10
    // 3.6 s, flat), for at most about ten parts more per tier. Numbered apart, like the book history.
    version: 36,
    name: 'merge_selector_base 10 on every projection table',
    statements: [
      `ALTER TABLE {db}.account_totals MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.book_changes MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.book_level_changes MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.book_snapshots MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.engine_markets MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.fill_sides MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.fills MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.latest_prices MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.ledger_events MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.order_events MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.orders MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.positions MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.price_history MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.projection_progress MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.reward_earnings MODIFY SETTING merge_selector_base = 10`,
      `ALTER TABLE {db}.reward_samples MODIFY SETTING merge_selector_base = 10`,
    ],
  },
];

/**
 * Tables the projector writes, in the order it writes them, one at a time. The order is part of crash
 * recovery (recovery.ts): a table whose rows depend on a builder's state comes before that builder's own
 * table. fill_sides and the 'fill' rows of order_events are written by ClickHouse from fills (migration 2);
 * latest_prices from price_history.
 */
export const PROJECTED_TABLES = ['reward_samples', 'reward_earnings', 'ledger_events', 'fills', 'order_events', 'book_level_changes', 'book_changes', 'book_snapshots', 'price_history', 'positions', 'orders', 'engine_markets', 'account_totals'] as const;
export type ProjectedTable = (typeof PROJECTED_TABLES)[number];
