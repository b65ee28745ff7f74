// The catalog surface as HTTP routes: the handlers of catalogRoutes.ts with their query parameters (spec
// 4.1; the handlers parse and check them, see queryParams.ts), response schemas and rate-limit windows
// (spec 8.1). Catalog objects carry every field the upstream sent, so their schemas name the fields the
// spec guarantees and let the others through unchanged.

import type { CatalogDb } from '../../catalog/queries.js';
import type { JsonSchema, RouteDef } from '../http/apiTypes.js';
import type { RateWindowName } from '../http/rateLimits.js';
import { arr, bool, int, obj, param, str } from '../schemas/common.js';
import { catalogRoutes } from './catalogRoutes.js';

const open = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: 'object', properties, additionalProperties: true });
const texts = (...names: string[]): Record<string, JsonSchema> => Object.fromEntries(names.map((n) => [n, str()]));
const flags = { active: bool(), closed: bool(), archived: bool() };

const MARKET = open({ ...texts('question', 'conditionId', 'slug', 'resolutionSource', 'image', 'icon', 'description', 'outcomes', 'clobTokenIds', 'questionID'), ...flags });
const TAG = open({ ...texts('label', 'slug'), requiresTranslation: bool() });
const EVENT = open({ ...texts('ticker', 'slug', 'title', 'description', 'resolutionSource', 'image', 'icon'), ...flags });
const SERIES = open({ ...texts('ticker', 'slug', 'title', 'seriesType', 'recurrence', 'image', 'icon'), ...flags });
const SEARCH = obj({
  events: arr(open({ ...texts('id', 'ticker', 'slug', 'title') })),
  tags: arr(open({ ...texts('id', 'label', 'slug'), event_count: int() })),
  pagination: obj({ hasMore: bool(), totalResults: int() }),
}, { additional: true });

const creator = { creator: param('Creator wallet address or site id; scopes results to markets available there.') };
const page = { limit: param('Rows to return.'), offset: param('Rows to skip.'), order: param('Sort fields, comma-separated.'), ascending: param('true for ascending order.') };
const flagParams = { active: param('Filter by active.'), closed: param('Filter by closed.'), archived: param('Filter by archived.') };
const tagParams = { tag: param('Tag slug (alias of tag_slug).'), tag_id: param('Tag id.'), tag_slug: param('Tag slug.') };

const QUERIES: Readonly<Record<string, Record<string, JsonSchema>>> = {
  '/markets': { ...page, ...flagParams, ...tagParams, event_id: param('Event id.'), event_slug: param('Event slug.'), eventSlug: param('Alias of event_slug.'), conditionId: param('Condition id.'), condition_id: param('Alias of conditionId.'), slug: param('Market slug.'), ...creator },
  '/events': { ...page, ...flagParams, ...tagParams, series_slug: param('Series slug.'), slug: param('Event slug.'), ...creator },
  '/series': { limit: param('1..100, default 20.'), offset: param('>= 0, default 0.'), ...creator },
  '/tags': { limit: param('Rows to return.'), offset: param('Rows to skip.'), ...creator },
  '/public-search': { q: param('Search term (required).'), limit_per_type: param('Rows per result type.'), page: param('1-based page.'), search_tags: param('true includes tag matches.'), search_profiles: param('Accepted for compatibility; no profiles are returned.'), ...creator },
};

const RESPONSES: Readonly<Record<string, JsonSchema>> = {
  '/markets': arr(MARKET),
  '/markets/slug/{slug}': MARKET,
  '/markets/{id}': MARKET,
  '/events': arr(EVENT),
  '/events/slug/{slug}': EVENT,
  '/events/{id}': EVENT,
  '/series': arr(SERIES),
  '/tags': arr(TAG),
  '/public-search': SEARCH,
};

const LIMITS: Readonly<Record<string, readonly RateWindowName[]>> = {
  '/markets': ['catalog:markets', 'catalog:listings'],
  '/events': ['catalog:events', 'catalog:listings'],
  '/tags': ['catalog:tags'],
  '/public-search': ['catalog:public-search'],
};

const SUMMARIES: Readonly<Record<string, string>> = {
  '/markets': 'List catalog markets.',
  '/markets/slug/{slug}': 'One catalog market by slug.',
  '/markets/{id}': 'One catalog market by numeric id or condition id.',
  '/events': 'List events.',
  '/events/slug/{slug}': 'One event by slug.',
  '/events/{id}': 'One event by id.',
  '/series': 'List series.',
  '/tags': 'List tags.',
  '/public-search': 'Search events and tags.',
};

export function catalogApiRoutes(catalog: CatalogDb): RouteDef[] {
  return catalogRoutes(catalog).map((route) => {
    const query = QUERIES[route.path] ?? creator;
    const def: RouteDef = {
      method: route.method,
      path: route.path,
      surface: 'catalog',
      summary: SUMMARIES[route.path] ?? route.path,
      query: { type: 'object', properties: query },
      response: RESPONSES[route.path] ?? { type: 'object', additionalProperties: true },
      limits: LIMITS[route.path] ?? [],
      errors: route.path.includes('{') ? ['bad_request', 'id_not_found', 'slug_not_found'] : ['bad_request'],
      handler: (req) => route.handler({ params: req.params, query: req.rawQuery }),
    };
    return def;
  });
}
