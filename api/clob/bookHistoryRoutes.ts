// The order book at past moments, from the book history (projections/builders/bookHistory.ts,
// projections/readModel/bookHistory.ts):
//
// - GET /orderbook-history?asset_id=&startTs=&endTs=&limit=&offset= (ms): `{count, data}`, data = the book after
//   each record that changed the token's book in [startTs, endTs], oldest first, each in GET /book's shape,
//   stamped with the record's time: exactly what GET /book answered at that moment (hash included). With
//   `interval` (ms), one book per interval instead, at startTs, startTs + interval, … up to endTs, each the book
//   as it stood at that moment (moments before the token's first book are left out). `count` is the number of
//   books (or intervals) in the whole window; limit (default 100, at most 1000) and offset page through them.
// - GET /book?token_id=&at=<ms> (bookRoutes.ts sends `at` here): the book as it stood at that moment, stamped
//   with it; 404 before the token's market was listed.
//
// Reads wait for the projector to reach the last position this process acknowledged, as account reads do, so
// a book just changed is in its history.

import { formatUnits } from '../../engine/index.js';
import type { ReadContext } from '../../projections/readModel/index.js';
import { bookChangeCount, bookChanges, booksAt, type HistoricBook } from '../../projections/readModel/bookHistory.js';
import { ApiError } from '../http/apiErrors.js';
import { ok, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { arr, int, obj } from '../schemas/common.js';
import { answering, tokenId } from '../schemas/formats.js';
import { READ_WAIT_MS, projectorReaches } from '../trading/readYourWrites.js';
import type { ProjectionProgress } from '../trading/tradingDeps.js';
import { BOOK_SCHEMA } from './bookSchema.js';
import { bookHash, LATEST_MOMENT_MS, type BookSnapshot } from './bookView.js';
import { tokenIdOf } from './clobInputs.js';

/** Most books on one page, and the default. */
export const HISTORY_MAX_LIMIT = 1000;
const HISTORY_DEFAULT_LIMIT = 100;
/** Largest offset: deeper pages are reached by moving startTs. */
const MAX_MOMENTS = 100_000;
const MAX_MS = LATEST_MOMENT_MS;

export interface BookHistoryDeps {
  readonly history: ReadContext;
  /** The projector's progress and the last log position this process acknowledged: history is read after both meet. */
  readonly projection?: ProjectionProgress;
  readonly acknowledged?: () => number;
  readonly clock: () => number;
}

const ms = (description: string): JsonSchema => answering({ type: 'integer', minimum: 0, maximum: MAX_MS, description }, { code: 'bad_request', detail: `${description.split(' ')[0]} must be an integer number of ms since the epoch` });

export const HISTORY_QUERY: JsonSchema = {
  type: 'object',
  properties: {
    asset_id: tokenId('Token id (decimal).'),
    startTs: ms('startTs: start of the window, ms since the epoch (included); default 0.'),
    endTs: ms('endTs: end of the window, ms since the epoch (included); default now.'),
    interval: answering({ type: 'integer', minimum: 1, maximum: MAX_MS, description: 'One book per this many ms from startTs, instead of one per change.' }, { code: 'bad_request', detail: 'interval must be a positive integer number of ms' }),
    limit: answering({ type: 'integer', minimum: 1, maximum: HISTORY_MAX_LIMIT, description: `Books per page (default ${HISTORY_DEFAULT_LIMIT}, at most ${HISTORY_MAX_LIMIT}).` }, { code: 'bad_request', detail: `limit must be an integer from 1 to ${HISTORY_MAX_LIMIT}` }),
    offset: answering({ type: 'integer', minimum: 0, maximum: MAX_MOMENTS, description: 'Books to skip.' }, { code: 'bad_request', detail: `offset must be an integer from 0 to ${MAX_MOMENTS}` }),
  },
  required: ['asset_id'],
};

/** GET /book's snapshot of a historic book, stamped with `stampMs`. */
export function historicSnapshot(tokenId: string, book: HistoricBook, stampMs: number): BookSnapshot {
  const snapshot: BookSnapshot = {
    market: book.conditionId,
    asset_id: tokenId,
    timestamp: String(stampMs),
    hash: '',
    // GET /book lists levels best last.
    bids: [...book.bids].reverse().map(([p, s]) => ({ price: formatUnits(p), size: formatUnits(s) })),
    asks: [...book.asks].reverse().map(([p, s]) => ({ price: formatUnits(p), size: formatUnits(s) })),
    min_order_size: formatUnits(book.minSize),
    tick_size: formatUnits(book.tickSize),
    neg_risk: book.negRisk,
    last_trade_price: book.lastTrade === null ? '' : formatUnits(book.lastTrade),
  };
  snapshot.hash = bookHash(snapshot);
  return snapshot;
}

/** Waits (within READ_WAIT_MS) for the projector to hold every acknowledged command; 503 otherwise. */
async function caughtUp(deps: BookHistoryDeps): Promise<void> {
  if (deps.acknowledged === undefined) return;
  const target = deps.acknowledged();
  if (!(await projectorReaches(deps.projection, target))) {
    throw new ApiError('unavailable', { detail: `the book history did not reach log position ${target} within ${READ_WAIT_MS} ms; retry later` });
  }
}

/** The book of `tokenId` as it stood at `atMs`, stamped with it; undefined before its market was listed. */
export async function bookAt(deps: BookHistoryDeps, tokenId: string, atMs: number): Promise<BookSnapshot | undefined> {
  await caughtUp(deps);
  const [book] = await booksAt(deps.history, tokenId, [atMs]);
  return book === undefined ? undefined : historicSnapshot(tokenId, book, atMs);
}

export function bookHistoryRoutes(deps: BookHistoryDeps): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/orderbook-history',
      surface: 'clob',
      summary: "A token's book after each change in a window (or at each interval), each as GET /book answered then: {count, data}",
      query: HISTORY_QUERY,
      response: obj({ count: int('Books in the whole window.'), data: arr(BOOK_SCHEMA) }),
      limits: ['clob:book'],
      errors: ['invalid_token_id', 'bad_request', 'unavailable'],
      handler: async (req) => {
        const q = req.query as { asset_id?: unknown; startTs?: number; endTs?: number; interval?: number; limit?: number; offset?: number };
        const token = tokenIdOf(q.asset_id);
        const start = q.startTs ?? 0;
        const end = q.endTs ?? deps.clock();
        const limit = q.limit ?? HISTORY_DEFAULT_LIMIT;
        const offset = q.offset ?? 0;
        await caughtUp(deps);
        if (end < start) return ok({ count: 0, data: [] });
        if (q.interval === undefined) {
          const [count, books] = await Promise.all([bookChangeCount(deps.history, token, start, end), bookChanges(deps.history, token, start, end, limit, offset)]);
          return ok({ count, data: books.map((b) => historicSnapshot(token, b, b.timeMs)) });
        }
        const total = Math.floor((end - start) / q.interval) + 1;
        const moments: number[] = [];
        for (let i = offset; i < total && moments.length < limit; i++) moments.push(start + i * q.interval);
        const books = await booksAt(deps.history, token, moments);
        const data: BookSnapshot[] = [];
        books.forEach((b, i) => {
          if (b !== undefined) data.push(historicSnapshot(token, b, moments[i] as number));
        });
        return ok({ count: total, data });
      },
    },
  ];
}
