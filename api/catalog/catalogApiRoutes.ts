// The catalog surface as HTTP routes: the handlers of catalogRoutes.ts with their query parameters (spec
// 4.1), response schemas and rate-limit windows (spec 8.1). Catalog objects carry every field the upstream
// sent, so their schemas name the fields the spec guarantees and let the others through unchanged.
//
// The query and path schemas below state every rule the handlers apply (queryParams.ts), with their
// messages, and the server checks them first; the handlers then read the validated values (numbers and
// booleans in their canonical spelling, lists comma-joined). Booleans are exactly true or false; lists are
// comma-separated (or repeated); sizes keep the longest valid query well inside the 64 KiB request head.

import { EVENT_SORT_COLUMNS, MARKET_SORT_COLUMNS, type CatalogDb, type SortColumns } from '../../catalog/queries.js';
import type { ErrorRule, JsonSchema, RouteDef } from '../http/apiTypes.js';
import type { RateWindowName } from '../http/rateLimits.js';
import { arr, bool, int, obj, str } from '../schemas/common.js';
import { anchored, answering, CONDITION_ID_PATTERN, uintUpTo } from '../schemas/formats.js';
import { catalogRoutes } from './catalogRoutes.js';
import { MAX_QUERY_LENGTH } from './publicSearchHandler.js';
import { LIMITS as PAGE_LIMITS, type LimitRule } from './queryParams.js';

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

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** Items of one list parameter, and the longest slug, creator or item (the request head stays small). */
const MAX_LIST_ITEMS = 10;
const MAX_TEXT = 100;

const rule = (detail: string): ErrorRule => ({ code: 'bad_request', detail });

/** An integer parameter from `min`; above `max` a 400, unless larger values are clamped (max is then any safe integer). */
function integer(name: string, description: string, min: number, max = MAX_SAFE): JsonSchema {
  const range = max === MAX_SAFE ? rule(`${name} must be an integer`) : rule(`${name} must be an integer from ${min} to ${max}`);
  return answering({ type: 'integer', minimum: min, maximum: max, description }, rule(`${name} must be an integer`), { minimum: rule(`${name} must be an integer of at least ${min}`), maximum: range });
}
const limit = (name: string, r: LimitRule, description: string): JsonSchema =>
  integer(name, `${description} ${r.min} to ${r.max}${r.clamp ? ' (larger values count as the maximum)' : ''}; default ${r.default}.`, r.min, r.clamp ? MAX_SAFE : r.max);
const flag = (name: string, description: string): JsonSchema => answering({ type: 'boolean', description: `${description} true or false.` }, rule(`${name} must be true or false`));
const text = (description: string): JsonSchema => ({ type: 'string', maxLength: MAX_TEXT, description });
/** A list of slugs: printable ASCII without spaces or commas. */
const slugs = (description: string): JsonSchema => ({
  type: 'array', items: { type: 'string', pattern: '^[!-+\\--~]+$', maxLength: MAX_TEXT }, minItems: 1, maxItems: MAX_LIST_ITEMS, description: `${description} At most ${MAX_LIST_ITEMS}.`,
});
const ids = (name: string, description: string): JsonSchema =>
  answering({ type: 'array', items: { type: 'string', pattern: anchored(uintUpTo(BigInt(MAX_SAFE))), maxLength: 16 }, minItems: 1, maxItems: MAX_LIST_ITEMS, description: `${description} Non-negative integers, at most ${MAX_LIST_ITEMS}.` }, rule(`${name} must be an integer`), { maxItems: rule(`${name}: at most ${MAX_LIST_ITEMS} values`) });
const conditionIds = (name: string, description: string): JsonSchema =>
  answering({ type: 'array', items: { type: 'string', pattern: CONDITION_ID_PATTERN, maxLength: 66 }, minItems: 1, maxItems: 20, description: `${description} At most 20.` }, rule(`${name} must be condition ids (0x + 64 hex digits)`), { maxItems: rule(`${name}: at most 20 values`) });
function sortFields(columns: SortColumns): JsonSchema {
  return answering({ type: 'array', items: { type: 'string', enum: [...columns.keys()] }, minItems: 1, maxItems: MAX_LIST_ITEMS, description: 'Sort fields (camelCase, or snake_case); without it, by id.' }, rule('order: unknown field {value}'), { maxItems: rule(`order: at most ${MAX_LIST_ITEMS} fields`) });
}

const creator = { creator: text('Creator wallet address or site id; scopes results to markets available there.') };
const page = (columns: SortColumns, r: LimitRule): Record<string, JsonSchema> => ({
  limit: limit('limit', r, 'Rows to return,'),
  offset: integer('offset', 'Rows to skip; default 0.', 0),
  order: sortFields(columns),
  ascending: flag('ascending', 'Sort order: ascending by default without `order`, descending with it.'),
});
const flagParams = { active: flag('active', 'Filter by active.'), closed: flag('closed', 'Filter by closed.'), archived: flag('archived', 'Filter by archived.') };
const tagParams = { tag: slugs('Tag slugs (alias of tag_slug).'), tag_id: ids('tag_id', 'Tag ids.'), tag_slug: slugs('Tag slugs.') };

const QUERIES: Readonly<Record<string, Record<string, JsonSchema>>> = {
  '/markets': {
    ...page(MARKET_SORT_COLUMNS, PAGE_LIMITS.markets), ...flagParams, ...tagParams, id: ids('id', 'Market ids.'), event_id: ids('event_id', 'Event ids.'), event_slug: slugs('Event slugs.'), eventSlug: slugs('Alias of event_slug.'),
    conditionId: conditionIds('conditionId', 'Condition ids.'), condition_id: conditionIds('condition_id', 'Alias of conditionId.'), condition_ids: conditionIds('condition_ids', 'Alias of conditionId.'), slug: slugs('Market slugs.'), ...creator,
  },
  '/events': { ...page(EVENT_SORT_COLUMNS, PAGE_LIMITS.events), ...flagParams, ...tagParams, id: ids('id', 'Event ids.'), series_slug: slugs('Series slugs.'), slug: slugs('Event slugs.'), ...creator },
  '/series': { limit: limit('limit', PAGE_LIMITS.series, 'Rows to return,'), offset: integer('offset', 'Rows to skip; default 0.', 0), ...creator },
  '/tags': { limit: limit('limit', PAGE_LIMITS.tags, 'Rows to return,'), offset: integer('offset', 'Rows to skip; default 0.', 0), ...creator },
  '/public-search': {
    q: answering(
      // At least one character that is not white space (the handler trims it, as String.prototype.trim does).
      { type: 'string', minLength: 1, maxLength: MAX_QUERY_LENGTH, pattern: '[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]', description: `Search terms (required), at most ${MAX_QUERY_LENGTH} characters, not only white space.` },
      rule('q is required'),
      { maxLength: rule(`q must be at most ${MAX_QUERY_LENGTH} characters`) },
    ),
    limit_per_type: limit('limit_per_type', PAGE_LIMITS.search, 'Rows per result type,'),
    page: integer('page', '1-based page; default 1.', 1),
    search_tags: flag('search_tags', 'Whether tags are searched too (default true).'),
    search_profiles: flag('search_profiles', 'Accepted for compatibility; true adds an empty `profiles` list.'),
    ...creator,
  },
};

/** Path parameters: a market by numeric id or condition id (else 404), an event by integer id (else 400), a slug. */
const slugParam = { type: 'object', properties: { slug: answering({ type: 'string', minLength: 1, maxLength: 200, description: 'Slug.' }, 'slug_not_found') }, required: ['slug'] };
const PARAMS: Readonly<Record<string, JsonSchema>> = {
  '/markets/{id}': { type: 'object', properties: { id: answering({ type: 'string', pattern: '^(?:[0-9]{1,20}|0x[0-9a-fA-F]{1,64})$', maxLength: 66, description: 'Numeric id, or condition id (0x + hex digits).' }, 'id_not_found') }, required: ['id'] },
  '/events/{id}': { type: 'object', properties: { id: answering({ type: 'string', pattern: '^[0-9]{1,20}$', maxLength: 20, description: 'Numeric id.' }, rule('id must be an integer')) }, required: ['id'] },
  '/markets/slug/{slug}': slugParam,
  '/events/slug/{slug}': slugParam,
};

/** The validated query as the handlers read it: canonical spellings, lists comma-joined. */
function canonical(query: Readonly<Record<string, unknown>>): URLSearchParams {
  return new URLSearchParams(Object.entries(query).map(([name, value]): [string, string] => [name, Array.isArray(value) ? value.join(',') : String(value)]));
}

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
      query: { type: 'object', properties: query, ...(route.path === '/public-search' ? { required: ['q'] } : {}) },
      ...(PARAMS[route.path] === undefined ? {} : { params: PARAMS[route.path] }),
      response: RESPONSES[route.path] ?? { type: 'object', additionalProperties: true },
      limits: LIMITS[route.path] ?? [],
      errors: route.path.includes('{') ? ['bad_request', 'id_not_found', 'slug_not_found'] : ['bad_request'],
      handler: (req) => route.handler({ params: req.params, query: canonical(req.query) }),
    };
    return def;
  });
}
