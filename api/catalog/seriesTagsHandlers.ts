// GET /series (limit 1..100, default 20; offset >= 0, spec 8.4) and GET /tags.

import { listSeries, listTags, type CatalogDb } from '../../catalog/queries.js';
import { answering, ok } from './catalogErrors.js';
import type { Handler } from './handlerTypes.js';
import { creatorOf, LIMITS, pageOf } from './queryParams.js';

export function seriesHandler(catalog: CatalogDb): Handler {
  return (req) => answering(async () => ok(await listSeries(catalog, pageOf(req.query, LIMITS.series), creatorOf(req.query))));
}

export function tagsHandler(catalog: CatalogDb): Handler {
  return (req) => answering(async () => ok(await listTags(catalog, pageOf(req.query, LIMITS.tags), creatorOf(req.query))));
}
