// Checks of the order-book surface's inputs, with the public CLOB's own error messages (upstream §3.2,
// §3.3): `Invalid token id`, `Invalid side`, `Invalid market`, `Invalid payload`, `Payload exceeds the
// limit`. Query and body schemas stay loose on purpose (plain strings, arrays without a size cap) so that
// these checks, not a generic schema error, answer a malformed value.

import { ApiError } from '../http/apiErrors.js';
import { CONDITION_ID } from '../http/rootRules.js';

/** A token id is a decimal uint256 (upstream §0): at most 78 digits. */
const TOKEN_ID = /^\d{1,78}$/;

/** Most items of one batch request (POST /books, /prices, /midpoints, /spreads, /last-trades-prices). */
export const MAX_BATCH_ITEMS = 500;

export type BookSideName = 'BUY' | 'SELL';

export function tokenIdOf(value: unknown): string {
  if (typeof value !== 'string' || !TOKEN_ID.test(value)) throw new ApiError('invalid_token_id');
  return value;
}

export function conditionIdOf(value: unknown): string {
  if (typeof value !== 'string' || !CONDITION_ID.test(value)) throw new ApiError('invalid_market');
  return value;
}

/** BUY or SELL, in any letter case. */
export function sideOf(value: unknown): BookSideName {
  const side = typeof value === 'string' ? value.toUpperCase() : '';
  if (side !== 'BUY' && side !== 'SELL') throw new ApiError('invalid_side');
  return side;
}

/** Refuses a batch of more than `max` items. */
export function checkBatchSize(count: number, max = MAX_BATCH_ITEMS): void {
  if (count > max) throw new ApiError('payload_too_many');
}

/** The items of a batch body `[{token_id, side?}]` (the body schema checked the shape). */
export interface BatchItem {
  readonly token_id: string;
  readonly side?: string;
}

/** Token ids of a batch body, checked, without repeats, in request order. */
export function batchTokenIds(items: readonly BatchItem[]): string[] {
  checkBatchSize(items.length);
  return [...new Set(items.map((item) => tokenIdOf(item.token_id)))];
}

/** Body schema of the batch endpoints: an array of objects naming a token id (and optionally a side). */
export const BATCH_BODY = {
  type: 'array',
  items: { type: 'object', properties: { token_id: { type: 'string' }, side: { type: 'string' } }, required: ['token_id'] },
} as const;

/** A query parameter the handler checks itself. */
export const queryText = (description: string): { type: 'string'; description: string } => ({ type: 'string', description });

/** A comma-separated query list the handler checks itself. */
export const queryList = (description: string): { type: 'array'; items: { type: 'string' }; description: string } => ({ type: 'array', items: { type: 'string' }, description });
