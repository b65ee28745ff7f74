// GET /events, GET /events/{id} (an integer), GET /events/slug/{slug}.

import { EVENT_SORT_COLUMNS, findEvent, listEvents, type CatalogDb, type EventFilter } from '../../catalog/queries.js';
import { answering, badRequest, idNotFound, ok, slugNotFound } from './catalogErrors.js';
import type { Handler } from './handlerTypes.js';
import { bool, creatorOf, intList, list, LIMITS, pageOf, sortOf } from './queryParams.js';

export function eventFilterOf(query: URLSearchParams): EventFilter {
  return {
    ids: intList(query, 'id'),
    active: bool(query, 'active'),
    closed: bool(query, 'closed'),
    archived: bool(query, 'archived'),
    tagSlugs: list(query, 'tag_slug', 'tag'),
    tagIds: intList(query, 'tag_id'),
    seriesSlugs: list(query, 'series_slug'),
    slugs: list(query, 'slug'),
    creator: creatorOf(query),
  };
}

export interface EventsHandlers {
  readonly list: Handler;
  readonly byId: Handler;
  readonly bySlug: Handler;
}

export function eventsHandlers(catalog: CatalogDb): EventsHandlers {
  return {
    list: (req) =>
      answering(async () => {
        const filter = eventFilterOf(req.query);
        return ok(await listEvents(catalog, filter, sortOf(req.query, EVENT_SORT_COLUMNS), pageOf(req.query, LIMITS.events)));
      }),
    byId: (req) =>
      answering(async () => {
        const id = (req.params.id ?? '').trim();
        // The spec types this id as an integer: anything else is a malformed request, not a missing event.
        if (!/^\d{1,20}$/.test(id)) return badRequest('id must be an integer');
        const event = await findEvent(catalog, { id }, creatorOf(req.query));
        return event === undefined ? idNotFound() : ok(event);
      }),
    bySlug: (req) =>
      answering(async () => {
        const slug = (req.params.slug ?? '').trim();
        const event = slug === '' ? undefined : await findEvent(catalog, { slug }, creatorOf(req.query));
        return event === undefined ? slugNotFound() : ok(event);
      }),
  };
}
