// ClickHouse schema of the catalog (component 'catalog' of storage/migrations.ts). Append migrations; never
// edit an applied one.
//
// Objects (markets, events, series, tags): ReplacingMergeTree keyed by id; `version` decides which copy wins
// (see catalogRows.ts: the upstream's updatedAt, with a copy fetched from the object's own endpoint winning a
// tie over one nested in another object). `json` is the upstream object as received (stored form, see
// upstream/gammaObjects.ts); the other columns are what filters and sorts read. Dates are microseconds since
// the epoch (exact, and sortable; NULL when the upstream gave none). Reads use FINAL; index_granularity is
// small because reads fetch a page of rows by id and each row carries its JSON.
//
// Links (event↔market, event↔tag, series↔event): keyed by the pair, with a bloom filter on the second column; `linked = 0` is a tombstone for a pair
// its owner no longer lists. Versioned like the objects, so the newest statement about a pair wins.
//
// Sync state: one row per (upstream source, stream), see sync/syncState.ts.
//
// Migration 2 (deletions upstream, see store/tombstones.ts and sync/reconcile.ts): every object records the
// `site` it came from (markets already did), so a reconciliation with one upstream only ever judges that
// upstream's objects (rows stored before the migration have '' and are never judged), and whether it is
// deleted (`deleted`, a copy of its tombstone that reads filter on without a join); `catalog_deletions`
// holds one tombstone per (kind, id), versioned so that the latest statement (deleted, or restored) wins;
// `catalog_reconciliations` is the log of reconciliation passes (when the next one is due is read from it).

import type { Migration } from '../storage/migrations.js';

const OBJECT_SETTINGS = 'ENGINE = ReplacingMergeTree(version) ORDER BY id SETTINGS index_granularity = 256';
/** Links are looked up from either side: small granules let the bloom filter on the other side prune. */
const LINK_SETTINGS = 'SETTINGS index_granularity = 256';

export const CATALOG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'catalog objects, links and sync state',
    statements: [
      `CREATE TABLE IF NOT EXISTS {db}.catalog_markets (
        id String, id_num UInt64, condition_id String, slug String, question String, question_id String,
        active UInt8, closed UInt8, archived UInt8, enable_order_book UInt8, neg_risk UInt8,
        creator String, site String,
        start_date Nullable(Int64), end_date Nullable(Int64), created_at Nullable(Int64), updated_at Nullable(Int64), closed_time Nullable(Int64),
        volume Nullable(Float64), volume_24hr Nullable(Float64), volume_1wk Nullable(Float64), volume_1mo Nullable(Float64), volume_1yr Nullable(Float64),
        liquidity Nullable(Float64), competitive Nullable(Float64), spread Nullable(Float64), last_trade_price Nullable(Float64),
        best_bid Nullable(Float64), best_ask Nullable(Float64), one_day_price_change Nullable(Float64),
        search_text String, json String, version UInt64,
        INDEX condition_idx condition_id TYPE bloom_filter GRANULARITY 1,
        INDEX slug_idx slug TYPE bloom_filter GRANULARITY 1
      ) ${OBJECT_SETTINGS}`,
      `CREATE TABLE IF NOT EXISTS {db}.catalog_events (
        id String, id_num UInt64, slug String, ticker String, title String,
        active UInt8, closed UInt8, archived UInt8, neg_risk UInt8,
        start_date Nullable(Int64), end_date Nullable(Int64), creation_date Nullable(Int64), created_at Nullable(Int64), updated_at Nullable(Int64),
        volume Nullable(Float64), volume_24hr Nullable(Float64), liquidity Nullable(Float64), competitive Nullable(Float64), open_interest Nullable(Float64),
        search_text String, json String, version UInt64,
        INDEX slug_idx slug TYPE bloom_filter GRANULARITY 1
      ) ${OBJECT_SETTINGS}`,
      `CREATE TABLE IF NOT EXISTS {db}.catalog_series (
        id String, id_num UInt64, slug String, ticker String, title String,
        active UInt8, closed UInt8, archived UInt8,
        created_at Nullable(Int64), updated_at Nullable(Int64), volume Nullable(Float64),
        json String, version UInt64
      ) ${OBJECT_SETTINGS}`,
      `CREATE TABLE IF NOT EXISTS {db}.catalog_tags (
        id String, id_num UInt64, label String, slug String,
        created_at Nullable(Int64), updated_at Nullable(Int64),
        json String, version UInt64
      ) ${OBJECT_SETTINGS}`,
      `CREATE TABLE IF NOT EXISTS {db}.catalog_event_markets (
        event_id String, market_id String, linked UInt8, version UInt64,
        INDEX market_idx market_id TYPE bloom_filter GRANULARITY 1
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (event_id, market_id) ${LINK_SETTINGS}`,
      `CREATE TABLE IF NOT EXISTS {db}.catalog_event_tags (
        event_id String, tag_id String, position UInt32, linked UInt8, version UInt64,
        INDEX tag_idx tag_id TYPE bloom_filter GRANULARITY 1
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (event_id, tag_id) ${LINK_SETTINGS}`,
      `CREATE TABLE IF NOT EXISTS {db}.catalog_series_events (
        series_id String, event_id String, linked UInt8, version UInt64,
        INDEX event_idx event_id TYPE bloom_filter GRANULARITY 1
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (series_id, event_id) ${LINK_SETTINGS}`,
      `CREATE TABLE IF NOT EXISTS {db}.catalog_sync_state (
        source String, stream String, phase String, next_offset UInt64, watermark Int64, pass_max Int64,
        full_passes UInt32, items UInt64, saved_at DateTime64(3), version UInt64
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (source, stream)`,
    ],
  },
  {
    version: 2,
    name: 'catalog object sites, deletion tombstones and reconciliations',
    statements: [
      `ALTER TABLE {db}.catalog_events ADD COLUMN IF NOT EXISTS site String DEFAULT ''`,
      `ALTER TABLE {db}.catalog_series ADD COLUMN IF NOT EXISTS site String DEFAULT ''`,
      `ALTER TABLE {db}.catalog_tags ADD COLUMN IF NOT EXISTS site String DEFAULT ''`,
      `ALTER TABLE {db}.catalog_markets ADD COLUMN IF NOT EXISTS deleted UInt8 DEFAULT 0`,
      `ALTER TABLE {db}.catalog_events ADD COLUMN IF NOT EXISTS deleted UInt8 DEFAULT 0`,
      `ALTER TABLE {db}.catalog_series ADD COLUMN IF NOT EXISTS deleted UInt8 DEFAULT 0`,
      `ALTER TABLE {db}.catalog_tags ADD COLUMN IF NOT EXISTS deleted UInt8 DEFAULT 0`,
      `CREATE TABLE IF NOT EXISTS {db}.catalog_deletions (
        kind String, id String, site String, deleted UInt8, deleted_at DateTime64(3), restored_at Nullable(DateTime64(3)),
        engine String, version UInt64
      ) ENGINE = ReplacingMergeTree(version) ORDER BY (kind, id)`,
      `CREATE TABLE IF NOT EXISTS {db}.catalog_reconciliations (
        source String, started_at DateTime64(3), finished_at DateTime64(3), outcome String, pages UInt64,
        seen Map(String, UInt64), missing Map(String, UInt64), deleted Map(String, UInt64), message String
      ) ENGINE = MergeTree ORDER BY (source, started_at)`,
    ],
  },
];

/** Table names, so SQL elsewhere never spells them twice. */
export const TABLES = {
  markets: 'catalog_markets',
  events: 'catalog_events',
  series: 'catalog_series',
  tags: 'catalog_tags',
  eventMarkets: 'catalog_event_markets',
  eventTags: 'catalog_event_tags',
  seriesEvents: 'catalog_series_events',
  syncState: 'catalog_sync_state',
  deletions: 'catalog_deletions',
  reconciliations: 'catalog_reconciliations',
} as const;
