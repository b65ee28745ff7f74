// A journal filled by the real engine and a fresh embedded ClickHouse, for projection tests.

import fc from 'fast-check';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ENGINE_CONFIG, Engine, type Command } from '../../engine/index.js';
import { Journal } from '../../log/journal/journal.js';
import type { LogRecord } from '../../log/eventLog.js';
import { openClickHouse, type ClickHouseClient } from '../../storage/clickhouse.js';
import { STATEMENT_SEPARATOR } from '../../storage/bulkInsert.js';
import { genesis, opsArb, toCommands } from '../engine/modelCommands.js';

export const DB = 'exchange';
export const FEE_ACCOUNT = DEFAULT_ENGINE_CONFIG.feeAccount;

/** A varied session from the model generator: every kind of fill, cancels, splits, merges, a resolution. */
export function sessionFor(seed: number, length = 400): Command[] {
  const [ops] = fc.sample(opsArb(length), { seed, numRuns: 1 });
  return [...genesis(), ...toCommands(ops ?? [])];
}

/** Buys of each outcome of market 0xm1 that mint against each other: every second order fills. */
export function crossingCommands(count: number, startTime = 1_800_000_000_000, prefix = 'cross'): Command[] {
  return Array.from({ length: count }, (_, i) => {
    const qty = (1 + (i % 7)) * 1_000_000;
    const price = i % 2 === 0 ? 550_000 : 460_000;
    return {
      type: 'PlaceOrder', time: startTime + i, orderId: `0x${prefix}${i}`, account: i % 2 === 0 ? '0xa1' : '0xa2', owner: 'k', tokenId: i % 2 === 0 ? '11' : '12',
      side: 'BUY', makerAmount: (qty / 10_000) * (price / 100), takerAmount: qty, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: 0,
    } as Command;
  });
}

export interface LoggedSession {
  readonly engine: Engine;
  readonly records: LogRecord[];
  readonly journal: Journal;
  readonly dir: string;
}

/** Applies commands to a fresh engine and appends the records to a fresh journal. */
export async function loggedSession(commands: readonly Command[], dir = mkdtempSync(join(tmpdir(), 'proj-log-'))): Promise<LoggedSession> {
  const engine = new Engine();
  const records: LogRecord[] = commands.map((command, i) => ({ pos: i + 1, command, events: engine.apply(command) }));
  const journal = await Journal.open({ dir, segmentBytes: 8 << 20 });
  for (let i = 0; i < records.length; i += 500) await journal.append(records.slice(i, i + 500));
  return { engine, records, journal, dir };
}

let shared: Promise<ClickHouseClient> | undefined;
let databases = 0;

/**
 * A ClickHouse server for the tests that take one (test/projections/serverMode.test.ts runs the projection
 * and read-model suites so): PMX_TEST_CLICKHOUSE_URL, user and password. Unset: embedded chDB.
 */
export function testClickHouseServer(): { url: string; user: string; password: string } | undefined {
  const url = process.env.PMX_TEST_CLICKHOUSE_URL;
  if (url === undefined || url === '') return undefined;
  return { url, user: process.env.PMX_TEST_CLICKHOUSE_USER ?? 'default', password: process.env.PMX_TEST_CLICKHOUSE_PASSWORD ?? '' };
}

/**
 * A new, empty database in this process's embedded ClickHouse (or in the server testClickHouseServer()
 * names). chDB allows one active data directory per process, so tests share one and keep apart by database.
 */
export async function freshDatabase(): Promise<{ ch: ClickHouseClient; db: string }> {
  const server = testClickHouseServer();
  shared ??= openClickHouse(
    server === undefined
      ? { mode: 'embedded', dataDir: mkdtempSync(join(tmpdir(), 'proj-ch-')), url: '', user: '', password: '', database: DB }
      : { mode: 'server', dataDir: '', ...server, database: DB },
  );
  const ch = await shared;
  databases += 1;
  const db = `t${process.pid}_${databases}`;
  await ch.command({ query: `CREATE DATABASE IF NOT EXISTS ${db}` });
  return { ch, db };
}

export function countFills(records: readonly LogRecord[]): number {
  return records.reduce((n, r) => n + r.events.filter((e) => e.type === 'TradeExecuted').length, 0);
}

const REPLACING = new Set(['orders', 'positions', 'engine_markets', 'price_history', 'account_totals']);

/** Every projected table's rows, sorted, for equality checks (latest state for the versioned tables). */
export async function dumpTables(ch: ClickHouseClient, db: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of ['fills', 'fill_sides', 'orders', 'order_events', 'positions', 'engine_markets', 'price_history', 'ledger_events', 'account_totals', 'book_level_changes', 'book_changes', 'book_snapshots']) {
    const result = await ch.query({ query: `SELECT * FROM ${db}.${table} ${REPLACING.has(table) ? 'FINAL' : ''} ORDER BY ALL`, format: 'JSONEachRow' });
    out[table] = ((await result.json()) as unknown[]).map((row) => JSON.stringify(row));
  }
  return out;
}

/** The client, noting the rows of every table insert it is sent (the spool file's text), the database's name left out. */
export function notingInserts(ch: ClickHouseClient, db: string, sent: string[]): ClickHouseClient {
  return new Proxy(ch, {
    get(client, key, receiver) {
      if (key !== 'command') return Reflect.get(client, key, receiver);
      return async (params: Parameters<ClickHouseClient['command']>[0]) => {
        for (const statement of params.query.split(STATEMENT_SEPARATOR)) {
          const file = /FROM file\('([^']+)'/.exec(statement)?.[1];
          if (file === undefined || !statement.startsWith(`INSERT INTO ${db}.`)) continue;
          const head = statement.slice(0, statement.indexOf(' SELECT * FROM file(')).replaceAll(`${db}.`, '');
          sent.push(`${head}\n${readFileSync(file, 'utf8')}`);
        }
        return client.command(params);
      };
    },
  });
}
