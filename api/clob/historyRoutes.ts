// GET /prices-history and POST /batch-prices-history (spec §2.14, §4.3; upstream §3.4): price history of
// token ids from ClickHouse, by the read model (projections/readModel/priceHistory.ts, which documents the
// range, the buckets and `p`). The range ends at endTs or now; intervals 1h, 6h, 1d, 1w, 1m (one month, 30
// days) reach back from that end (not before startTs when it is given too); max and all, or no interval, start
// at startTs or the token's first mark (Unix seconds). `fidelity` is the bucket size in minutes (default 1).
//
// Here: the token id (`market` / `markets`) must be decimal (400 Invalid token id); the batch takes 1 to 20
// tokens (`Payload exceeds the limit` beyond; repeats count) and both `start_ts`/`end_ts` (upstream's batch
// spelling, which wins when both are given) and `startTs`/`endTs`, as JSON integers or decimal strings (null:
// absent); timestamps are 0 to 2^32 − 1 seconds (year 2106), without leading zeros; `interval` in any letter
// case. A start after the end is an empty history. A token with no history, or no market, has an empty history.
// Every one of these rules is in the query and body schemas below.
//
// A history holds every trade this process acknowledged before the request: the read waits for the projector to
// reach that position (which cuts short its pause between light-load commits), up to READ_WAIT_MS; past that it
// is read as ClickHouse holds it (a chart a little behind, rather than none).

import { badRequest, type ApiErrorCode } from '../http/apiErrors.js';
import { ok, type JsonSchema, type RouteDef } from '../http/apiTypes.js';
import { arr, int, num, obj } from '../schemas/common.js';
import { answering, anyCase, list, TOKEN_ID_PATTERN, UNIX_SECONDS, UNIX_SECONDS_PATTERN, unixSeconds } from '../schemas/formats.js';
import { BATCH_MAX_TOKENS, MAX_FIDELITY, PRICE_INTERVALS } from '../../projections/readModel/priceHistory.js';
import { batchPriceHistory, priceHistory, type ReadContext } from '../../projections/readModel/index.js';
import { checkBatchSize, tokenId, tokenIdOf } from './clobInputs.js';
import { projectorReaches } from '../trading/readYourWrites.js';
import type { ProjectionProgress } from '../trading/tradingDeps.js';

export interface HistoryDeps {
  readonly history: ReadContext;
  /** The projector's progress and the last log position this process acknowledged (unset: read at once). */
  readonly projection?: ProjectionProgress;
  readonly acknowledged?: () => number;
}

/** Resolves once the projector holds every acknowledged command, or after READ_WAIT_MS (then the read answers from what ClickHouse holds); never throws. */
async function caughtUp(deps: HistoryDeps): Promise<void> {
  if (deps.acknowledged !== undefined) await projectorReaches(deps.projection, deps.acknowledged());
}

const POINT = obj({ t: int('Unix seconds: start of the bucket.'), p: num('Mark at the end of the bucket.') });
const LATEST_SECOND = 2 ** 32 - 1;

/** A Unix-seconds bound as the read model takes it (digits), checked against the storage range; null is absent. */
function seconds(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'number' || typeof value === 'string' ? String(value) : '';
  if (!UNIX_SECONDS.test(text) || Number(text) > LATEST_SECOND) throw badRequest(`${name}: must be a Unix timestamp in seconds`);
  return text;
}

const INTERVAL_RULE = { code: 'bad_request' as ApiErrorCode, detail: `interval: must be one of ${PRICE_INTERVALS.join(', ')}` };
const interval = (): JsonSchema =>
  answering({ type: 'string', pattern: anyCase(PRICE_INTERVALS), maxLength: 3, description: `${PRICE_INTERVALS.join(', ')} (1m is a month), any letter case: how far the range reaches back from its end (not before the start when one is given).` }, INTERVAL_RULE);
const fidelity = (): JsonSchema =>
  answering({ type: 'integer', minimum: 1, maximum: MAX_FIDELITY, description: 'Bucket size in minutes (default 1); raised when the range would have more than 100,000 points.' }, { code: 'bad_request', detail: `fidelity: must be an integer from 1 to ${MAX_FIDELITY}` });
/** A time bound of the batch body: a JSON integer or a decimal string, or null (absent). */
const timeValue = (name: string): JsonSchema =>
  answering({ anyOf: [{ type: 'null' }, { type: 'integer', minimum: 0, maximum: LATEST_SECOND }, { type: 'string', pattern: UNIX_SECONDS_PATTERN }], description: 'Unix seconds, 0 to 4294967295: a JSON integer or a decimal string without leading zeros.' }, { code: 'bad_request', detail: `${name}: must be a Unix timestamp in seconds` });


interface BatchBody {
  readonly markets: readonly string[];
  readonly start_ts?: number | string;
  readonly end_ts?: number | string;
  readonly startTs?: number | string;
  readonly endTs?: number | string;
  readonly interval?: string;
  readonly fidelity?: number;
}


export function historyRoutes(deps: HistoryDeps): RouteDef[] {
  const ctx = deps.history;
  return [
    {
      method: 'GET', path: '/prices-history', surface: 'clob', summary: 'Price history of one token (market = token id).',
      query: {
        type: 'object',
        properties: {
          market: tokenId('Token id (decimal), not the condition id.'),
          interval: interval(),
          startTs: unixSeconds('startTs', 'Start of the range, Unix seconds.'),
          endTs: unixSeconds('endTs', 'End of the range (exclusive), Unix seconds.'),
          fidelity: fidelity(),
        },
        required: ['market'],
      },
      response: obj({ history: arr(POINT) }),
      limits: ['clob:prices-history'], errors: ['invalid_token_id', 'bad_request', 'internal'],
      handler: async (req) => {
        const q = req.query;
        const market = tokenIdOf(q.market);
        const startTs = seconds('startTs', q.startTs);
        const endTs = seconds('endTs', q.endTs);
        await caughtUp(deps);
        return ok(await priceHistory(ctx, { market, interval: q.interval as string | undefined, startTs, endTs, fidelity: q.fidelity as number | undefined }));
      },
    },
    {
      method: 'POST', path: '/batch-prices-history', surface: 'clob', summary: 'Price history of up to 20 tokens, keyed by token id.',
      body: {
        type: 'object',
        properties: {
          markets: list(
            answering({ type: 'string', pattern: TOKEN_ID_PATTERN, description: 'Token id (decimal).' }, 'invalid_payload', { pattern: 'invalid_token_id' }),
            BATCH_MAX_TOKENS,
            `Token ids, 1 to ${BATCH_MAX_TOKENS} (repeats count).`,
            { minItems: 1, missing: 'invalid_payload', tooMany: 'payload_too_many' },
          ),
          start_ts: timeValue('start_ts'), end_ts: timeValue('end_ts'), startTs: timeValue('startTs'), endTs: timeValue('endTs'),
          interval: interval(),
          fidelity: fidelity(),
        },
        required: ['markets'],
      },
      response: obj({ history: { type: 'object', additionalProperties: arr(POINT), description: 'Keyed by token id.' } }),
      limits: ['clob:batch-prices-history'], errors: ['invalid_payload', 'payload_too_many', 'invalid_token_id', 'bad_request', 'internal'],
      handler: async (req) => {
        const body = req.body as BatchBody;
        checkBatchSize(body.markets.length, BATCH_MAX_TOKENS);
        const markets = [...new Set(body.markets.map(tokenIdOf))];
        const startTs = seconds('start_ts', body.start_ts ?? body.startTs);
        const endTs = seconds('end_ts', body.end_ts ?? body.endTs);
        await caughtUp(deps);
        return ok(await batchPriceHistory(ctx, { markets, interval: body.interval, startTs, endTs, fidelity: body.fidelity }));
      },
    },
  ];
}
