// TabSeparated text of the values the projector writes (ClickHouse's "Escaped" rules). Builders write each
// row as one line, fields in their table's column order (projections/columns.ts).
//
//   text      backslash, tab, newline and carriage return escaped (\\ \t \n \r); ids, which never contain
//             them, are returned as they are after one regex test
//   integers  as JavaScript prints them (every amount, price and position is a safe integer)
//   null      \N (Nullable columns)
//   booleans  true / false
//   times     'YYYY-MM-DD hh:mm:ss.sss' UTC for DateTime64(3); 'YYYY-MM-DD hh:mm:ss' for DateTime. Never a
//             number: ClickHouse reads a short number such as 0.000 as a malformed date, not as seconds.
//   arrays    ['a','b'], elements quoted, with the same escapes plus \' (no second layer on top); pairs of
//             integers [(1,2),(3,4)]

const SPECIAL = /[\\\t\n\r]/;
const SPECIAL_ALL = /[\\\t\n\r]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const QUOTED_SPECIAL = /[\\'\t\n\r]/;
const QUOTED_SPECIAL_ALL = /[\\'\t\n\r]/g;

/** A String field. */
export function text(s: string): string {
  return SPECIAL.test(s) ? s.replace(SPECIAL_ALL, (c) => ESCAPES[c] ?? c) : s;
}

/** A Nullable(Int64) field. */
export function nullableInt(n: number | null): string {
  return n === null ? '\\N' : String(n);
}

/** A Bool field. */
export function bool(b: boolean): string {
  return b ? 'true' : 'false';
}

/**
 * An Array(String) field: ['a','b'], each element a quoted literal with \\, \', tab, newline and carriage
 * return escaped. ClickHouse reads the array straight from the TabSeparated line with these rules, so no
 * second (text) layer of escaping goes on top.
 */
export function textArray(items: readonly string[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as string;
    out += `${i === 0 ? '' : ','}'${QUOTED_SPECIAL.test(item) ? item.replace(QUOTED_SPECIAL_ALL, (c) => (c === "'" ? "\\'" : (ESCAPES[c] ?? c))) : item}'`;
  }
  return `${out}]`;
}

/** An Array(Tuple(Int64, Int64)) field: [(a,b),(c,d)]. */
export function pairArray(items: readonly (readonly [number, number])[]): string {
  let out = '[';
  for (let i = 0; i < items.length; i++) {
    const [a, b] = items[i] as readonly [number, number];
    out += `${i === 0 ? '' : ','}(${a},${b})`;
  }
  return `${out}]`;
}

const MILLIS: readonly string[] = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

// Times within a batch share their second (and minute) far more often than not: the date part is
// formatted once per second. Module state, single-threaded; correct for any input order.
class SecondCache {
  private second = Number.NaN;
  private textOf = '';

  /** 'YYYY-MM-DD hh:mm:ss' of a whole second since the epoch. */
  get(second: number): string {
    if (second !== this.second) {
      this.second = second;
      this.textOf = new Date(second * 1000).toISOString().slice(0, 19).replace('T', ' ');
    }
    return this.textOf;
  }
}

const seconds = new SecondCache();
const minutes = new SecondCache();

/** ms since the epoch (an integer) → DateTime64(3, 'UTC') text. */
export function time(ms: number): string {
  const whole = Math.floor(ms);
  const second = Math.floor(whole / 1000);
  return `${seconds.get(second)}.${MILLIS[whole - second * 1000] as string}`;
}

/** Start of the UTC minute of `ms` → DateTime('UTC') text. */
export function minute(ms: number): string {
  return minutes.get(Math.floor(ms / 60_000) * 60);
}
