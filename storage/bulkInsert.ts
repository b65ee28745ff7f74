// Bulk inserts of rows the caller has already written (as TabSeparated text, or as a block of ClickHouse's
// Native format: storage/nativeBlock.ts), the cheapest way each deployment offers, with an
// insert_deduplication_token so that repeating an insert lands it once.
//
// Embedded (chDB): chDB tokenizes the whole text of every query it is given, inline INSERT data included,
// which costs more than parsing the rows (measured: ~5 ns per byte, content-dependent, before any
// parsing). So the rows go to a spool file under the data directory and are read with the file() table
// function, `INSERT INTO t (cols) SELECT * FROM file(path, <format>)`: the file's column types come from the
// insertion table (TabSeparated) or from the block itself (Native, cast to the table's on insert). chDB then only
// parses the rows (about half the CPU of the inline form here; a Native block about half that again on its
// insert threads).
// A server's inserts take TabSeparated only (client.insert() streams it; the service's ClickHouse HTTP
// endpoint, which stands in for a server, reads an INSERT's data as text).
// Server (or a client opened without a spool directory): client.insert() with the rows as a stream, the
// token as a per-request setting. Not command() with the rows inline: command() trims the query, which
// would cut the last row's trailing empty field (and a trailing ';').
//
// Spool files are kept and reused, one set per client, each named for its table: a call takes a free file of
// its table (or names a new one), writes it from the start, and gives it back emptied (truncated, so its data
// never reaches the disk). Creating and deleting a file per insert costs the filesystem an inode each time,
// and on ext4 without a journal (this project's machines) an inode allocated within minutes of others being
// freed scans past all of them (the allocator skips recently deleted inodes), so each file deleted makes the
// files created after it, ClickHouse's parts included, cost more system time for minutes (docs/benchmarks.md,
// "Files created and deleted").
//
// Several inserts in one call (embedded only, insertTogether()): each chDB call has a fixed CPU cost whatever
// its size (2-3 ms measured here), and chDB runs the statements of one call one after another, so a projector
// commit of a progress record and seven tables is one call instead of eight. A server takes one statement
// per HTTP request, so the server path stays one insert per call.
//
// Contract: `body` is complete TabSeparated rows (each ending in '\n', fields escaped with ClickHouse's
// Escaped rules, see projections/tsv.ts) in the order of `columns`, as UTF-8 chunks (storage/textChunks.ts), or
// with `format: 'Native'` one Native block of those columns in that order, in pieces; one call is one INSERT
// statement. In embedded mode the token goes in the statement's own SETTINGS
// clause, never as a session setting: chDB's connection turns per-call settings into SET statements that
// stay for the whole session, so a token set that way would stick to every later insert of the process.

import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, rmSync, truncateSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';

/** Where an embedded client spools insert files (a property, so a Proxy around the client still finds it). */
const SPOOL_DIR = Symbol.for('pmx.clickhouse.spoolDir');
/** The client's spool files (SpoolFiles). */
const SPOOL_FILES = Symbol.for('pmx.clickhouse.spoolFiles');

type Spooled = { [SPOOL_DIR]?: string; [SPOOL_FILES]?: SpoolFiles };

/**
 * One client's spool files, kept for reuse. A file is lent to one call at a time and named for its table, so a
 * path always holds rows of the same columns; the names carry a prefix of this set's own, so that two clients
 * spooling into one directory never share a file.
 */
class SpoolFiles {
  private readonly free = new Map<string, string[]>();
  private readonly prefix = randomUUID().slice(0, 8);
  private named = 0;

  constructor(readonly dir: string) {}

  /** A file for `table` that no call holds: one given back empty, or a new name. */
  take(table: string): string {
    const path = this.free.get(table)?.pop();
    if (path !== undefined) return path;
    this.named += 1;
    return join(this.dir, `${this.prefix}-${table}-${this.named}.rows`);
  }

  /** Gives back a file taken by take(), emptied; a file that cannot be emptied is not used again. */
  give(table: string, path: string): void {
    try {
      truncateSync(path, 0);
    } catch {
      rmSync(path, { force: true });
      return;
    }
    const list = this.free.get(table);
    if (list === undefined) this.free.set(table, [path]);
    else list.push(path);
  }
}

/** Gives an embedded client its spool directory, emptied now (one process owns a data directory). */
export function useSpoolDir(client: ClickHouseClient, dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const spooled = client as unknown as Spooled;
  spooled[SPOOL_DIR] = dir;
  spooled[SPOOL_FILES] = new SpoolFiles(dir);
}

/** The spool directory of an embedded client; undefined for a server. */
export function spoolDirOf(client: ClickHouseClient): string | undefined {
  return (client as unknown as Spooled)[SPOOL_DIR];
}

/** Whether `client` inserts through spool files (embedded), and so can take insertTogether(). */
export function insertsTogether(client: ClickHouseClient): boolean {
  return spoolDirOf(client) !== undefined;
}

/** What separates the statements of one insertTogether() call (tests split a call's text on it). */
export const STATEMENT_SEPARATOR = ';\n';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/** A ClickHouse string literal. */
function literal(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A ClickHouse literal of a string or a safe integer (the only values valuesInsert() takes). */
function valueLiteral(v: string | number): string {
  if (typeof v === 'string') return literal(v);
  if (!Number.isSafeInteger(v)) throw new Error(`not a safe integer: ${v}`);
  return String(v);
}

function checkNames(table: string, columns: readonly string[]): void {
  if (!IDENTIFIER.test(table)) throw new Error(`invalid table name ${table}`);
  for (const c of columns) if (!IDENTIFIER.test(c)) throw new Error(`invalid column name ${c}`);
}

/**
 * One row as an INSERT ... VALUES statement with its values inline (strings quoted and escaped, integers
 * only), its token in its own SETTINGS clause: for a row too small to be worth a spool file, as a leading
 * statement of insertTogether() or on its own through client.command().
 */
export function valuesInsert(table: string, columns: readonly string[], row: readonly (string | number)[], token: string): string {
  checkNames(table, columns);
  if (row.length !== columns.length) throw new Error(`${row.length} values for ${columns.length} columns of ${table}`);
  return `INSERT INTO ${table} (${columns.join(', ')}) SETTINGS insert_deduplication_token = ${literal(token)} VALUES (${row.map(valueLiteral).join(', ')})`;
}

export interface RowsInsert {
  /** `db.table` (identifiers only). */
  readonly table: string;
  readonly columns: readonly string[];
  /** Rows in `columns` order, in `format`; no bytes: nothing is inserted. */
  readonly body: readonly Uint8Array[];
  /** The body's format (default TabSeparated); Native only where inserts go through spool files (embedded). */
  readonly format?: 'TabSeparated' | 'Native';
  readonly token: string;
}

/** Writes all chunks to `path` from its start, replacing what it held (writev takes at most IOV_MAX = 1024 buffers a call). */
function writeChunks(path: string, chunks: readonly Uint8Array[]): void {
  const fd = openSync(path, 'w');
  try {
    for (let i = 0; i < chunks.length; i += 1024) {
      const group = chunks.slice(i, i + 1024);
      let left = group.reduce((n, c) => n + c.length, 0);
      while (left > 0) {
        // Partial writes are rare on files but allowed: resume after what was written.
        let written = writevSync(fd, group);
        left -= written;
        while (written > 0 && group.length > 0) {
          const head = group[0] as Uint8Array;
          if (written >= head.length) {
            written -= head.length;
            group.shift();
          } else {
            group[0] = head.subarray(written);
            written = 0;
          }
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

function isEmpty(insert: RowsInsert): boolean {
  return insert.body.every((c) => c.length === 0);
}

/** The statement that inserts a spool file's rows. */
function fileInsert(insert: RowsInsert, path: string): string {
  return `INSERT INTO ${insert.table} (${insert.columns.join(', ')}) SETTINGS insert_deduplication_token = ${literal(insert.token)} SELECT * FROM file(${literal(path)}, ${insert.format ?? 'TabSeparated'})`;
}

export async function insertRows(ch: ClickHouseClient, insert: RowsInsert): Promise<void> {
  if (insertsTogether(ch)) {
    await insertTogether(ch, [], [insert]);
    return;
  }
  if (isEmpty(insert)) return;
  checkNames(insert.table, insert.columns);
  if ((insert.format ?? 'TabSeparated') !== 'TabSeparated') throw new Error(`a server's insert into ${insert.table} takes TabSeparated, not ${insert.format}`);
  await ch.insert({
    table: insert.table,
    columns: [...insert.columns] as [string, ...string[]],
    values: Readable.from(insert.body, { objectMode: false }),
    format: 'TabSeparated',
    clickhouse_settings: { insert_deduplication_token: insert.token },
  });
}

/**
 * Embedded only (insertsTogether()): `leading` (complete statements, such as valuesInsert()'s) and then each
 * non-empty insert of `inserts`, in that order, as ONE chDB call; every spool file is written before the call
 * and given back emptied after it. chDB runs the statements in order and stops at the first that fails, whose error
 * rejects the call: the statements before it have taken effect (each under its own token), the ones after
 * it have not (test/projections/insertTogether.test.ts). The outcome is the one of running the statements
 * one call each, stopping at the first failure; only the per-call cost is paid once.
 */
export async function insertTogether(ch: ClickHouseClient, leading: readonly string[], inserts: readonly RowsInsert[]): Promise<void> {
  const files = (ch as unknown as Spooled)[SPOOL_FILES];
  if (files === undefined) throw new Error('insertTogether needs an embedded client (a spool directory)');
  const statements = [...leading];
  const taken: { table: string; path: string }[] = [];
  try {
    for (const insert of inserts) {
      if (isEmpty(insert)) continue;
      checkNames(insert.table, insert.columns);
      const path = files.take(insert.table);
      taken.push({ table: insert.table, path });
      writeChunks(path, insert.body);
      statements.push(fileInsert(insert, path));
    }
    if (statements.length > 0) await ch.command({ query: statements.join(STATEMENT_SEPARATOR) });
  } finally {
    for (const { table, path } of taken) files.give(table, path);
  }
}
