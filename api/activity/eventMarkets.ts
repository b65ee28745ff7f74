// upstream's `eventId` filter of the Data API reads (/positions, /trades, /activity, /closed-positions): the
// events' markets, from the catalog, stand in for `market`, with which it is mutually exclusive. Events the
// catalog does not know have no markets, so a filter of only such events matches nothing.

import { badRequest } from '../http/apiErrors.js';
import type { JsonSchema } from '../http/apiTypes.js';

/** What the Data API reads need of the catalog (catalog/marketIndex.ts provides it). */
export interface CatalogLookup {
  /** Condition ids of the markets of these events (catalog event ids), without repeats. */
  conditionIdsOfEvents(eventIds: readonly string[]): string[];
  /** Condition ids of the markets whose events carry the tag `label` (any letter case). */
  conditionIdsTagged(label: string): readonly string[];
}

/** A catalog that knows no event and no tag. */
export const NO_CATALOG: CatalogLookup = { conditionIdsOfEvents: () => [], conditionIdsTagged: () => [] };

/** Most event ids in one `eventId`. */
export const MAX_EVENT_IDS = 100;

/** The `eventId` query parameter. */
export const EVENT_IDS: JsonSchema = {
  type: 'array',
  items: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
  minItems: 1,
  maxItems: MAX_EVENT_IDS,
  description: `Only these events' markets: comma-separated catalog event ids (integers >= 1), at most ${MAX_EVENT_IDS}. Mutually exclusive with market.`,
};

/** In a query schema's `dependentSchemas` under `market`: `market` and `eventId` are mutually exclusive (a 400). */
export const MARKET_EXCLUDES_EVENT: JsonSchema = { not: { required: ['eventId'] }, 'x-error': { code: 'bad_request', detail: 'market and eventId are mutually exclusive' } };

/**
 * The condition ids a read filters on: `market` (lower case), or the markets of `eventId`; undefined when
 * neither is given. Both given is a 400.
 */
export function marketsOf(market: readonly string[] | undefined, eventId: readonly number[] | undefined, catalog: CatalogLookup): string[] | undefined {
  if (market !== undefined && eventId !== undefined) throw badRequest('market and eventId are mutually exclusive');
  if (eventId !== undefined) return catalog.conditionIdsOfEvents(eventId.map(String));
  return market?.map((m) => m.toLowerCase());
}
