// JSON literals written by hand where a read sends text it keeps (tradeJson.ts, orderJson.ts): each exactly as
// JSON.stringify, and so fast-json-stringify, writes it.

/** Characters JSON.stringify escapes (controls, `"`, `\`) and lone-surrogate candidates. */
const NEEDS_ESCAPE = /[\u0000-\u001f"\\\ud800-\udfff]/;

/** A JSON string literal, as JSON.stringify writes it. */
export function jsonText(s: string): string {
  return NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`;
}

/** An integer as the schema serialiser writes it (the values given are always integers). */
export function jsonInt(n: number): string {
  return Number.isInteger(n) ? String(n) : JSON.stringify(Math.trunc(n));
}

/**
 * The same text as one flat string. Text built by concatenation is a tree of pieces in V8 (a cons string);
 * a kept text is joined into pages many times, and joining flat strings costs about half as much (measured).
 * Number() reads the characters, which flattens the string in place.
 */
export function flattened(s: string): string {
  Number(s);
  return s;
}

/** A cursor page `{data, next_cursor, limit, count}` around its items' JSON text (joined with commas). */
export function pageJson(items: string, nextCursor: string, limit: number, count: number): string {
  return `{"data":[${items}],"next_cursor":${jsonText(nextCursor)},"limit":${jsonInt(limit)},"count":${jsonInt(count)}}`;
}
