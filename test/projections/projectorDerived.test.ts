// Tables ClickHouse derives from the projector's inserts (fill_sides and the 'fill' order_events rows from
// fills, latest_prices from price_history; projections/schema.ts, migration 2) stay exactly once across a
// crash between the source insert and the views' inserts: the batch redone on restart completes them, and
// an insert repeated in full adds nothing. A batch pending from before the views is refused at start.

import t from 'tap';
import type { ClickHouseClient } from '@clickhouse/client';
import { Projector } from '../../projections/projector.js';
import { PROJECTION_MIGRATIONS } from '../../projections/schema.js';
import { appliedVersions, applyMigrations } from '../../storage/migrations.js';
import { FEE_ACCOUNT, countFills, crossingCommands, dumpTables, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';
import { eachStatement } from '../support/statementByStatement.js';

const VIEWS = ['fill_sides_mv', 'order_fill_events_mv', 'latest_prices_mv'];

async function rows(ch: ClickHouseClient, query: string): Promise<string[]> {
  const result = await ch.query({ query, format: 'JSONEachRow' });
  return ((await result.json()) as unknown[]).map((r) => JSON.stringify(r));
}

async function scalar(ch: ClickHouseClient, query: string): Promise<number> {
  const result = await ch.query({ query, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  const [row] = (await result.json()) as Record<string, number>[];
  return Number(Object.values(row ?? {})[0] ?? NaN);
}

t.test('source rows landed without their views: the redo completes the derived tables, once', async (t) => {
  const session = await loggedSession([...sessionFor(303, 300), ...crossingCommands(200)]);
  const reference = await freshDatabase();
  const clean = new Projector(reference.ch, reference.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 40 });
  await clean.start();
  await clean.catchUp();

  const target = await freshDatabase();
  const { ch, db } = target;
  let batches = 0;
  let cut = false;
  // In the third batch that has fills: the fills and price_history rows land with the views detached (as if
  // the process died after the source parts and before the views' parts), then the connection "fails"
  // (embedded: inside the commit's one call, between its price_history and positions statements).
  const failing = eachStatement(ch, async (statement, run) => {
    const source = statement.startsWith(`INSERT INTO ${db}.fills `) || statement.startsWith(`INSERT INTO ${db}.price_history `);
    if (source && statement.startsWith(`INSERT INTO ${db}.fills `)) batches += 1;
    if (!source || batches !== 3) return run();
    for (const view of VIEWS) await ch.command({ query: `DETACH TABLE ${db}.${view}` });
    try {
      await run();
    } finally {
      for (const view of VIEWS) await ch.command({ query: `ATTACH TABLE ${db}.${view}` });
    }
    if (statement.startsWith(`INSERT INTO ${db}.price_history `)) {
      cut = true;
      throw new Error('process died after the source inserts (scripted)');
    }
  });
  const crashing = new Projector(failing, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 40 });
  await crashing.start();
  await t.rejects(crashing.catchUp(), /scripted/);
  t.ok(cut, 'the third batch lost its views');
  const fills = countFills(session.records);
  t.ok(fills > 50, `${fills} fills in the log`);

  const restarted = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 40 });
  await restarted.start();
  await restarted.catchUp();
  t.same(await dumpTables(ch, db), await dumpTables(reference.ch, reference.db), 'the same tables as a projection that never failed');
  t.equal(await scalar(ch, `SELECT count() FROM ${db}.fill_sides`), 2 * fills, 'two fill_sides rows per fill');
  t.equal(await scalar(ch, `SELECT count() FROM ${db}.order_events WHERE kind = 'fill'`), 2 * fills, "two 'fill' order events per fill");
  const latest = (d: string): string => `SELECT token_id, argMaxMerge(latest) AS l, argMaxMerge(latest_spread) AS s FROM ${d}.latest_prices GROUP BY token_id ORDER BY token_id`;
  t.same(await rows(ch, latest(db)), await rows(reference.ch, latest(reference.db)), 'latest_prices as without the crash');

  // The first batch inserted once more, in full (as a redo after every insert had landed would), changes
  // nothing: a progress record saying "at 0, 1-40 pending", newer than any other, makes start() redo it.
  const before = await dumpTables(ch, db);
  await ch.command({ query: `INSERT INTO ${db}.projection_progress (projector, pos, pending_from, pending_to, version) VALUES ('main', 0, 1, 40, 1000000)` });
  const redo = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 40 });
  await redo.start();
  t.same(await dumpTables(ch, db), before, 'a full repeat of batch 1-40 added nothing');
});

t.test('a batch left pending by a schema-1 projector is refused, not redone through the views', async (t) => {
  const session = await loggedSession(sessionFor(303, 50));
  const { ch, db } = await freshDatabase();
  await applyMigrations(ch, db, 'projections', PROJECTION_MIGRATIONS.filter((m) => m.version === 1));
  await ch.command({ query: `INSERT INTO ${db}.projection_progress (projector, pos, pending_from, pending_to, version) VALUES ('main', 10, 11, 20, 22)` });
  const projector = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT });
  await t.rejects(projector.start(), /pending from before schema migration 2/);
  t.same([...(await appliedVersions(ch, db, 'projections'))], [1], 'migration 2 not applied');
  // Once that release has finished the batch, the upgrade goes ahead.
  await ch.command({ query: `INSERT INTO ${db}.projection_progress (projector, pos, pending_from, pending_to, version) VALUES ('main', 20, 0, 0, 41)` });
  const upgraded = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT });
  await upgraded.start();
  t.equal(upgraded.position, 20);
});
