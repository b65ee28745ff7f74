// Offset cursors of the order-book surface (spec §4.3): base64 of the decimal offset; `MA==` ("0") is the
// first page and `LTE=` ("-1") means there are no more pages.

import { ReadModelInputError } from './errors.js';

export const FIRST_CURSOR = 'MA==';
export const END_CURSOR = 'LTE=';
const MAX_OFFSET = 2 ** 31 - 1;

/** The offset a cursor stands for; 'end' for END_CURSOR. Absent or empty means the first page. */
export function parseCursor(param: string, cursor: string | undefined): number | 'end' {
  if (cursor === undefined || cursor === '') return 0;
  if (cursor === END_CURSOR) return 'end';
  const text = Buffer.from(cursor, 'base64').toString('utf8');
  if (!/^\d{1,10}$/.test(text) || Buffer.from(text).toString('base64') !== cursor || Number(text) > MAX_OFFSET) {
    throw new ReadModelInputError(param, 'is not a cursor this service issued');
  }
  return Number(text);
}

export function cursorFor(offset: number): string {
  return Buffer.from(String(offset)).toString('base64');
}
