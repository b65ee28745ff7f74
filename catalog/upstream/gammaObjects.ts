// The stored form of an upstream object: every field the upstream sent, kept so that any field of the real
// shape can be served, minus the arrays that are relations (those live in link tables and are rebuilt per
// request), with three normalisations the spec requires of every response:
// - `id` is text (spec 2.4: "numeric id as text");
// - top-level dates named *Date, createdAt, updatedAt are ISO 8601 (legacy "2026-05-28 05:29:05+00" is
//   rewritten; spec 2 "Types");
// - the string-array fields are text holding JSON (spec 2.4), also when the upstream sent a real array.

import { idOf, isObject, isoDateOf, jsonTextArrayOf, type GammaObject } from './gammaValues.js';

export type CatalogKind = 'market' | 'event' | 'series' | 'tag';

/** Relation arrays of each kind of object: stored as links, never inside the object. */
export const RELATION_KEYS: Readonly<Record<CatalogKind, readonly string[]>> = {
  market: ['events'],
  event: ['markets', 'tags', 'series'],
  series: ['events'],
  tag: [],
};

/** Fields of a market that are JSON-encoded string arrays on the wire. */
export const JSON_TEXT_ARRAY_FIELDS = ['outcomes', 'outcomePrices', 'clobTokenIds', 'umaResolutionStatuses', 'shortOutcomes'] as const;

const isDateKey = (key: string): boolean => key.endsWith('Date') || key === 'createdAt' || key === 'updatedAt';

/** The stored form of an upstream object, or undefined when it is not an object with an id. */
export function storedObject(kind: CatalogKind, value: unknown): GammaObject | undefined {
  if (!isObject(value)) return undefined;
  const id = idOf(value.id);
  if (id === undefined) return undefined;
  const relations = RELATION_KEYS[kind];
  const out: GammaObject = {};
  for (const [key, field] of Object.entries(value)) {
    if (relations.includes(key) || key === '$schema') continue;
    if (typeof field === 'string' && isDateKey(key)) out[key] = isoDateOf(field);
    else out[key] = field;
  }
  out.id = id;
  if (kind === 'market') {
    for (const key of JSON_TEXT_ARRAY_FIELDS) {
      const text = jsonTextArrayOf(value[key]);
      if (text !== undefined) out[key] = text;
    }
  }
  return out;
}

/** The nested objects of a relation array (ids alone are accepted too, as `{id}`). */
export function nestedObjects(value: unknown): GammaObject[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: GammaObject[] = [];
  for (const item of value) {
    if (isObject(item)) out.push(item);
    else if (idOf(item) !== undefined) out.push({ id: idOf(item) });
  }
  return out;
}
