// Offset cursors of the order-book surface (spec §4.3): base64 of the decimal offset; `MA==` ("0") is the
// first page and `LTE=` ("-1") means there are no more pages. A cursor is taken only in the form this service
// issues it: the canonical base64 of 1 to 9 digits (CURSOR_PATTERN, which the OpenAPI document states too).

import { CURSOR_PATTERN } from '../../api/schemas/formats.js';
import { ReadModelInputError } from './errors.js';

export const FIRST_CURSOR = 'MA==';
export const END_CURSOR = 'LTE=';
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
