// Phase 3 of the projection benchmark: GET /positions latency at scale. The tables are filled with synthetic
// rows generated inside ClickHouse (INSERT ... SELECT FROM numbers(), not through the engine: 10M fills
// through the projector would take hours here), shaped like the projector's output:
//   fills        `fills` rows between `addresses` addresses over `markets` markets; fill_sides from them (the
//                table's materialized view; remaining sizes -1, so no order events)
//   positions    one version row per fill side, as the projector writes one per touched position: side s
//                belongs to address s % addresses and to one of `tokensPerAddress` tokens of that address,
//                so each address has (2 × fills / addresses) versions over at most tokensPerAddress tokens
//   markets      `markets` engine_markets rows, a tenth of them resolved
//   prices       a price_history row per token per minute for `minutes` minutes (every token busy); latest_prices
//                from them (materialized view)
// Once ClickHouse has finished merging what was generated, the read model's positions() is timed for
// `queries` random addresses (after a warm-up).

import type { ClickHouseClient } from '../storage/clickhouse.js';
import { applyMigrations } from '../storage/migrations.js';
import { PROJECTION_MIGRATIONS } from '../projections/schema.js';
import { positions, readContext } from '../projections/readModel/index.js';
import { summarise } from './latency.js';

export interface QueryOptions {
  readonly fills: number;
  readonly addresses: number;
  readonly markets: number;
  readonly tokensPerAddress: number;
  readonly minutes: number;
  readonly queries: number;
  readonly warmup: number;
}

export interface QueryResult {
  readonly fills: number;
  readonly addresses: number;
  readonly positionRows: number;
  readonly generateSec: number;
  /** Seconds waited after generating for the background merges to finish. */
  readonly settleSec: number;
  readonly queries: number;
  readonly meanRows: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
}

const hex16 = (expr: string, salt: number): string => `leftPad(lower(hex(cityHash64(${expr}, ${salt}))), 16, '0')`;
const address = (expr: string): string => `concat('0x', ${hex16(expr, 1)}, ${hex16(expr, 2)}, substring(${hex16(expr, 3)}, 1, 8))`;
const conditionId = (expr: string): string => `concat('0x', ${hex16(expr, 4)}, ${hex16(expr, 5)}, ${hex16(expr, 6)}, ${hex16(expr, 7)})`;
const digits19 = (expr: string, salt: number): string => `leftPad(toString(cityHash64(${expr}, ${salt}) % 10000000000000000000), 19, '0')`;
/** A 77-digit token id for token index `expr` (market intDiv(expr, 2), outcome expr % 2). */
const tokenId = (expr: string): string => `concat(toString(1 + (${expr}) % 9), ${digits19(expr, 8)}, ${digits19(expr, 9)}, ${digits19(expr, 10)}, ${digits19(expr, 11)})`;
const T0 = 1_700_000_000;

async function count(ch: ClickHouseClient, query: string): Promise<number> {
  const result = await ch.query({ query, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  const [row] = (await result.json()) as { n: number }[];
  return Number(row?.n ?? 0);
}

export async function generate(ch: ClickHouseClient, db: string, o: QueryOptions): Promise<void> {
  await applyMigrations(ch, db, 'projections', PROJECTION_MIGRATIONS);
  const tokens = 2 * o.markets;
  const run = (query: string): Promise<unknown> => ch.command({ query, clickhouse_settings: { max_insert_threads: '2' } });
  await run(`INSERT INTO ${db}.engine_markets SELECT ${conditionId('number')}, ${tokenId('2 * number')}, ${tokenId('2 * number + 1')}, 10000, 1000000, 0, 20, false,
      if(number % 10 = 0, 'resolved', 'active'), if(number % 10 = 0, toInt8(number % 20 = 0), toInt8(-1)), toDateTime64(${T0}, 3, 'UTC'), toDateTime64(${T0}, 3, 'UTC'), 1
    FROM numbers(${o.markets})`);
  await run(`INSERT INTO ${db}.fills SELECT
      concat('00000000-0000-4000-8000-', leftPad(lower(hex(number + 1)), 12, '0')) AS fill_id, number + 1, number + 1,
      toDateTime64(${T0} + intDiv(number, 100), 3, 'UTC') AS time, ${conditionId('m')} AS cid, 'normal', (1 + number % 50) * 1000000 AS size, 300000 + cityHash64(number, 20) % 400000 AS price, 0,
      concat('0x', leftPad(lower(hex(2 * number)), 64, '0')), ${address('number % ' + o.addresses)}, 'key-taker', ${tokenId('2 * m')}, 0, 'BUY', price, intDiv(size * price, 1000000), 0, 20,
      concat('0x', leftPad(lower(hex(2 * number + 1)), 64, '0')), ${address(`(number * 7 + 13) % ${o.addresses}`)}, 'key-maker', ${tokenId('2 * m')}, 0, 'SELL', price, intDiv(size * price, 1000000), 0, 0, '', '', -1, -1
    FROM (SELECT number, cityHash64(number, 19) % ${o.markets} AS m FROM numbers(${o.fills}))`);
  await run(`INSERT INTO ${db}.positions SELECT ${address('a')}, ${tokenId('t')}, ${conditionId('intDiv(t, 2)')}, t % 2,
      if(cityHash64(s, 22) % 10 = 0, 0, (1 + cityHash64(s, 21) % 500) * 1000000) AS size, intDiv(size * (200000 + cityHash64(s, 23) % 600000), 1000000),
      size + intDiv(s, ${o.addresses}) * 1000000, toInt64(cityHash64(s, 24) % 2000000) - 1000000, toDateTime64(${T0} + intDiv(s, 200), 3, 'UTC'), s + 1,
      intDiv((size + intDiv(s, ${o.addresses}) * 1000000) * (200000 + cityHash64(s, 25) % 600000), 1000000)
    FROM (SELECT number AS s, s % ${o.addresses} AS a, (a * 7919 + (intDiv(s, ${o.addresses}) % ${o.tokensPerAddress}) * 104729) % ${tokens} AS t FROM numbers(${2 * o.fills}))`);
  await run(`INSERT INTO ${db}.price_history SELECT ${tokenId('t')}, toDateTime(${T0} + 60 * i, 'UTC'),
      toInt64(300000 + cityHash64(t, i, 1) % 400000) AS last, if(cityHash64(t, i, 2) % 20 = 0, NULL, toInt64(300000 + cityHash64(t, i, 3) % 400000)), ${o.fills} + i,
      if(cityHash64(t, i, 2) % 20 = 0, NULL, toInt64(10000 + cityHash64(t, i, 4) % 120000))
    FROM (SELECT intDiv(number, ${o.minutes}) AS t, number % ${o.minutes} AS i FROM numbers(${tokens * o.minutes}))`);
}

/**
 * Waits (at most `limitSec`) until no merge of `db` runs: the bulk generation leaves ClickHouse merging
 * gigabytes for a while, which a serving deployment does not do. Returns the seconds waited.
 */
export async function mergesSettled(ch: ClickHouseClient, db: string, limitSec: number): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < limitSec * 1000) {
    if ((await count(ch, `SELECT count() AS n FROM system.merges WHERE database = '${db}'`)) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return (performance.now() - t0) / 1000;
}

export async function measurePositionsQuery(ch: ClickHouseClient, db: string, o: QueryOptions): Promise<QueryResult> {
  const t0 = performance.now();
  await generate(ch, db, o);
  const generateSec = (performance.now() - t0) / 1000;
  const settleSec = await mergesSettled(ch, db, 300);
  const positionRows = await count(ch, `SELECT count() AS n FROM ${db}.positions`);
  const fills = await count(ch, `SELECT count() AS n FROM ${db}.fills`);
  const addresses = await count(ch, `SELECT uniqExact(account) AS n FROM ${db}.fill_sides`);
  if (fills !== o.fills) throw new Error(`generated ${fills} fills, wanted ${o.fills}`);
  const result = await ch.query({
    query: `SELECT ${address('number')} AS a FROM numbers(${o.addresses}) ORDER BY cityHash64(number, 99) LIMIT ${o.queries + o.warmup}`,
    format: 'JSONEachRow',
  });
  const users = ((await result.json()) as { a: string }[]).map((r) => r.a);
  const ctx = readContext(ch, db);
  const samples = new Float64Array(o.queries);
  let rows = 0;
  for (let i = 0; i < users.length; i++) {
    const start = performance.now();
    const got = await positions(ctx, { user: users[i] as string });
    const ms = performance.now() - start;
    if (i >= o.warmup) {
      samples[i - o.warmup] = ms;
      rows += got.length;
    }
  }
  const s = summarise(samples);
  return { fills, addresses, positionRows, generateSec, settleSec, queries: o.queries, meanRows: rows / o.queries, p50Ms: s.p50Ns, p99Ms: s.p99Ns, maxMs: s.maxNs };
}
