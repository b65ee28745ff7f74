// Response shapes of the catalog surface (spec 2.4–2.6, 2.13), built from stored upstream objects. Every
// field the upstream sent is served; the fields the spec names are guaranteed (text '' and booleans false
// when the upstream left them out; dates only when known). Relation arrays are attached per form:
//
// | form                 | relations                                                                   |
// |----------------------|-----------------------------------------------------------------------------|
// | market, list         | events: [{id, ticker, slug, title}]                                          |
// | market, single       | events: full event summaries (event fields, no markets/tags/series)          |
// | market, in an event  | no events                                                                   |
// | event, list          | tags; no markets, series, eventMetadata                                      |
// | event, single        | tags, markets (in-event form), series (no events), eventMetadata ({} if none) |
// | event, in a series   | no tags, markets, series, eventMetadata                                      |
// | series               | events (in-series form)                                                     |

import type { GammaObject } from './upstream/gammaValues.js';

const MARKET_TEXT = ['question', 'conditionId', 'slug', 'resolutionSource', 'image', 'icon', 'description', 'questionID'] as const;
const EVENT_TEXT = ['ticker', 'slug', 'title', 'description', 'resolutionSource', 'image', 'icon'] as const;
const SERIES_TEXT = ['ticker', 'slug', 'title', 'seriesType', 'recurrence', 'image', 'icon'] as const;
const FLAGS = ['active', 'closed', 'archived'] as const;
const EVENT_SUMMARY_FIELDS = ['id', 'ticker', 'slug', 'title', 'description', 'resolutionSource', 'startDate', 'creationDate', 'endDate', 'image', 'icon', 'active', 'closed', 'archived', 'createdAt', 'updatedAt'] as const;

function withDefaults(object: GammaObject, texts: readonly string[], flags: readonly string[] = FLAGS): GammaObject {
  const out: GammaObject = { ...object };
  for (const key of texts) if (typeof out[key] !== 'string') out[key] = '';
  for (const key of flags) if (typeof out[key] !== 'boolean') out[key] = out[key] === 'true';
  return out;
}

function without(object: GammaObject, keys: readonly string[]): GammaObject {
  const out: GammaObject = {};
  for (const [key, value] of Object.entries(object)) if (!keys.includes(key)) out[key] = value;
  return out;
}

export function marketBase(market: GammaObject): GammaObject {
  const out = withDefaults(market, MARKET_TEXT);
  if (typeof out.outcomes !== 'string') out.outcomes = '[]';
  if (typeof out.clobTokenIds !== 'string') out.clobTokenIds = '[]';
  return out;
}

export function eventListSummary(event: GammaObject): GammaObject {
  const out = withDefaults(event, EVENT_TEXT);
  return { id: out.id, ticker: out.ticker, slug: out.slug, title: out.title };
}

export function eventFullSummary(event: GammaObject): GammaObject {
  const out = withDefaults(event, EVENT_TEXT);
  const summary: GammaObject = {};
  for (const key of EVENT_SUMMARY_FIELDS) if (out[key] !== undefined) summary[key] = out[key];
  return summary;
}

export function marketListForm(market: GammaObject, events: readonly GammaObject[]): GammaObject {
  return { ...marketBase(market), events: events.map(eventListSummary) };
}

export function marketSingleForm(market: GammaObject, events: readonly GammaObject[]): GammaObject {
  return { ...marketBase(market), events: events.map(eventFullSummary) };
}

export function tagForm(tag: GammaObject): GammaObject {
  const out = withDefaults(tag, ['label', 'slug'], []);
  if (typeof out.requiresTranslation !== 'boolean') out.requiresTranslation = false;
  return out;
}

/** An event without any relation: the base of every event form. */
export function eventBase(event: GammaObject): GammaObject {
  return without(withDefaults(event, EVENT_TEXT), ['markets', 'tags', 'series', 'eventMetadata']);
}

export function eventListForm(event: GammaObject, tags: readonly GammaObject[]): GammaObject {
  return { ...eventBase(event), tags: tags.map(tagForm) };
}

export function seriesBase(series: GammaObject): GammaObject {
  return without(withDefaults(series, SERIES_TEXT), ['events']);
}

export function eventSingleForm(event: GammaObject, tags: readonly GammaObject[], markets: readonly GammaObject[], series: readonly GammaObject[]): GammaObject {
  const metadata = event.eventMetadata;
  return {
    ...eventBase(event),
    tags: tags.map(tagForm),
    markets: markets.map(marketBase),
    series: series.map(seriesBase),
    eventMetadata: typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? metadata : {},
  };
}

export function seriesForm(series: GammaObject, events: readonly GammaObject[]): GammaObject {
  return { ...seriesBase(series), events: events.map(eventBase) };
}

/** A search hit (spec 2.13). */
export function searchEventForm(event: { id: string; ticker: string; slug: string; title: string }): GammaObject {
  return { id: event.id, ticker: event.ticker, slug: event.slug, title: event.title };
}
