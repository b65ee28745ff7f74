// storage/bulkInsert.ts insertTogether() against real chDB: the statements of one call run in order, and the
// first that fails rejects the call, the statements before it having landed and none after it; a projector
// commit that fails that way leaves its pending range recorded and the projector refusing further work.

import t from 'tap';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { insertTogether, valuesInsert } from '../../storage/bulkInsert.js';
import { TextChunks } from '../../storage/textChunks.js';
import { Projector } from '../../projections/projector.js';
import { readProgress } from '../../projections/progress.js';
import { FEE_ACCOUNT, countFills, crossingCommands, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';

async function count(ch: ClickHouseClient, table: string): Promise<number> {
  const result = await ch.query({ query: `SELECT count() AS n FROM ${table}`, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  const [row] = (await result.json()) as { n: number }[];
  return Number(row?.n);
}

function rows(...lines: string[]): Uint8Array[] {
  const body = new TextChunks();
  for (const line of lines) body.append(`${line}\n`);
  return body.chunks();
}

const SPOOL = Symbol.for('pmx.clickhouse.spoolDir');

t.test('one call: every statement in order, each under its own token', async (t) => {
  const { ch, db } = await freshDatabase();
  for (const name of ['head', 'a', 'b']) {
    await ch.command({ query: `CREATE TABLE ${db}.${name} (k UInt32, s String) ENGINE = MergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 100` });
  }
  const call = (): Promise<void> =>
    insertTogether(ch, [valuesInsert(`${db}.head`, ['k', 's'], [1, "it's \\ here"], 'head-1')], [
      { table: `${db}.a`, columns: ['k', 's'], body: rows('1\tx', '2\ty'), token: 'a-1' },
      { table: `${db}.b`, columns: ['k', 's'], body: [], token: 'b-empty' },
      { table: `${db}.b`, columns: ['k', 's'], body: rows('3\tz'), token: 'b-1' },
    ]);
  await call();
  const spool = (ch as unknown as Record<symbol, string>)[SPOOL] as string;
  const afterFirst = readdirSync(spool).sort();
  await call();
  t.same([await count(ch, `${db}.head`), await count(ch, `${db}.a`), await count(ch, `${db}.b`)], [1, 2, 1], 'each landed once, the repeated call dropped by its tokens');
  const result = await ch.query({ query: `SELECT s FROM ${db}.head`, format: 'JSONEachRow' });
  t.same(await result.json(), [{ s: "it's \\ here" }], 'an inline value escaped');
  t.equal(afterFirst.length, 2, 'a spool file for each non-empty insert');
  t.same(readdirSync(spool).sort(), afterFirst, 'the second call reused the first call\'s files: no file created or deleted');
  for (const name of afterFirst) t.equal(statSync(join(spool, name)).size, 0, `${name} given back empty`);
});

t.test('a statement that fails rejects the call: those before it landed, none after it', async (t) => {
  const { ch, db } = await freshDatabase();
  for (const name of ['head', 'a', 'c']) {
    await ch.command({ query: `CREATE TABLE ${db}.${name} (k UInt32, s String) ENGINE = MergeTree ORDER BY k SETTINGS non_replicated_deduplication_window = 100` });
  }
  await t.rejects(
    insertTogether(ch, [valuesInsert(`${db}.head`, ['k', 's'], [1, 'h'], 'head-1')], [
      { table: `${db}.a`, columns: ['k', 's'], body: rows('1\tx'), token: 'a-1' },
      { table: `${db}.missing`, columns: ['k', 's'], body: rows('2\ty'), token: 'missing-1' },
      { table: `${db}.c`, columns: ['k', 's'], body: rows('3\tz'), token: 'c-1' },
    ]),
    /missing/,
  );
  t.same([await count(ch, `${db}.head`), await count(ch, `${db}.a`), await count(ch, `${db}.c`)], [1, 1, 0], 'head and a landed, c did not');
  // A statement that reads a spool file that is not there fails the same way.
  await t.rejects(
    insertTogether(ch, [valuesInsert(`${db}.head`, ['k', 's'], [2, 'h'], 'head-2'), `INSERT INTO ${db}.a (k, s) SELECT * FROM file('/nonexistent/spool.tsv', TabSeparated)`], [
      { table: `${db}.c`, columns: ['k', 's'], body: rows('3\tz'), token: 'c-1' },
    ]),
  );
  t.same([await count(ch, `${db}.head`), await count(ch, `${db}.a`), await count(ch, `${db}.c`)], [2, 1, 0], 'the statement before the failure landed, the one after did not');
  const spool = (ch as unknown as Record<symbol, string>)[SPOOL] as string;
  for (const name of readdirSync(spool)) t.equal(statSync(join(spool, name)).size, 0, `${name} given back empty after a failure`);
});

t.test('a commit that fails inside chDB: pending recorded, earlier tables landed, the projector refuses further work', async (t) => {
  const session = await loggedSession([...sessionFor(303, 300), ...crossingCommands(150)]);
  t.ok(countFills(session.records) > 0, 'the log holds fills');
  const { ch, db } = await freshDatabase();
  const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT });
  await projector.start();
  // positions is the fifth table of a commit (PROJECTED_TABLES): ledger_events, fills, order_events and
  // price_history come before it, orders and engine_markets after it.
  await ch.command({ query: `DROP TABLE ${db}.positions` });
  await t.rejects(projector.catchUp(), /positions/, 'the commit rejects');
  t.same(await readProgress(ch, db, projector.name), { pos: 0, pendingFrom: 1, pendingTo: session.records.length }, 'the pending range was recorded first');
  for (const table of ['ledger_events', 'fills', 'order_events', 'price_history']) t.ok((await count(ch, `${db}.${table}`)) > 0, `${table} landed (before the failure)`);
  for (const table of ['orders', 'engine_markets']) t.equal(await count(ch, `${db}.${table}`), 0, `${table} did not (after it)`);
  t.equal(projector.position, 0, 'the batch is not committed');
  await t.rejects(projector.catchUp(), /stopped after a failure/, 'the projector is broken');
});
