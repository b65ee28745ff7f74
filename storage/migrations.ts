// Versioned schema migrations, applied at start. Each component (projections, catalog, ...) has its own
// numbered list; applied versions are recorded in <db>.schema_migrations and never applied twice. A
// migration is a list of statements; `{db}` in them is the configured database.

import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows } from './clickhouse.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly statements: readonly string[];
}

async function ensureTable(client: ClickHouseClient, database: string): Promise<void> {
  await client.command({
    query: `CREATE TABLE IF NOT EXISTS ${database}.schema_migrations (component String, version UInt32, name String, applied_at DateTime64(3) DEFAULT now64(3))
            ENGINE = ReplacingMergeTree ORDER BY (component, version)`,
  });
}

/** Versions of `component` applied so far (empty for a new database). */
export async function appliedVersions(client: ClickHouseClient, database: string, component: string): Promise<Set<number>> {
  await ensureTable(client, database);
  const rows = await queryRows<{ version: number }>(client, `SELECT version FROM ${database}.schema_migrations FINAL WHERE component = {component:String}`, { component });
  return new Set(rows.map((r) => Number(r.version)));
}

export async function applyMigrations(client: ClickHouseClient, database: string, component: string, migrations: readonly Migration[]): Promise<number[]> {
  const done = await appliedVersions(client, database, component);
  const applied: number[] = [];
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  for (const m of sorted) {
    if (done.has(m.version)) continue;
    for (const statement of m.statements) await client.command({ query: statement.replaceAll('{db}', database) });
    await client.insert({ table: `${database}.schema_migrations`, values: [{ component, version: m.version, name: m.name }], format: 'JSONEachRow' });
    applied.push(m.version);
  }
  return applied;
}
