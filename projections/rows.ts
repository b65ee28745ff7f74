// Rows a batch produces, per table, and the ClickHouse text forms of values.

import type { ProjectedTable } from './schema.js';

export type Row = Record<string, string | number | boolean | null | readonly string[]>;

/** Rows of one batch, per table, in the order they were produced. */
export class RowSink {
  readonly tables = new Map<ProjectedTable, Row[]>();

  add(table: ProjectedTable, row: Row): void {
    let rows = this.tables.get(table);
    if (rows === undefined) {
      rows = [];
      this.tables.set(table, rows);
    }
    rows.push(row);
  }
}

/** ms since the epoch → 'YYYY-MM-DD hh:mm:ss.sss' (UTC), what DateTime64(3, 'UTC') parses. */
export function chTime(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
}

/** Start of the UTC minute of `ms`, as DateTime text. */
export function chMinute(ms: number): string {
  return new Date(ms - (ms % 60_000)).toISOString().slice(0, 19).replace('T', ' ');
}
