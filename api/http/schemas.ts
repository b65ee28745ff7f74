// Compiles every route's schemas once at start: ajv validators for the query and the body, and a
// fast-json-stringify serialiser for the 200 body. The same schema objects feed openApi.ts, so what is
// validated, what is sent and what is documented cannot drift apart.

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fastJson from 'fast-json-stringify';
import { ApiError, badRequest } from './apiErrors.js';
import type { JsonSchema, RouteDef } from './apiTypes.js';

type AddFormats = (ajv: Ajv) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats));

// Queries arrive as strings: ajv coerces them to the schema's integer, number and boolean types. Bodies are
// JSON and are not coerced. Unknown body keys are allowed unless a schema says otherwise.
const queryAjv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: false, strict: false });
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, allErrors: false, strict: false });
addFormats(queryAjv);
addFormats(bodyAjv);

export type Stringify = (body: unknown) => string;

export interface CompiledRoute {
  readonly def: RouteDef;
  /** Names of array-typed query parameters (comma-separated on the wire). */
  readonly arrayParams: ReadonlySet<string>;
  readonly knownParams: ReadonlySet<string>;
  readonly validateQuery: ValidateFunction | undefined;
  readonly validateBody: ValidateFunction | undefined;
  readonly stringify: Stringify;
  readonly textBody: boolean;
}

function propertiesOf(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  const props = schema?.properties;
  return props !== null && typeof props === 'object' ? (props as Record<string, JsonSchema>) : {};
}

function isArraySchema(schema: JsonSchema): boolean {
  const t = schema.type;
  return t === 'array' || (Array.isArray(t) && t.includes('array'));
}

export function compileRoute(def: RouteDef): CompiledRoute {
  const props = propertiesOf(def.query);
  const arrayParams = new Set(Object.entries(props).filter(([, s]) => isArraySchema(s)).map(([name]) => name));
  const textBody = def.response.type === 'string';
  return {
    def,
    arrayParams,
    knownParams: new Set(Object.keys(props)),
    validateQuery: def.query === undefined ? undefined : queryAjv.compile({ ...def.query, type: 'object' }),
    validateBody: def.body === undefined ? undefined : bodyAjv.compile(def.body),
    stringify: textBody ? (body) => String(body) : (fastJson(def.response as unknown as Parameters<typeof fastJson>[0]) as Stringify),
    textBody,
  };
}

/**
 * The query as an object for validation: the first non-empty value of each parameter, array parameters as
 * every comma-separated item of every occurrence. Empty values count as absent (as upstream).
 */
export function queryObject(route: CompiledRoute, query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of query) {
    if (route.arrayParams.has(key)) {
      const items = value.split(',').map((v) => v.trim()).filter((v) => v !== '');
      if (items.length > 0) out[key] = [...((out[key] as string[] | undefined) ?? []), ...items];
    } else if (!(key in out) && value.trim() !== '') {
      out[key] = value.trim();
    }
  }
  return out;
}

/** The first unknown parameter of a strict query, if any. */
export function unknownParam(route: CompiledRoute, query: URLSearchParams): string | undefined {
  for (const key of query.keys()) if (!route.knownParams.has(key)) return key;
  return undefined;
}

/** Turns ajv's first error into the 400 a client reads: the parameter (or body path) and what is wrong. */
export function validationError(errors: readonly ErrorObject[] | null | undefined, where: 'query' | 'body'): ApiError {
  const e = errors?.[0];
  if (e === undefined) return badRequest(`invalid ${where}`);
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const name = where === 'query' ? path.split('.')[0] ?? path : path === '' ? 'body' : path;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return badRequest(`${where === 'query' ? '' : name === 'body' ? '' : `${name}.`}${String(p.missingProperty)} is required`);
    case 'type':
      return badRequest(`${name} must be ${article(String(p.type))}`);
    case 'enum':
      return badRequest(`${name} must be one of ${(p.allowedValues as unknown[]).join(', ')}`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return badRequest(`${name} must be ${String(p.comparison)} ${String(p.limit)}`);
    case 'maxLength':
      return badRequest(`${name} must be at most ${String(p.limit)} characters`);
    case 'minLength':
      return badRequest(`${name} must not be empty`);
    case 'maxItems':
      return badRequest(`${name} must have at most ${String(p.limit)} items`);
    case 'minItems':
      return badRequest(`${name} must have at least ${String(p.limit)} items`);
    case 'additionalProperties':
      return badRequest(`${name === 'body' ? '' : `${name}.`}${String(p.additionalProperty)} is not allowed`);
    default:
      return badRequest(`${name} is malformed`);
  }
}

function article(type: string): string {
  const t = type.split(',')[0] ?? type;
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}
