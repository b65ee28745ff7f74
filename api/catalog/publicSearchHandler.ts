// GET /public-search: events and tags (spec 2.13, 4.1). `q` is required; `search_tags` defaults to true;
// `search_profiles` is accepted and, when true, answered with an empty `profiles` list (this service has no
// profiles). Search semantics: catalog/searchQueries.ts.

import { searchCatalog, searchTerms, type CatalogDb } from '../../catalog/queries.js';
import { answering, badRequest, ok } from './catalogErrors.js';
import type { Handler } from './handlerTypes.js';
import { bool, creatorOf, int, LIMITS, limitOf, text } from './queryParams.js';

/** Longest accepted search text. */
export const MAX_QUERY_LENGTH = 200;

export function publicSearchHandler(catalog: CatalogDb): Handler {
  return (req) =>
    answering(async () => {
      const q = text(req.query, 'q');
      if (q === undefined) return badRequest('q is required');
      // Characters as JSON Schema's maxLength counts them (code points), not UTF-16 units.
      if ([...q].length > MAX_QUERY_LENGTH) return badRequest(`q must be at most ${MAX_QUERY_LENGTH} characters`);
      const limit = limitOf(req.query, LIMITS.search, 'limit_per_type');
      const page = int(req.query, 'page', 1) ?? 1;
      const searchTags = bool(req.query, 'search_tags') ?? true;
      const searchProfiles = bool(req.query, 'search_profiles') ?? false;
      const result = await searchCatalog(catalog, { terms: searchTerms(q), limit, page, searchTags, creator: creatorOf(req.query) });
      return ok({
        events: result.events,
        tags: result.tags,
        ...(searchProfiles ? { profiles: [] } : {}),
        pagination: { hasMore: (page - 1) * limit + result.events.length < result.totalEvents, totalResults: result.totalEvents },
      });
    });
}
