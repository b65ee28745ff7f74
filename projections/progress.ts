// The projector's progress records (projection_progress, ReplacingMergeTree on `version`): the position
// recorded as projected and the batch pending beyond it, if any. See projector.ts for when each is written.

import type { ClickHouseClient } from '@clickhouse/client';
import { insertRows, insertsTogether, valuesInsert } from '../storage/bulkInsert.js';
import { appliedVersions } from '../storage/migrations.js';
import { queryRows } from '../storage/clickhouse.js';
import { text } from './tsv.js';

export interface Progress {
  readonly pos: number;
  /** 0 when none is pending. */
  readonly pendingFrom: number;
  readonly pendingTo: number;
}

export const PROGRESS_COLUMNS = ['projector', 'pos', 'pending_from', 'pending_to', 'version'] as const;

/** A pending batch is one that starts right after the recorded position. */
export function hasPending(p: Progress): boolean {
  return p.pendingFrom === p.pos + 1 && p.pendingTo >= p.pendingFrom;
}

export async function readProgress(ch: ClickHouseClient, db: string, name: string): Promise<Progress> {
  const rows = await queryRows<{ pos: number; pending_from: number; pending_to: number }>(
    ch,
    `SELECT argMax(pos, version) AS pos, argMax(pending_from, version) AS pending_from, argMax(pending_to, version) AS pending_to
       FROM ${db}.projection_progress WHERE projector = {name:String}`,
    { name },
  );
  const row = rows[0];
  return { pos: Number(row?.pos ?? 0), pendingFrom: Number(row?.pending_from ?? 0), pendingTo: Number(row?.pending_to ?? 0) };
}

/** One progress record as a TabSeparated body (the table keeps no deduplication window). */
export function progressLine(name: string, p: Progress, version: number): Buffer {
  return Buffer.from(`${text(name)}\t${p.pos}\t${p.pendingFrom}\t${p.pendingTo}\t${version}\n`);
}

function progressToken(name: string, version: number): string {
  return `${name}:progress:${version}`;
}

/**
 * One progress record as an INSERT ... VALUES statement, values inline: the leading statement of an
 * embedded commit (projector.ts), and the whole of an embedded progress write. Same row, same token as
 * progressLine() through insertRows().
 */
export function progressInsert(db: string, name: string, p: Progress, version: number): string {
  return valuesInsert(`${db}.projection_progress`, PROGRESS_COLUMNS, [name, p.pos, p.pendingFrom, p.pendingTo, version], progressToken(name, version));
}

/** Embedded: one VALUES statement (no spool file for one row); server: one insert of progressLine(). */
export async function writeProgress(ch: ClickHouseClient, db: string, name: string, p: Progress, version: number): Promise<void> {
  if (insertsTogether(ch)) {
    await ch.command({ query: progressInsert(db, name, p, version) });
    return;
  }
  await insertRows(ch, { table: `${db}.projection_progress`, columns: PROGRESS_COLUMNS, body: [progressLine(name, p, version)], token: progressToken(name, version) });
}

/**
 * A batch left pending by a projector of schema version 1 wrote fill_sides and the 'fill' order events
 * itself, under its own tokens; redone after migration 2 the views would write them again. It must be
 * finished by the release that started it: refused here, before any migration runs.
 */
export async function refusePendingFromVersion1(ch: ClickHouseClient, db: string, name: string): Promise<void> {
  const applied = await appliedVersions(ch, db, 'projections');
  if (!applied.has(1) || applied.has(2)) return;
  const p = await readProgress(ch, db, name);
  if (p.pendingTo >= p.pendingFrom && p.pendingFrom > p.pos) {
    throw new Error(`projector ${name}: batch ${p.pendingFrom}-${p.pendingTo} is pending from before schema migration 2; finish it with the previous release first`);
  }
}
