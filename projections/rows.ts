// Rows a batch produces, per table, as TabSeparated text (one line per row, fields in columns.ts order,
// values written with tsv.ts), appended as UTF-8 bytes. Text rather than objects: the projector's own cost
// per fill is the cost of the trading process too, and writing each line once costs less than building an
// object to encode later.

import { TextChunks } from '../storage/textChunks.js';
import type { ProjectedTable } from './schema.js';

export class RowSink {
  /** False for a sink that drops every row (a reader that keeps the builders' state only): builders then make no row text. */
  readonly keeps: boolean = true;
  private readonly bodies = new Map<ProjectedTable, TextChunks>();
  private readonly counts = new Map<ProjectedTable, number>();

  /** Appends one row: a complete line, '\n' included. */
  add(table: ProjectedTable, line: string): void {
    let body = this.bodies.get(table);
    if (body === undefined) {
      body = new TextChunks();
      this.bodies.set(table, body);
    }
    body.append(line);
    this.counts.set(table, (this.counts.get(table) ?? 0) + 1);
  }

  /** The table's rows as UTF-8 chunks (none when the table has no rows). */
  body(table: ProjectedTable): Buffer[] {
    return this.bodies.get(table)?.chunks() ?? [];
  }

  rows(table: ProjectedTable): number {
    return this.counts.get(table) ?? 0;
  }
}

/** A sink that drops every row: for readers that keep the builders' state only (builders then make no row text). */
export class DiscardRows extends RowSink {
  override readonly keeps = false;
  override add(): void {}
}
