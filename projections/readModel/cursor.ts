// Offset cursors of the order-book surface (spec §4.3): base64 of the decimal offset; `MA==` ("0") is the
// first page and `LTE=` ("-1") means there are no more pages. A cursor is taken only in the form this service
// issues it: the canonical base64 of 1 to 9 digits (CURSOR_PATTERN, which the OpenAPI document states too:
// api/schemas/formats.ts).

import { ReadModelInputError } from './errors.js';

export const FIRST_CURSOR = 'MA==';
export const END_CURSOR = 'LTE=';

// Base64 of decimal digits, three at a time (0x30-0x39 each), in the pattern's pieces: ASCII classes, no
// lookaround, anchored, so that every engine that reads the OpenAPI document reads it the same.
const CURSOR_GROUP = '(?:[MN][DTjz]|O[DT])[AEIMQUYcgk][w-z0-5]';
const CURSOR_ONE = '(?:[MN][AQgw]|O[AQ])==';
const CURSOR_TWO = '(?:[MN][DTjz]|O[DT])[AEIMQUYcgk]=';
/** Exactly the cursors this service issues: base64 of 1 to 9 decimal digits (MA== is the first page), or LTE=. */
export const CURSOR_PATTERN = `^(?:LTE=|(?:${CURSOR_GROUP}){1,3}|(?:${CURSOR_GROUP}){0,2}(?:${CURSOR_ONE}|${CURSOR_TWO}))$`;
const CURSOR = new RegExp(CURSOR_PATTERN);

/** The offset a cursor stands for; 'end' for END_CURSOR. Absent or empty means the first page. */
export function parseCursor(param: string, cursor: string | undefined): number | 'end' {
  if (cursor === undefined || cursor === '') return 0;
  if (cursor === END_CURSOR) return 'end';
  if (!CURSOR.test(cursor)) throw new ReadModelInputError(param, 'is not a cursor this service issued');
  return Number(Buffer.from(cursor, 'base64').toString('utf8'));
}

export function cursorFor(offset: number): string {
  return Buffer.from(String(offset)).toString('base64');
}
