// The one way into ClickHouse: @clickhouse/client, over chDB (the ClickHouse engine in this process, data
// under the data directory) in embedded mode, or over HTTP to a ClickHouse server. Same client API, same
// SQL. A chDB data directory belongs to one process at a time.

import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { join } from 'node:path';
import { useSpoolDir } from './bulkInsert.js';
import { abortPromptly } from './fatalSignals.js';

export type { ClickHouseClient } from '@clickhouse/client';

export interface ClickHouseSettings {
  readonly mode: 'embedded' | 'server';
  /** Embedded: chDB keeps its data under <dataDir>/clickhouse. */
  readonly dataDir: string;
  readonly url: string;
  readonly user: string;
  readonly password: string;
  /** The database that holds our tables. */
  readonly database: string;
}

/** Where an embedded client's chDB keeps its data (a property, so a Proxy around the client still finds it). */
const CHDB_PATH = Symbol.for('pmx.clickhouse.chdbPath');

type Embedded = { [CHDB_PATH]?: string };

/**
 * The data path of an embedded client's chDB, undefined for a server. chDB binds one data path per process:
 * other chDB sessions of the process (the ClickHouse HTTP endpoint's) must open this one.
 */
export function chdbPathOf(client: ClickHouseClient): string | undefined {
  return (client as unknown as Embedded)[CHDB_PATH];
}

export async function openClickHouse(settings: ClickHouseSettings): Promise<ClickHouseClient> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(settings.database)) throw new Error(`invalid ClickHouse database name ${settings.database}`);
  let client: ClickHouseClient;
  if (settings.mode === 'embedded') {
    // Loaded only in embedded mode: the native engine is large and a server deployment never needs it.
    const { createChdbConnection } = await import('chdb/connection');
    const path = join(settings.dataDir, 'clickhouse');
    const connection = createChdbConnection({ path });
    client = createClient({ connection } as unknown as Parameters<typeof createClient>[0]);
    (client as unknown as Embedded)[CHDB_PATH] = path;
    // Bulk inserts go through files here (storage/bulkInsert.ts says why).
    useSpoolDir(client, join(settings.dataDir, 'clickhouse-spool'));
  } else {
    client = createClient({ url: settings.url, username: settings.user, password: settings.password });
  }
  await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${settings.database}` });
  // chDB has installed its fatal-signal handlers by now (its first query).
  if (settings.mode === 'embedded') abortPromptly();
  return client;
}

/**
 * Rows of a SELECT as objects (JSONEachRow), 64-bit integers as strings (ClickHouse's default, which the
 * callers' row types state). Every query here states the 64-bit quoting it expects, because chDB applies a
 * query's settings to the whole session (its connection turns them into SET statements): a query that left
 * it unstated would get whatever the previous query asked for in embedded mode, and the default on a server.
 */
export async function queryRows<T>(client: ClickHouseClient, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await client.query({ query, format: 'JSONEachRow', query_params: params, clickhouse_settings: { output_format_json_quote_64bit_integers: 1 } });
  return (await result.json()) as T[];
}
