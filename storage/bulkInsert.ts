// Bulk inserts of rows the caller has already written as TabSeparated text, the cheapest way each
// deployment offers, with an insert_deduplication_token so that repeating an insert lands it once.
//
// Embedded (chDB): chDB tokenizes the whole text of every query it is given, inline INSERT data included,
// which costs more than parsing the rows (measured: ~5 ns per byte, content-dependent, before any
// parsing). So the rows go to a spool file under the data directory and are read with the file() table
// function, `INSERT INTO t (cols) SELECT * FROM file(path, TabSeparated)`, whose column types come from
// the insertion table. chDB then only parses the rows (about half the CPU of the inline form here).
// Server (or a client opened without a spool directory): client.insert() with the rows as a stream, the
// token as a per-request setting. Not command() with the rows inline: command() trims the query, which
// would cut the last row's trailing empty field (and a trailing ';').
//
// Contract: `body` is complete TabSeparated rows (each ending in '\n', fields escaped with ClickHouse's
// Escaped rules, see projections/tsv.ts) in the order of `columns`, as UTF-8 chunks (storage/textChunks.ts);
// one call is one INSERT statement. In embedded mode the token goes in the statement's own SETTINGS
// clause, never as a session setting: chDB's connection turns per-call settings into SET statements that
// stay for the whole session, so a token set that way would stick to every later insert of the process.

import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, rmSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';

/** Where an embedded client spools insert files (a property, so a Proxy around the client still finds it). */
const SPOOL_DIR = Symbol.for('pmx.clickhouse.spoolDir');

type Spooled = { [SPOOL_DIR]?: string };

/** Gives an embedded client its spool directory, emptied now (one process owns a data directory). */
export function useSpoolDir(client: ClickHouseClient, dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  (client as unknown as Spooled)[SPOOL_DIR] = dir;
}

function spoolDirOf(client: ClickHouseClient): string | undefined {
  return (client as unknown as Spooled)[SPOOL_DIR];
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/** A ClickHouse string literal. */
function literal(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

export interface TextInsert {
  /** `db.table` (identifiers only). */
  readonly table: string;
  readonly columns: readonly string[];
  /** TabSeparated rows in `columns` order, UTF-8; no bytes: nothing is inserted. */
  readonly body: readonly Uint8Array[];
  readonly token: string;
}

/** Writes all chunks to a new file (writev takes at most IOV_MAX = 1024 buffers a call). */
function writeChunks(path: string, chunks: readonly Uint8Array[]): void {
  const fd = openSync(path, 'wx');
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

export async function insertText(ch: ClickHouseClient, insert: TextInsert): Promise<void> {
  if (insert.body.every((c) => c.length === 0)) return;
  if (!IDENTIFIER.test(insert.table)) throw new Error(`invalid table name ${insert.table}`);
  for (const c of insert.columns) if (!IDENTIFIER.test(c)) throw new Error(`invalid column name ${c}`);
  const spool = spoolDirOf(ch);
  if (spool === undefined) {
    await ch.insert({
      table: insert.table,
      columns: [...insert.columns] as [string, ...string[]],
      values: Readable.from(insert.body, { objectMode: false }),
      format: 'TabSeparated',
      clickhouse_settings: { insert_deduplication_token: insert.token },
    });
    return;
  }
  const path = join(spool, `${randomUUID()}.tsv`);
  writeChunks(path, insert.body);
  try {
    const head = `INSERT INTO ${insert.table} (${insert.columns.join(', ')}) SETTINGS insert_deduplication_token = ${literal(insert.token)}`;
    await ch.command({ query: `${head} SELECT * FROM file(${literal(path)}, TabSeparated)` });
  } finally {
    rmSync(path, { force: true });
  }
}
