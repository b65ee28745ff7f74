// What the activity surface's routes share (activityRoutes.ts: /trades, /positions, /holders; dataApiRoutes.ts:
// the rest of upstream's Data API): the GET route with the surface's error codes; query schema pieces (closed
// sets in the upper-case spelling or all lower case, bounded integers with their default, addresses and
// condition ids in any letter case) and the profile fields of upstream's rows, which ajv validates against
// and the OpenAPI document shows; the query values made into a read's parameters (lower case, as the engine
// stores them); and the answer of a read from the in-memory read model while it serves, else from ClickHouse.

import type { LiveState } from '../../projections/live/liveState.js';
import type { LiveReadModel } from '../../projections/live/liveReadModel.js';
import { NOT_IN_MEMORY } from '../../projections/live/liveReads.js';
import type { ReadContext } from '../../projections/readModel/index.js';
import type { ApiErrorCode } from '../http/apiErrors.js';
import { ok, type ApiRequest, type JsonSchema, type Reply, type RouteDef } from '../http/apiTypes.js';
import { texts } from '../schemas/common.js';
import { marketsOf, type CatalogLookup } from './eventMarkets.js';

export const ADDRESS = '^0x[0-9a-fA-F]{40}$';
export const CONDITION_ID = '^0x[0-9a-fA-F]{64}$';
/**
 * Most condition ids in a `market` list (but /holders'): 300 of 67 characters keep the longest valid query
 * inside the header edge's 64 KiB request head (the read model takes up to 1,000).
 */
export const MAX_MARKETS = 300;

/** A closed set of values, accepted in the upper-case spelling or all lower case. */
export const choice = (values: readonly string[], description: string, fallback?: string): JsonSchema => ({
  type: 'string',
  enum: [...values, ...values.map((v) => v.toLowerCase())],
  ...(fallback === undefined ? {} : { default: fallback }),
  description,
});

export const integer = (min: number, max: number, fallback: number, description: string): JsonSchema => ({ type: 'integer', minimum: min, maximum: max, default: fallback, description });
export const unixSeconds = (description: string): JsonSchema => ({ type: 'integer', minimum: 0, maximum: 1e11, description });
export const address = (description: string): JsonSchema => ({ type: 'string', pattern: ADDRESS, maxLength: 42, description });
export const conditionId = (description: string): JsonSchema => ({ type: 'string', pattern: CONDITION_ID, maxLength: 66, description });

/** A list of condition ids; given, it has at least one (`market=` is not an empty list but a malformed one). */
export const conditionIds = (maxItems: number, description: string): JsonSchema => ({
  type: 'array',
  items: { type: 'string', pattern: CONDITION_ID, maxLength: 66 },
  minItems: 1,
  maxItems,
  description: `${description} Comma-separated condition ids (0x + 64 hex digits), at most ${maxItems}.`,
});

/** A list of closed-set values, comma-separated, each in either spelling. */
export const choices = (values: readonly string[], description: string): JsonSchema => ({
  type: 'array',
  items: { type: 'string', enum: [...values, ...values.map((v) => v.toLowerCase())] },
  minItems: 1,
  maxItems: 2 * values.length,
  description,
});

export const query = (properties: Record<string, JsonSchema>, required: readonly string[] = [], extra: Record<string, unknown> = {}): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length === 0 ? {} : { required }),
  ...extra,
});

/** The wallet a per-user read is about. */
export const USER = address('Wallet address (0x + 40 hex digits, any case). Required.');
export const SORT_DIRECTION = choice(['ASC', 'DESC'], 'Default DESC.', 'DESC');

/** The profile fields of upstream's trade, activity and holder rows. */
export const PROFILE = texts('name', 'pseudonym', 'bio', 'profileImage', 'profileImageOptimized');

const ERRORS: readonly ApiErrorCode[] = ['bad_request', 'unknown_field', 'ip_not_allowlisted', 'rate_limited', 'internal_db'];

/** A GET route of the activity surface whose handler reads its own query type (validated against `query`). */
export function dataRoute<Q>(def: Omit<RouteDef<Q>, 'surface' | 'method' | 'strictQuery' | 'errors'>): RouteDef {
  return { method: 'GET', surface: 'activity', strictQuery: true, errors: ERRORS, ...def } as unknown as RouteDef;
}

/** Addresses and condition ids as the engine stores them: lower case. */
export const lower = (list: readonly string[] | undefined): string[] | undefined => list?.map((v) => v.toLowerCase());

/** A read's parameters from a query with a wallet and `market` or `eventId`: the wallet in lower case, the markets as `market`. */
export function walletMarkets<Q extends { user?: string; market?: string[]; eventId?: number[] }>(q: Q, catalog: CatalogLookup): Q & { market: string[] | undefined } {
  return { ...q, user: q.user?.toLowerCase(), market: marketsOf(q.market, q.eventId, catalog) };
}

/** A read of the in-memory model; NOT_IN_MEMORY when it does not hold what the read needs. */
type InMemory<P, R> = (state: LiveState, metadata: ReadContext['metadata'], params: P) => R | typeof NOT_IN_MEMORY | Promise<R | typeof NOT_IN_MEMORY>;

/**
 * A handler that makes the query into the read's parameters and answers with the in-memory read model's
 * rows while it serves and holds them, else with ClickHouse's (the same answer: projections/live/).
 */
export function served<Q, P, R>(
  live: LiveReadModel | undefined,
  reads: ReadContext,
  paramsOf: (q: Q) => P,
  inMemory: InMemory<P, R>,
  stored: (reads: ReadContext, params: P) => Promise<R>,
): (req: ApiRequest<Q>) => Promise<Reply> {
  return async (req) => {
    const params = paramsOf(req.query);
    const found = live?.ready === true ? await inMemory(live.state, reads.metadata, params) : NOT_IN_MEMORY;
    return ok(found === NOT_IN_MEMORY ? await stored(reads, params) : found);
  };
}
