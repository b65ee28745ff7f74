// --book-history-retention-days: a TTL on the book history's tables, set at each start, removed with 0; rows
// past it leave at the next merge.

import t from 'tap';
import { applyMigrations } from '../../storage/migrations.js';
import { PROJECTION_MIGRATIONS } from '../../projections/schema.js';
import { applyBookHistoryRetention, BOOK_HISTORY_TABLES } from '../../projections/bookHistoryRetention.js';
import { freshDatabase } from '../support/projectionFixtures.js';

t.test('a retention in days sets a TTL that drops older rows at the next merge; 0 removes it', async (t) => {
  const { ch, db } = await freshDatabase();
  await applyMigrations(ch, db, 'projections', PROJECTION_MIGRATIONS);
  const ttl = async (): Promise<string[]> => {
    const result = await ch.query({ query: `SELECT name, engine_full FROM system.tables WHERE database = '${db}' AND name LIKE 'book_%' ORDER BY name`, format: 'JSONEachRow' });
    return ((await result.json()) as { name: string; engine_full: string }[]).filter((r) => / TTL /.test(r.engine_full)).map((r) => r.name);
  };
  t.same(await ttl(), [], 'none by default');
  await applyBookHistoryRetention(ch, db, 30);
  t.same(await ttl(), [...BOOK_HISTORY_TABLES].sort(), 'each of the three');
  const now = new Date().toISOString().slice(0, 19).replace('T', ' ');
  await ch.command({ query: `INSERT INTO ${db}.book_level_changes VALUES ('1', 1, 1, '2001-01-01 00:00:00.000', 'BUY', 500000, 10000000), ('1', 2, 2, '${now}.000', 'BUY', 500000, 0)` });
  await ch.command({ query: `OPTIMIZE TABLE ${db}.book_level_changes FINAL` });
  const rows = await (await ch.query({ query: `SELECT pos FROM ${db}.book_level_changes ORDER BY pos`, format: 'JSONEachRow' })).json();
  t.same(rows, [{ pos: '2' }], 'the row older than 30 days is gone, the recent one stays');
  await applyBookHistoryRetention(ch, db, 0);
  t.same(await ttl(), [], '0 keeps everything again');
  await applyBookHistoryRetention(ch, db, 0);
  t.same(await ttl(), [], 'and again, with nothing to remove');
});
