// Read model: price history (GET /prices-history, POST /batch-prices-history) against the hand-built session
// of readModelFixture.ts. Y1's mark by minute: m0 0.40 (last trade, empty book), m2 0.60, m5 0.70, m7 0.65
// (book 0.60 / 0.70, a spread of 0.10 and not over it: the midpoint wins over the 0.70 last trade); no rows in
// between (carried forward). The mark's rule on rows of every kind, in ClickHouse and in memory, at the end.

import t from 'tap';
import { batchPriceHistory, MAX_POINTS, priceHistory, readContext, type PricePoint } from '../../projections/readModel/index.js';
import { latestMarks, markFrom, markSql } from '../../projections/readModel/marks.js';
import { PROJECTION_MIGRATIONS } from '../../projections/schema.js';
import { applyMigrations } from '../../storage/migrations.js';
import { freshDatabase } from '../support/projectionFixtures.js';
import { at, atTime, T0, T0S, readModelFixture } from './readModelFixture.js';

const DAY = 86_400_000;
const series = (start: number, values: number[], step = 60): PricePoint[] => values.map((p, i) => ({ t: start + i * step, p }));

t.test('price history', async (t) => {
  const { ctx } = await readModelFixture();

  t.test('fidelity 1: one point a minute, carried forward over quiet minutes', async (t) => {
    const { history } = await priceHistory(ctx, { market: 'Y1', startTs: T0S, endTs: T0S + 600 });
    t.same(history, series(T0S, [0.4, 0.4, 0.6, 0.6, 0.6, 0.7, 0.7, 0.65, 0.65, 0.65]));
    const no = await priceHistory(ctx, { market: 'N1', startTs: T0S, endTs: T0S + 600 });
    t.same(no.history.map((x) => x.p), [0.6, 0.6, 0.4, 0.4, 0.4, 0.3, 0.3, 0.35, 0.35, 0.35], 'outcome 1 mirrors outcome 0');
  });

  t.test('fidelity: buckets from the start, p at the end of each (or at endTs)', async (t) => {
    t.same((await priceHistory(ctx, { market: 'Y1', startTs: T0S, endTs: T0S + 600, fidelity: 3 })).history, series(T0S, [0.6, 0.7, 0.65, 0.65], 180));
    t.same((await priceHistory(ctx, { market: 'Y1', startTs: T0S, endTs: T0S + 150, fidelity: 2 })).history, series(T0S, [0.4, 0.6], 120));
    t.same((await priceHistory(ctx, { market: 'Y1', startTs: T0S, endTs: T0S + 600, fidelity: 1_000 })).history, [{ t: T0S, p: 0.65 }]);
  });

  t.test('carry in from before the range; nothing before the first mark; start floored to the minute', async (t) => {
    t.same((await priceHistory(ctx, { market: 'Y1', startTs: T0S + 180, endTs: T0S + 300 })).history, series(T0S + 180, [0.6, 0.6]));
    t.same((await priceHistory(ctx, { market: 'Y1', startTs: T0S + 190, endTs: T0S + 300 })).history, series(T0S + 180, [0.6, 0.6]));
    t.same((await priceHistory(ctx, { market: 'Y1', startTs: T0S - 300, endTs: T0S + 60 })).history, [{ t: T0S, p: 0.4 }]);
    t.same((await priceHistory(ctx, { market: 'Y1', startTs: T0S + 3_000, endTs: T0S + 3_120 })).history, series(T0S + 3_000, [0.65, 0.65]), 'long after the last row');
    t.same((await priceHistory(ctx, { market: 'Y1', startTs: T0S + 60, endTs: T0S + 60 })).history, [], 'an empty range');
    t.same((await priceHistory(ctx, { market: 'Y1', endTs: T0S + 120 })).history, series(T0S, [0.4, 0.4]), 'endTs alone: from the first mark');
    t.equal((await priceHistory(ctx, { market: 'Y1', startTs: String(T0S + 600) })).history.length, 3, 'startTs alone (a string): until now (m12:30)');
  });

  t.test('intervals end now; 1m is a month', async (t) => {
    // now = m12:30: every interval reaches back past the first mark, so each shows m0 .. m12.
    const thirteen = series(T0S, [0.4, 0.4, 0.6, 0.6, 0.6, 0.7, 0.7, 0.65, 0.65, 0.65, 0.65, 0.65, 0.65]);
    for (const interval of ['1h', '6h', '1d', '1w', '1m', 'max', 'all']) t.same((await priceHistory(ctx, { market: 'Y1', interval })).history, thirteen, interval);
    t.same((await priceHistory(ctx, { market: 'Y1' })).history, thirteen, 'neither interval nor range: max');
    t.same((await priceHistory(ctx, { market: 'Y1', interval: '1h', startTs: T0S + 300 })).history, thirteen.slice(5), 'an interval and a start: the later of the two');
    t.same((await priceHistory(ctx, { market: 'Y1', interval: '1h', endTs: T0S + 300 })).history, thirteen.slice(0, 5), 'an interval reaches back from endTs');
    const later = atTime(ctx, at(40 * 1_440));
    const month = (await priceHistory(later, { market: 'Y1', interval: '1m' })).history;
    t.equal(month.length, 30 * 1_440, 'a month of minutes');
    t.same([month[0], month.at(-1)], [{ t: (T0 + 10 * DAY) / 1000, p: 0.65 }, { t: (T0 + 40 * DAY) / 1000 - 60, p: 0.65 }]);
    t.equal((await priceHistory(later, { market: 'Y1', interval: '1w', fidelity: 60 })).history.length, 7 * 24);
    t.equal((await priceHistory(later, { market: 'Y1', interval: '1h' })).history.length, 60);
    t.equal((await priceHistory(later, { market: 'Y1', interval: 'max', fidelity: 1_440 })).history.length, 40);
  });

  t.test('a mark made in the current second is inside a range that ends now', async (t) => {
    // Minute 7 holds the last mark (0.65); now is half a second into it.
    const justAfter = atTime(ctx, at(7) + 500);
    const history = (await priceHistory(justAfter, { market: 'Y1', interval: '1h' })).history;
    t.same(history, series(T0S, [0.4, 0.4, 0.6, 0.6, 0.6, 0.7, 0.7, 0.65]), 'minute 7 began half a second ago and has its point');
    t.same((await priceHistory(atTime(ctx, at(7)), { market: 'Y1', interval: '1h' })).history, series(T0S, [0.4, 0.4, 0.6, 0.6, 0.6, 0.7, 0.7]), 'at its very first millisecond, minute 7 has not begun to count');
  });

  t.test('at most MAX_POINTS per token: the fidelity is raised to fit, given or default', async (t) => {
    const later = atTime(ctx, T0 + 100 * DAY);
    const raised = (await priceHistory(later, { market: 'Y1', interval: 'max' })).history;
    t.equal(raised.length, 72_000, '144,000 minutes at fidelity 2');
    t.ok(raised.length <= MAX_POINTS);
    t.equal(raised[1]?.t, T0S + 120);
    t.same((await priceHistory(later, { market: 'Y1', interval: 'max', fidelity: 1 })).history, raised, 'fidelity 1 would give 144,000 points: raised to 2 as well');
    t.same((await priceHistory(later, { market: 'Y1', startTs: T0S + 600, endTs: T0S + 60 })).history, [], 'a start after the end: an empty range');
  });

  t.test('batch: keyed by token id, unknown tokens empty', async (t) => {
    const { history } = await batchPriceHistory(ctx, { markets: ['Y1', 'Y2', 'Y3', 'nope'], startTs: T0S + 420, endTs: T0S + 600, fidelity: 1 });
    t.same(Object.keys(history), ['Y1', 'Y2', 'Y3', 'nope']);
    t.same(history.Y1, series(T0S + 420, [0.65, 0.65, 0.65]));
    t.same(history.Y2, series(T0S + 480, [0.3, 0.3]), 'Y2 book 0.20 / 0.40 from m8');
    t.same(history.Y3, [{ t: T0S + 540, p: 0.25 }]);
    t.same(history.nope, []);
    t.same((await priceHistory(ctx, { market: 'nope' })).history, []);
  });

  t.test('bad input is refused with a typed error', async (t) => {
    const bad: [object, RegExp][] = [
      [{ interval: '2d' }, /^interval:/],
      [{ fidelity: 0 }, /^fidelity:/], [{ fidelity: 1.5 }, /^fidelity:/], [{ startTs: 'noon' }, /^startTs:/], [{ endTs: -60 }, /^endTs:/],
    ];
    for (const [params, message] of bad) await t.rejects(priceHistory(ctx, { market: 'Y1', ...params }), { name: 'ReadModelInputError', message }, JSON.stringify(params));
    await t.rejects(priceHistory(ctx, { market: '' }), { message: /^market:/ });
    await t.rejects(batchPriceHistory(ctx, { markets: [] }), { message: /^markets:/ });
    await t.rejects(batchPriceHistory(ctx, { markets: Array.from({ length: 21 }, (_, i) => `T${i}`) }), { message: /^markets: at most 20/ });
    t.equal(Object.keys((await batchPriceHistory(ctx, { markets: Array.from({ length: 20 }, (_, i) => `T${i}`) })).history).length, 20);
  });
});

t.test('marks: the latest version of a minute counts, even without a mark; quiet tokens keep their last one', async (t) => {
  const { ch, db } = await freshDatabase();
  await applyMigrations(ch, db, 'projections', PROJECTION_MIGRATIONS);
  const minute = (m: number): string => new Date(T0 + m * 60_000).toISOString().slice(0, 19).replace('T', ' ');
  await ch.insert({
    table: `${db}.price_history`,
    format: 'JSONEachRow',
    values: [
      { token_id: 'A', minute: minute(0), last_trade: 500_000, mid: null, version: 1 },
      { token_id: 'A', minute: minute(1), last_trade: null, mid: 600_000, version: 2 },
      { token_id: 'A', minute: minute(1), last_trade: null, mid: null, version: 3 }, // replaces version 2: the book lost a side
      { token_id: 'B', minute: minute(0), last_trade: 100_000, mid: 200_000, version: 1 },
      { token_id: 'B', minute: minute(5), last_trade: 300_000, mid: null, version: 4 },
      { token_id: 'C', minute: minute(0), last_trade: null, mid: null, version: 1 },
    ],
  });
  const ctx = readContext(ch, db, { now: () => T0 + 10 * 60_000 });
  t.same([...(await latestMarks(ctx, ['A', 'B', 'C', 'D']))].sort(), [['A', 500_000], ['B', 300_000]], 'A: minute 1 has no mark, so minute 0; C never had one');
  const { history } = await batchPriceHistory(ctx, { markets: ['A', 'B', 'C'], startTs: T0S, endTs: T0S + 180 });
  t.same(history, { A: series(T0S, [0.5, 0.5, 0.5]), B: series(T0S, [0.2, 0.2, 0.2]), C: [] });
});

t.test("marks: upstream's displayed price, the midpoint while the spread is at most 0.10, else the last trade", async (t) => {
  const { ch, db } = await freshDatabase();
  await applyMigrations(ch, db, 'projections', PROJECTION_MIGRATIONS);
  const minute = (m: number): string => new Date(T0 + m * 60_000).toISOString().slice(0, 19).replace('T', ' ');
  await ch.insert({
    table: `${db}.price_history`,
    format: 'JSONEachRow',
    values: [
      { token_id: 'W', minute: minute(0), last_trade: 400_000, mid: 500_000, spread: 400_000, version: 1 }, // wide: the last trade
      { token_id: 'W', minute: minute(1), last_trade: 400_000, mid: 500_000, spread: 100_000, version: 2 }, // exactly 0.10: the midpoint
      { token_id: 'W', minute: minute(2), last_trade: 600_000, mid: 500_000, spread: 120_000, version: 3 },
      { token_id: 'X', minute: minute(0), last_trade: null, mid: 500_000, spread: 400_000, version: 1 }, // never traded: the midpoint
      { token_id: 'Y', minute: minute(0), last_trade: 400_000, mid: 500_000, spread: null, version: 1 }, // no spread recorded: the midpoint
      { token_id: 'Z', minute: minute(0), last_trade: 400_000, mid: null, spread: null, version: 1 }, // one-sided: the last trade
    ],
  });
  const ctx = readContext(ch, db, { now: () => T0 + 10 * 60_000 });
  t.same([...(await latestMarks(ctx, ['W', 'X', 'Y', 'Z']))].sort(), [['W', 600_000], ['X', 500_000], ['Y', 500_000], ['Z', 400_000]]);
  const { history } = await batchPriceHistory(ctx, { markets: ['W', 'X'], startTs: T0S, endTs: T0S + 180 });
  t.same(history, { W: series(T0S, [0.4, 0.5, 0.6]), X: series(T0S, [0.5, 0.5, 0.5]) });

  // markFrom (memory) and markSql (ClickHouse) are one rule: the same answer for every kind of row.
  const values = [null, 0, 350_000, 500_000];
  const spreads = [null, 0, 99_999, 100_000, 100_001, 400_000];
  const cases = values.flatMap((mid) => spreads.flatMap((spread) => values.map((last) => ({ mid, spread, last }))));
  const literal = (x: number | null): string => (x === null ? 'CAST(NULL, \'Nullable(Int64)\')' : `toNullable(toInt64(${x}))`);
  const sql = cases.map((c, i) => `SELECT ${i} AS i, ${markSql(literal(c.mid), literal(c.spread), literal(c.last))} AS mark`).join(' UNION ALL ');
  const rows = (await (await ch.query({ query: `SELECT i, mark FROM (${sql}) ORDER BY i`, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } })).json()) as { i: number; mark: number | null }[];
  t.same(rows.map((r) => r.mark), cases.map((c) => markFrom(c.mid, c.spread, c.last)), `${cases.length} cases agree`);
});

t.test('migration 34 on a database with price history: rows without a spread show their midpoint, new rows the rule', async (t) => {
  const { ch, db } = await freshDatabase();
  await applyMigrations(ch, db, 'projections', PROJECTION_MIGRATIONS.filter((m) => m.version !== 34));
  const minute = (m: number): string => new Date(T0 + m * 60_000).toISOString().slice(0, 19).replace('T', ' ');
  const before = [
    { token_id: 'A', minute: minute(0), last_trade: 400_000, mid: 500_000, version: 1 },
    { token_id: 'B', minute: minute(0), last_trade: 400_000, mid: 500_000, version: 1 },
  ];
  await ch.insert({ table: `${db}.price_history`, format: 'JSONEachRow', values: before });
  t.same(await applyMigrations(ch, db, 'projections', PROJECTION_MIGRATIONS), [34]);
  await ch.insert({ table: `${db}.price_history`, format: 'JSONEachRow', values: [{ token_id: 'B', minute: minute(1), last_trade: 400_000, mid: 500_000, spread: 400_000, version: 2 }] });
  const ctx = readContext(ch, db, { now: () => T0 + 10 * 60_000 });
  t.same([...(await latestMarks(ctx, ['A', 'B']))].sort(), [['A', 500_000], ['B', 400_000]]);
  t.same((await batchPriceHistory(ctx, { markets: ['A', 'B'], startTs: T0S, endTs: T0S + 120 })).history, { A: series(T0S, [0.5, 0.5]), B: series(T0S, [0.5, 0.4]) });
});
