// The catalog's handle on ClickHouse: a client and the database name, with the schema applied.

import type { ClickHouseClient } from '../storage/clickhouse.js';
import { applyMigrations } from '../storage/migrations.js';
import { CATALOG_MIGRATIONS, TABLES } from './schema.js';

export interface CatalogDb {
  readonly client: ClickHouseClient;
  /** The configured database; every table is `${db}.catalog_*`. */
  readonly db: string;
}

/** Applies the catalog's migrations (idempotent) and returns the handle. */
export async function prepareCatalog(client: ClickHouseClient, db: string): Promise<CatalogDb> {
  await applyMigrations(client, db, 'catalog', CATALOG_MIGRATIONS);
  return { client, db };
}

/** Fully qualified name of a catalog table. */
export function tableOf(catalog: CatalogDb, name: keyof typeof TABLES): string {
  return `${catalog.db}.${TABLES[name]}`;
}
