// One embedded ClickHouse (chDB) per test process, in a fresh temporary data directory; each caller gets
// its own database in it, with the catalog schema applied, so subtests never see each other's rows. The
// directory is removed when the process's tests end.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openClickHouse, type ClickHouseClient } from '../../../storage/clickhouse.js';
import { prepareCatalog, type CatalogDb } from '../../../catalog/catalogDb.js';
import type { GammaObject } from '../../../catalog/upstream/gammaValues.js';

let client: Promise<ClickHouseClient> | undefined;
let databases = 0;

export function sharedClient(): Promise<ClickHouseClient> {
  client ??= (async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'catalog-test-'));
    const opened = await openClickHouse({ mode: 'embedded', dataDir, url: '', user: '', password: '', database: 'catalog_test_0' });
    t.teardown(async () => {
      await opened.close();
      rmSync(dataDir, { recursive: true, force: true });
    });
    return opened;
  })();
  return client;
}

/** A fresh database with the catalog schema. */
export async function freshCatalog(): Promise<CatalogDb> {
  const c = await sharedClient();
  databases += 1;
  const db = `catalog_test_${process.pid}_${databases}`;
  await c.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
  return prepareCatalog(c, db);
}

/** The body of a committed live capture (test/catalog/fixtures/live/<name>.json). */
export function liveBody(name: string): GammaObject {
  const path = new URL(`../fixtures/live/${name}.json`, import.meta.url);
  return (JSON.parse(readFileSync(path, 'utf8')) as { body: GammaObject }).body;
}

export function liveCapture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(`../fixtures/live/${name}.json`, import.meta.url), 'utf8'));
}
