// Rows as one block of ClickHouse's Native format, written column by column from JavaScript values: the input
// format its own clients use for bulk inserts. ClickHouse reads a column of a Native block as the bytes it keeps
// in memory, with no text to scan or numbers to parse: an embedded insert of the projector's rows costs chDB's
// insert threads about half the CPU of the same rows as TabSeparated, and writing a number here costs less than
// printing it (docs/benchmarks.md, "Where an order's CPU goes", has the measurements).
//
// Format (ClickHouse's NativeWriter with no client revision, as `file(path, Native)` reads it): the column
// count and the row count as VarUInt, then per column its name and type as strings (VarUInt length and UTF-8
// bytes) and its data: fixed-width values little-endian one after another; String as VarUInt length and bytes;
// Nullable(T) as a byte per row (1: null) and then T's column with a zero in each null row; Array(T) as each
// row's end offset (UInt64, cumulative) and then T's column of all the elements; Tuple(A, B) as A's column and
// then B's.
//
// Column kinds, each with the type it is declared as in the block (an insert casts to the table's own type,
// so the integer columns are all Int64 here and a LowCardinality(String) column is String):
//   string     String
//   int        Int64: a safe integer
//   bool       Bool
//   time       DateTime64(3, 'UTC'): milliseconds since the epoch
//   minute     DateTime('UTC'): the start of the UTC minute of milliseconds since the epoch
//   nullInt    Nullable(Int64)
//   strings    Array(String)
//   pairs      Array(Tuple(Int64, Int64))
//
// Contract: a block's values are written row by row, each row's in column order (NativeBlock.row()); chunks()
// answers the whole block, complete rows only, and may be called once.

export type NativeKind = 'string' | 'int' | 'bool' | 'time' | 'minute' | 'nullInt' | 'strings' | 'pairs';

const TYPE_OF: Readonly<Record<NativeKind, string>> = {
  string: 'String',
  int: 'Int64',
  bool: 'Bool',
  time: "DateTime64(3, 'UTC')",
  minute: "DateTime('UTC')",
  nullInt: 'Nullable(Int64)',
  strings: 'Array(String)',
  pairs: 'Array(Tuple(Int64, Int64))',
};

const TWO_32 = 4_294_967_296;

/**
 * Node's Buffer writes UTF-8 through utf8Write(string, offset), which Buffer.prototype.write calls after checking
 * its arguments; called directly, the check (which costs more than short strings' copy) is skipped. The room is
 * made beforehand (at most 3 bytes per UTF-16 unit), so it never truncates.
 */
type Utf8Writable = Buffer & { utf8Write(s: string, offset: number): number };
const FIRST_SIZE = 4_096;

/** A growing byte buffer with little-endian writers. */
class Bytes {
  buf: Buffer;
  view: DataView;
  length = 0;

  constructor(size = FIRST_SIZE) {
    this.buf = Buffer.allocUnsafe(size);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = Math.max(FIRST_SIZE, this.buf.length * 2);
    while (size < this.length + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.byteLength);
  }

  u8(v: number): void {
    this.room(1);
    this.buf[this.length++] = v;
  }

  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }

  /** A safe integer as Int64 (two's complement, little-endian). */
  i64(v: number): void {
    if (!Number.isSafeInteger(v)) throw new RangeError(`not a safe integer: ${v}`);
    this.room(8);
    const high = Math.floor(v / TWO_32);
    this.view.setUint32(this.length, v - high * TWO_32, true);
    this.view.setInt32(this.length + 4, high, true);
    this.length += 8;
  }

  varUInt(v: number): void {
    this.room(10);
    while (v >= 0x80) {
      this.buf[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.length++] = v;
  }

  /** VarUInt byte length, then the UTF-8 bytes. */
  string(s: string): void {
    // At most 3 bytes per UTF-16 unit. Most strings here are short ASCII (ids, addresses, sides): copied by this
    // loop, which costs less than a call into Buffer's native writer; any other is written by that, after one
    // byte left for its length, and moved up by the length's other bytes when that takes more than one.
    const units = s.length;
    this.room(units * 3 + 10);
    const buf = this.buf;
    const at = this.length;
    if (units < 0x80) {
      let i = 0;
      for (; i < units; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at + 1 + i] = c;
      }
      if (i === units) {
        buf[at] = units;
        this.length = at + 1 + units;
        return;
      }
    }
    const n = (buf as Utf8Writable).utf8Write(s, at + 1);
    if (n < 0x80) {
      buf[at] = n;
      this.length = at + 1 + n;
      return;
    }
    let extra = 0;
    for (let v = n; v >= 0x80; v = Math.floor(v / 0x80)) extra++;
    buf.copy(buf, at + 1 + extra, at + 1, at + 1 + n);
    this.length = at;
    this.varUInt(n);
    this.length += n;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

/** The parts a column of its kind does not have (never written). */
const NO_BYTES = new Bytes(0);

/** One column's bytes: `data`, and for the kinds made of two or three parts, the parts before it. */
class Column {
  /** Nullable's null map, or an Array's offsets. */
  readonly head: Bytes;
  /** Array(Tuple(A, B))'s B elements (its A elements are `data`). */
  readonly second: Bytes;
  readonly data = new Bytes();
  /** An Array's elements so far (its next row's end offset is this plus the row's). */
  elements = 0;

  constructor(
    readonly name: string,
    readonly kind: NativeKind,
  ) {
    this.head = kind === 'nullInt' || kind === 'strings' || kind === 'pairs' ? new Bytes() : NO_BYTES;
    this.second = kind === 'pairs' ? new Bytes() : NO_BYTES;
  }
}

const EMPTY_PAIRS: readonly (readonly [number, number])[] = [];

export class NativeBlock {
  private readonly columns: Column[];
  private next = 0;
  private rowCount = 0;

  constructor(columns: readonly (readonly [name: string, kind: NativeKind])[]) {
    this.columns = columns.map(([name, kind]) => new Column(name, kind));
  }

  get rows(): number {
    return this.rowCount;
  }

  /** The next column, which must be of `kind`. */
  private take(kind: NativeKind): Column {
    const column = this.columns[this.next];
    if (column === undefined) throw new Error(`a row of ${this.columns.length} columns has no column ${this.next + 1}`);
    if (column.kind !== kind) throw new Error(`column ${column.name} is ${column.kind}, written as ${kind}`);
    this.next++;
    return column;
  }

  string(v: string): this {
    this.take('string').data.string(v);
    return this;
  }

  int(v: number): this {
    this.take('int').data.i64(v);
    return this;
  }

  bool(v: boolean): this {
    this.take('bool').data.u8(v ? 1 : 0);
    return this;
  }

  time(ms: number): this {
    this.take('time').data.i64(Math.floor(ms));
    return this;
  }

  minute(ms: number): this {
    this.take('minute').data.u32(Math.floor(ms / 60_000) * 60);
    return this;
  }

  nullInt(v: number | null): this {
    const column = this.take('nullInt');
    column.head.u8(v === null ? 1 : 0);
    column.data.i64(v ?? 0);
    return this;
  }

  strings(items: readonly string[]): this {
    const column = this.take('strings');
    for (const item of items) column.data.string(item);
    column.elements += items.length;
    column.head.i64(column.elements);
    return this;
  }

  pairs(items: readonly (readonly [number, number])[] = EMPTY_PAIRS): this {
    const column = this.take('pairs');
    for (const [a, b] of items) {
      column.data.i64(a);
      column.second.i64(b);
    }
    column.elements += items.length;
    column.head.i64(column.elements);
    return this;
  }

  /** Ends a row: every column must have been written once. */
  end(): void {
    if (this.next !== this.columns.length) throw new Error(`a row ended after ${this.next} of ${this.columns.length} columns`);
    this.next = 0;
    this.rowCount++;
  }

  /** The block's bytes, in pieces (none for a block of no rows). */
  chunks(): Buffer[] {
    if (this.rowCount === 0) return [];
    if (this.next !== 0) throw new Error('a row was left unfinished');
    const header = new Bytes();
    header.varUInt(this.columns.length);
    header.varUInt(this.rowCount);
    const out: Buffer[] = [header.bytes()];
    for (const column of this.columns) {
      const names = new Bytes();
      names.string(column.name);
      names.string(TYPE_OF[column.kind]);
      out.push(names.bytes());
      if (column.kind === 'nullInt' || column.kind === 'strings' || column.kind === 'pairs') out.push(column.head.bytes());
      out.push(column.data.bytes());
      if (column.kind === 'pairs') out.push(column.second.bytes());
    }
    return out;
  }
}
