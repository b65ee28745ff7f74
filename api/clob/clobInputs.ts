// Inputs of the order-book surface, with the public CLOB's own error messages (upstream §3.2, §3.3):
// `Invalid token id`, `Invalid side`, `Invalid market`, `Invalid payload`, `Payload exceeds the limit`. The
// query and body schemas (api/schemas/formats.ts) name these errors, so the server answers a malformed value
// with them before a handler runs; the checks here are what the handlers read the values with.

import { ApiError } from '../http/apiErrors.js';
import type { JsonSchema } from '../http/apiTypes.js';
import { answering, CONDITION_ID, SIDE_PATTERN, side, TOKEN_ID, TOKEN_ID_PATTERN, tokenId } from '../schemas/formats.js';

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
  const upper = typeof value === 'string' ? value.toUpperCase() : '';
  if (upper !== 'BUY' && upper !== 'SELL') throw new ApiError('invalid_side');
  return upper;
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

/**
 * Body schema of the batch endpoints: an array of at most MAX_BATCH_ITEMS objects naming a token id (and
 * optionally a side). A token id or side of the wrong form answers its own error; anything else that does
 * not fit, `Invalid payload`.
 */
export const BATCH_BODY: JsonSchema = answering(
  {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        token_id: answering({ type: 'string', pattern: TOKEN_ID_PATTERN, description: 'Token id (decimal).' }, 'invalid_payload', { pattern: 'invalid_token_id' }),
        side: answering({ type: 'string', pattern: SIDE_PATTERN, description: 'BUY or SELL, any letter case; without it, both sides where the endpoint reads sides.' }, 'invalid_payload', { pattern: 'invalid_side' }),
      },
      required: ['token_id'],
    },
    maxItems: MAX_BATCH_ITEMS,
    description: `At most ${MAX_BATCH_ITEMS} items.`,
  },
  'invalid_payload',
  { maxItems: 'payload_too_many' },
);

/** The query of the single-token reads: a token id, required. */
export const TOKEN_QUERY: JsonSchema = { type: 'object', properties: { token_id: tokenId('Token id (decimal).') }, required: ['token_id'] };

/** A comma-separated list of 1 to MAX_BATCH_ITEMS token ids; more answer `Payload exceeds the limit`. */
export const tokenIdList = (description: string): JsonSchema =>
  answering({ type: 'array', items: tokenId(), minItems: 1, maxItems: MAX_BATCH_ITEMS, description: `${description} At most ${MAX_BATCH_ITEMS}.` }, 'invalid_token_id', { maxItems: 'payload_too_many' });

export { side, tokenId };

/** A plain string parameter: only for values that any string fits (the document must say every rule). */
export const queryText = (description: string): { type: 'string'; description: string } => ({ type: 'string', description });

/** A plain comma-separated list parameter: only for values that any strings fit. */
export const queryList = (description: string): { type: 'array'; items: { type: 'string' }; description: string } => ({ type: 'array', items: { type: 'string' }, description });
