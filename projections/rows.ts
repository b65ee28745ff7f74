// Rows a batch produces, per table. Builders write each row's values in its table's column order
// (columns.ts) through a RowWriter, and end it; the sink keeps them in the format of the deployment's inserts:
// - Native (storage/nativeBlock.ts), column by column: the embedded ClickHouse reads the spool files in it
//   (storage/bulkInsert.ts) at about half the CPU of its insert threads for the same rows as text, and writing
//   a number costs less than printing it;
// - TabSeparated (values written with tsv.ts, one line per row, as UTF-8 chunks): a ClickHouse server's
//   inserts over HTTP.
// Values rather than objects: the projector's own cost per fill is the cost of the trading process too, and
// writing each value once costs less than building an object to encode later.

import { NativeBlock } from '../storage/nativeBlock.js';
import { TextChunks } from '../storage/textChunks.js';
import { COLUMN_KINDS } from './columns.js';
import type { ProjectedTable } from './schema.js';
import { bool, minute, nullableInt, pairArray, text, textArray, time } from './tsv.js';

/** The format a sink keeps its rows in: the insert's format name. */
export type RowFormat = 'Native' | 'TabSeparated';

/** One table's rows: each row's values in column order (COLUMN_KINDS), then end(). */
export interface RowWriter {
  string(v: string): this;
  /** A safe integer (any integer column). */
  int(v: number): this;
  bool(v: boolean): this;
  /** DateTime64(3, 'UTC') from ms since the epoch. */
  time(ms: number): this;
  /** DateTime('UTC'): the start of the minute of ms since the epoch. */
  minute(ms: number): this;
  nullInt(v: number | null): this;
  strings(items: readonly string[]): this;
  /** Array(Tuple(Int64, Int64)). */
  pairs(items: readonly (readonly [number, number])[]): this;
  end(): void;
}

/** A table's rows as TabSeparated lines. */
class TextRows implements RowWriter {
  readonly chunks = new TextChunks();
  rows = 0;
  private line = '';
  private begun = false;

  private field(value: string): this {
    this.line = this.begun ? `${this.line}\t${value}` : value;
    this.begun = true;
    return this;
  }

  string(v: string): this {
    return this.field(text(v));
  }
  int(v: number): this {
    return this.field(String(v));
  }
  bool(v: boolean): this {
    return this.field(bool(v));
  }
  time(ms: number): this {
    return this.field(time(ms));
  }
  minute(ms: number): this {
    return this.field(minute(ms));
  }
  nullInt(v: number | null): this {
    return this.field(nullableInt(v));
  }
  strings(items: readonly string[]): this {
    return this.field(textArray(items));
  }
  pairs(items: readonly (readonly [number, number])[]): this {
    return this.field(pairArray(items));
  }
  end(): void {
    this.chunks.append(`${this.line}\n`);
    this.line = '';
    this.begun = false;
    this.rows++;
  }
}

export class RowSink {
  /** False for a sink that drops every row (a reader that keeps the builders' state only): builders then make no rows. */
  readonly keeps: boolean = true;
  private readonly tables = new Map<ProjectedTable, NativeBlock | TextRows>();

  constructor(readonly format: RowFormat = 'Native') {}

  /** The writer of `table`'s rows: write one row's values, end() it, then the next. */
  row(table: ProjectedTable): RowWriter {
    let rows = this.tables.get(table);
    if (rows === undefined) {
      rows = this.format === 'Native' ? new NativeBlock(COLUMN_KINDS[table]) : new TextRows();
      this.tables.set(table, rows);
    }
    return rows;
  }

  /** The table's rows in the sink's format, in pieces (none when the table has no rows). */
  body(table: ProjectedTable): Buffer[] {
    const rows = this.tables.get(table);
    if (rows === undefined) return [];
    return rows instanceof NativeBlock ? rows.chunks() : rows.chunks.chunks();
  }

  rows(table: ProjectedTable): number {
    return this.tables.get(table)?.rows ?? 0;
  }
}

/** Takes any row and keeps nothing. */
class NoRow implements RowWriter {
  string(): this {
    return this;
  }
  int(): this {
    return this;
  }
  bool(): this {
    return this;
  }
  time(): this {
    return this;
  }
  minute(): this {
    return this;
  }
  nullInt(): this {
    return this;
  }
  strings(): this {
    return this;
  }
  pairs(): this {
    return this;
  }
  end(): void {}
}

const NO_ROW = new NoRow();

/** A sink that drops every row: for readers that keep the builders' state only (builders then make no rows). */
export class DiscardRows extends RowSink {
  override readonly keeps = false;
  override row(): RowWriter {
    return NO_ROW;
  }
}
