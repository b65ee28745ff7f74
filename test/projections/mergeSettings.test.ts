// Every projection table merges with merge_selector_base 10 (projections/schema.ts, migration 36): at
// ClickHouse's default a small table's parts are all merged into its one big part every few inserts, and the
// merge CPU grows with the table (bench:soak).

import t from 'tap';
import { applyMigrations } from '../../storage/migrations.js';
import { PROJECTED_TABLES, PROJECTION_MIGRATIONS } from '../../projections/schema.js';
import { freshDatabase } from '../support/projectionFixtures.js';

t.test('the projection tables carry merge_selector_base = 10', async (t) => {
  const { ch, db } = await freshDatabase();
  await applyMigrations(ch, db, 'projections', PROJECTION_MIGRATIONS);
  const result = await ch.query({ query: `SELECT name, engine_full FROM system.tables WHERE database = '${db}' AND engine LIKE '%MergeTree' AND name != 'schema_migrations' ORDER BY name`, format: 'JSONEachRow' });
  const tables = (await result.json()) as { name: string; engine_full: string }[];
  for (const name of [...PROJECTED_TABLES, 'fill_sides', 'latest_prices', 'projection_progress']) t.ok(tables.some((x) => x.name === name), `${name} is a MergeTree table`);
  for (const table of tables) t.match(table.engine_full, /merge_selector_base = 10\b/, table.name);
  t.equal(tables.length, PROJECTED_TABLES.length + 3, 'no MergeTree table of the projections without it');
});
