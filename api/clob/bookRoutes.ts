// GET /book and POST /books (spec §4.3, upstream §3.2): order-book snapshots from the engine's live state.
// A token no listed market has is a 404 on /book and is left out of /books (which answers the books it
// has, in request order, without repeats). A resolved market keeps its (empty) book and last trade.

import { ApiError } from '../http/apiErrors.js';
import { ok, type JsonSchema, type Reply, type RouteDef } from '../http/apiTypes.js';
import { arr } from '../schemas/common.js';
import { bookAt } from './bookHistoryRoutes.js';
import { BOOK_SCHEMA } from './bookSchema.js';
import { LATEST_MOMENT_MS, bookSnapshot, bookTemplate, stampBook, type BookSnapshot, type BookTemplate, type EngineReads, type StampedBook } from './bookView.js';
import { BATCH_BODY, batchTokenIds, TOKEN_QUERY, tokenIdOf, type BatchItem } from './clobInputs.js';
import { answering } from '../schemas/formats.js';
import type { ReadContext } from '../../projections/readModel/index.js';

export interface BookDeps {
  readonly engine: EngineReads;
  readonly clock: () => number;
  /** The book history (GET /book?at=): its reads, the projector's progress and what this process acknowledged. */
  readonly history?: ReadContext;
  readonly projection?: { readonly position: number; waitFor(pos: number, timeoutMs?: number): Promise<void> };
  readonly acknowledged?: () => number;
}

/** GET /book's query: a token id, and optionally a past moment. */
const BOOK_QUERY: JsonSchema = {
  ...TOKEN_QUERY,
  properties: {
    ...(TOKEN_QUERY.properties as Record<string, JsonSchema>),
    at: answering(
      { type: 'integer', minimum: 0, maximum: LATEST_MOMENT_MS, description: 'A past moment (ms since the epoch): the book as it stood then, stamped with it (from the book history).' },
      { code: 'bad_request', detail: 'at must be an integer number of ms since the epoch' },
    ),
  },
};

/**
 * GET /book answers from a per-token cache. While the engine has applied no command since, the book's levels
 * are the same: its JSON is kept cut around the timestamp and hash (bookView.ts BookTemplate). Within the
 * same clock millisecond the whole body (whose hash covers the timestamp) is the same too, so it is sent as
 * it is; in a new millisecond it is stamped again, which costs one SHA-1 of the body. Under load most reads
 * are a map lookup, and a read in a new millisecond does not format or serialise the levels again.
 */
class BookReplyCache {
  private readonly entries = new Map<string, { seq: number; template: BookTemplate; ms: number; reply: Reply }>();

  constructor(private readonly deps: BookDeps) {}

  get(tokenId: string): Reply | undefined {
    const seq = this.deps.engine.seq;
    const ms = this.deps.clock();
    const hit = this.entries.get(tokenId);
    if (hit !== undefined && hit.seq === seq) {
      if (hit.ms !== ms) {
        hit.reply = replyOf(stampBook(hit.template, ms));
        hit.ms = ms;
      }
      return hit.reply;
    }
    const template = bookTemplate(this.deps.engine, tokenId);
    if (template === undefined) return undefined;
    const reply = replyOf(stampBook(template, ms));
    if (this.entries.size >= 10_000 && hit === undefined) this.entries.clear();
    this.entries.set(tokenId, { seq, template, ms, reply });
    return reply;
  }
}

/** The body is the snapshot's compact JSON in schema order, what BOOK_SCHEMA's serialiser writes for it. */
function replyOf(book: StampedBook): Reply {
  return { status: 200, body: book.snapshot, encoded: book.json };
}

export function bookRoutes(deps: BookDeps): RouteDef[] {
  const cache = new BookReplyCache(deps);
  return [
    {
      method: 'GET',
      path: '/book',
      surface: 'clob',
      engineState: true,
      summary: 'Order book of one token: levels best last, hash of the snapshot.',
      query: BOOK_QUERY,
      response: BOOK_SCHEMA,
      limits: ['clob:book'],
      errors: ['invalid_token_id', 'no_orderbook', 'bad_request', 'unavailable'],
      handler: (req) => {
        const at = req.query.at;
        if (typeof at === 'number' && deps.history !== undefined) {
          const tokenId = tokenIdOf(req.query.token_id);
          const history = deps.history;
          return bookAt({ history, projection: deps.projection, acknowledged: deps.acknowledged, clock: deps.clock }, tokenId, at).then((book) => {
            if (book === undefined) throw new ApiError('no_orderbook');
            return ok(book);
          });
        }
        const reply = cache.get(tokenIdOf(req.query.token_id));
        if (reply === undefined) throw new ApiError('no_orderbook');
        return reply;
      },
    },
    {
      method: 'POST',
      path: '/books',
      surface: 'clob',
      engineState: true,
      summary: 'Order books of up to 500 tokens; unknown tokens are left out.',
      body: BATCH_BODY,
      response: arr(BOOK_SCHEMA),
      limits: ['clob:books'],
      errors: ['invalid_payload', 'payload_too_many', 'invalid_token_id'],
      handler: (req) => {
        const now = deps.clock();
        const books: BookSnapshot[] = [];
        for (const tokenId of batchTokenIds(req.body as BatchItem[])) {
          const snapshot = bookSnapshot(deps.engine, tokenId, now);
          if (snapshot !== undefined) books.push(snapshot);
        }
        return ok(books);
      },
    },
  ];
}
