// The catalog surface's routes, for the HTTP server to mount (under its /catalog prefix and, where no other
// surface claims the path, at the root: see design.md "Three surfaces on one server").

import type { CatalogDb } from '../../catalog/queries.js';
import { eventsHandlers } from './eventsHandlers.js';
import type { Handler } from './handlerTypes.js';
import { marketsHandlers } from './marketsHandlers.js';
import { publicSearchHandler } from './publicSearchHandler.js';
import { seriesHandler, tagsHandler } from './seriesTagsHandlers.js';

export interface CatalogRoute {
  readonly method: 'GET';
  /** Path with `{name}` parameters. Literal segments win over parameters (/markets/slug/x is not an id). */
  readonly path: string;
  readonly handler: Handler;
}

export function catalogRoutes(catalog: CatalogDb): CatalogRoute[] {
  const markets = marketsHandlers(catalog);
  const events = eventsHandlers(catalog);
  return [
    { method: 'GET', path: '/markets', handler: markets.list },
    { method: 'GET', path: '/markets/slug/{slug}', handler: markets.bySlug },
    { method: 'GET', path: '/markets/{id}', handler: markets.byId },
    { method: 'GET', path: '/events', handler: events.list },
    { method: 'GET', path: '/events/slug/{slug}', handler: events.bySlug },
    { method: 'GET', path: '/events/{id}', handler: events.byId },
    { method: 'GET', path: '/series', handler: seriesHandler(catalog) },
    { method: 'GET', path: '/tags', handler: tagsHandler(catalog) },
    { method: 'GET', path: '/public-search', handler: publicSearchHandler(catalog) },
  ];
}
