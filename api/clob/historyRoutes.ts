// GET /prices-history and POST /batch-prices-history (spec §2.14, §4.3; upstream §3.4): price history of
// token ids from ClickHouse, by the read model (projections/readModel/priceHistory.ts, which documents the
// range, the buckets and `p`). Intervals: 1h, 6h, 1d, 1w, 1m (one month, 30 days) end now; max and all
// start at the token's first mark; or startTs / endTs (Unix seconds); `interval` excludes them; neither
// means max. `fidelity` is the bucket size in minutes (default 1).
//
// Here: the token id (`market` / `markets`) must be decimal (400 Invalid token id); the batch takes 1 to 20
// distinct tokens (`Payload exceeds the limit` beyond) and both `start_ts`/`end_ts` (upstream's batch
// spelling) and `startTs`/`endTs`; timestamps beyond 2^32 − 1 seconds (year 2106) are a 400. A token with
// no history, or no market, has an empty history.

import { ApiError, badRequest } from '../http/apiErrors.js';
import { ok, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { arr, int, num, obj } from '../schemas/common.js';
import { BATCH_MAX_TOKENS } from '../../projections/readModel/priceHistory.js';
import { batchPriceHistory, priceHistory, type ReadContext } from '../../projections/readModel/index.js';
import { checkBatchSize, queryText, tokenIdOf } from './clobInputs.js';

export interface HistoryDeps {
  readonly history: ReadContext;
}

const POINT = obj({ t: int('Unix seconds: start of the bucket.'), p: num('Mark at the end of the bucket.') });
const LATEST_SECOND = 2 ** 32 - 1;

/** A Unix-seconds bound as the read model takes it (digits), checked against the storage range. */
function seconds(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const text = String(value);
  if (!/^\d{1,12}$/.test(text) || Number(text) > LATEST_SECOND) throw badRequest(`${name}: must be a Unix timestamp in seconds`);
  return text;
}

interface BatchBody {
  readonly markets: readonly string[];
  readonly start_ts?: number | string;
  readonly end_ts?: number | string;
  readonly startTs?: number | string;
  readonly endTs?: number | string;
  readonly interval?: string;
  readonly fidelity?: number;
}

const TIME_VALUE: JsonSchema = { type: ['integer', 'string'] };

export function historyRoutes(deps: HistoryDeps): RouteDef[] {
  const ctx = deps.history;
  return [
    {
      method: 'GET', path: '/prices-history', surface: 'clob', summary: 'Price history of one token (market = token id).',
      query: {
        type: 'object',
        properties: {
          market: queryText('Token id (decimal), not the condition id.'),
          interval: queryText('max, all, 1m (month), 1w, 1d, 6h or 1h; excludes startTs/endTs.'),
          startTs: queryText('Unix seconds.'),
          endTs: queryText('Unix seconds.'),
          fidelity: { type: 'integer', description: 'Bucket size in minutes (default 1).' },
        },
      },
      response: obj({ history: arr(POINT) }),
      limits: ['clob:prices-history'], errors: ['invalid_token_id', 'bad_request', 'internal'],
      handler: async (req) => {
        const q = req.query;
        const market = tokenIdOf(q.market);
        const startTs = seconds('startTs', q.startTs);
        const endTs = seconds('endTs', q.endTs);
        return ok(await priceHistory(ctx, { market, interval: q.interval as string | undefined, startTs, endTs, fidelity: q.fidelity as number | undefined }));
      },
    },
    {
      method: 'POST', path: '/batch-prices-history', surface: 'clob', summary: 'Price history of up to 20 tokens, keyed by token id.',
      body: {
        type: 'object',
        properties: {
          markets: { type: 'array', items: { type: 'string' } },
          start_ts: TIME_VALUE, end_ts: TIME_VALUE, startTs: TIME_VALUE, endTs: TIME_VALUE,
          interval: { type: 'string' },
          fidelity: { type: 'integer' },
        },
        required: ['markets'],
      },
      response: obj({ history: { type: 'object', additionalProperties: arr(POINT), description: 'Keyed by token id.' } }),
      limits: ['clob:batch-prices-history'], errors: ['invalid_payload', 'payload_too_many', 'invalid_token_id', 'bad_request', 'internal'],
      handler: async (req) => {
        const body = req.body as BatchBody;
        const markets = [...new Set(body.markets.map(tokenIdOf))];
        if (markets.length === 0) throw new ApiError('invalid_payload');
        checkBatchSize(markets.length, BATCH_MAX_TOKENS);
        const startTs = seconds('start_ts', body.start_ts ?? body.startTs);
        const endTs = seconds('end_ts', body.end_ts ?? body.endTs);
        return ok(await batchPriceHistory(ctx, { markets, interval: body.interval, startTs, endTs, fidelity: body.fidelity }));
      },
    },
  ];
}
