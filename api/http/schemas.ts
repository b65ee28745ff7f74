// Compiles every route's schemas once at start: ajv validators for the path parameters, the query and the
// body, and a fast-json-stringify serialiser for the 200 body. The same schema objects feed openApi.ts, so
// what is validated, what is sent and what is documented cannot drift apart.
//
// A value that does not fit answers the error its schema names (`x-error`, `x-error-<keyword>`: apiTypes.ts
// ErrorRule), found on the failing schema or the nearest one around it; without one, a 400 naming the
// parameter (`Invalid payload` for an order-book body). When several values are wrong, the first in the
// schema's property order is reported, a missing one counting where it would be.

import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fastJson from 'fast-json-stringify';
import { ApiError, badRequest, type ApiErrorCode } from './apiErrors.js';
import type { ErrorRule, JsonSchema, RouteDef } from './apiTypes.js';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats));

// Queries and path parameters arrive as strings: ajv coerces them to the schema's integer, number and boolean
// types. Bodies are JSON and are not coerced. Unknown body keys are allowed unless a schema says otherwise.
// Every error is collected (allErrors), so that the one reported is the first in property order.
const options = { useDefaults: true, allErrors: true, verbose: true, strict: false } as const;
const queryAjv = new Ajv2020({ ...options, coerceTypes: true });
const bodyAjv = new Ajv2020({ ...options, coerceTypes: false });
addFormats(queryAjv);
addFormats(bodyAjv);

export type Stringify = (body: unknown) => string;

export interface CompiledRoute {
  readonly def: RouteDef;
  /** Names of array-typed query parameters (comma-separated on the wire). */
  readonly arrayParams: ReadonlySet<string>;
  readonly knownParams: ReadonlySet<string>;
  /** Query parameters read as sent even in a lax query: the members of a group (dependentGroups). */
  readonly exactParams: ReadonlySet<string>;
  readonly validateQuery: ValidateFunction | undefined;
  readonly validateParams: ValidateFunction | undefined;
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
    exactParams: new Set(def.query === undefined ? [] : dependentGroups(def.query).flat()),
    validateQuery: def.query === undefined ? undefined : queryAjv.compile({ ...def.query, type: 'object' }),
    validateParams: def.params === undefined ? undefined : queryAjv.compile({ ...def.params, type: 'object' }),
    validateBody: def.body === undefined ? undefined : bodyAjv.compile(def.body),
    stringify: textBody ? (body) => String(body) : (fastJson(def.response as unknown as Parameters<typeof fastJson>[0]) as Stringify),
    textBody,
  };
}

/**
 * The query as an object for validation, values as sent (nothing trimmed). Array parameters: every
 * comma-separated item of every occurrence, as OpenAPI's form style writes a list (`a,,b` has an empty item and
 * `x=` is the list of one empty item, which the item's schema judges; an empty list is no parameter at all).
 * Other parameters: the first value; an empty one (`x=`) counts as absent (as upstream), except in a strict
 * query (the activity surface), where "" is a value like any other, and for the members of a group of
 * parameters (OpenAPI writes such a member's empty or null value as `x=` too, so it must be refused as one).
 */
export function queryObject(route: CompiledRoute, query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const strict = route.def.strictQuery === true;
  for (const [key, value] of query) {
    if (route.arrayParams.has(key)) out[key] = [...((out[key] as string[] | undefined) ?? []), ...value.split(',')];
    else if (!(key in out) && (strict || value !== '' || route.exactParams.has(key))) out[key] = value;
  }
  return out;
}

/** Names a schema's `required` lists (at any depth) mention. */
function mentioned(schema: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) mentioned(item, into);
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'required' && Array.isArray(value)) for (const name of value) into.add(String(name));
      else if (key === 'properties' && value !== null && typeof value === 'object') for (const name of Object.keys(value)) into.add(name);
      else mentioned(value, into);
    }
  }
  return into;
}

/**
 * Query properties that `dependentRequired` / `dependentSchemas` tie together, in groups: each group is
 * documented as one form-exploded object parameter (its properties go on the wire as parameters of their
 * own), the only place OpenAPI lets a rule span several parameters.
 */
export function dependentGroups(query: JsonSchema): string[][] {
  const edges: [string, string[]][] = [];
  for (const [name, deps] of Object.entries((query.dependentRequired ?? {}) as Record<string, string[]>)) edges.push([name, deps]);
  for (const [name, sub] of Object.entries((query.dependentSchemas ?? {}) as Record<string, unknown>)) edges.push([name, [...mentioned(sub, new Set())]]);
  const groups: Set<string>[] = [];
  for (const [name, deps] of edges) {
    const joined = new Set([name, ...deps]);
    for (const group of groups.filter((g) => [...joined].some((n) => g.has(n)))) {
      for (const n of group) joined.add(n);
      groups.splice(groups.indexOf(group), 1);
    }
    groups.push(joined);
  }
  const order = Object.keys((query.properties ?? {}) as object);
  return groups.map((g) => order.filter((n) => g.has(n)));
}

/** The first unknown parameter of a strict query, if any. */
export function unknownParam(route: CompiledRoute, query: URLSearchParams): string | undefined {
  for (const key of query.keys()) if (!route.knownParams.has(key)) return key;
  return undefined;
}

/** Checks the path parameters against the route's schema; throws the error they answer. */
export function checkParams(route: CompiledRoute, params: Readonly<Record<string, string>>): void {
  const validate = route.validateParams;
  if (validate !== undefined && !validate({ ...params })) throw inputError(route.def, 'params', validate.errors);
}

/** The query, validated and coerced; raw strings when the route has no query schema. Throws the error it answers. */
export function checkQuery(route: CompiledRoute, query: URLSearchParams): Record<string, unknown> {
  const validate = route.validateQuery;
  if (validate === undefined) return Object.fromEntries(query);
  const q = queryObject(route, query);
  if (!validate(q)) throw inputError(route.def, 'query', validate.errors);
  return q;
}

/** The body, parsed and validated; undefined without a body schema, or when an optional body is left out. */
export function checkBody(route: CompiledRoute, raw: string): unknown {
  const validate = route.validateBody;
  if (validate === undefined || (route.def.bodyOptional === true && raw.trim() === '')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    const rule = (route.def.body as JsonSchema)['x-error'] as ErrorRule | undefined;
    throw errorOf(rule, route.def.surface === 'clob' ? 'invalid_payload' : 'bad_request', raw === '' ? 'a JSON body is required' : 'body is not valid JSON', {});
  }
  if (!validate(body)) throw inputError(route.def, 'body', validate.errors);
  return body;
}

type Where = 'query' | 'params' | 'body';

/** The error a request answers for its inputs' schema errors (see the head of this file). */
export function inputError(def: RouteDef, where: Where, errors: readonly ErrorObject[] | null | undefined): ApiError {
  const root = (where === 'query' ? def.query : where === 'params' ? def.params : def.body) as JsonSchema;
  const order = Object.keys(propertiesOf(root));
  const rank = (e: ErrorObject): number => {
    const name = topProperty(e);
    return name === undefined ? -1 : order.indexOf(name);
  };
  // The first property's error; of its errors, the outermost (an anyOf rather than one of its branches).
  const depth = (e: ErrorObject): number => e.schemaPath.split('/').length;
  const first = [...(errors ?? [])].sort((a, b) => rank(a) - rank(b) || depth(a) - depth(b))[0];
  const fallback: ApiErrorCode = where === 'body' && def.surface === 'clob' ? 'invalid_payload' : 'bad_request';
  if (first === undefined) return errorOf(undefined, fallback, `invalid ${where}`, {});
  const generic = validationError([first], where === 'body' ? 'body' : 'query').message;
  const data = first.data;
  const values = { count: Array.isArray(data) ? data.length : 0, max: Number((first.params as { limit?: number }).limit ?? 0), limit: Number((first.params as { limit?: number }).limit ?? 0) };
  const name = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  return errorOf(ruleFor(root, first), fallback, generic, values, typeof data === 'string' ? data.slice(0, 100) : JSON.stringify(data)?.slice(0, 100), name);
}

/** The top-level property an error is about (a missing one included); undefined for the whole object. */
function topProperty(e: ErrorObject): string | undefined {
  const p = e.params as { missingProperty?: string };
  const path = e.instancePath.split('/').slice(1);
  if (path.length > 0) return decodePointer(path[0] as string);
  if ((e.keyword === 'required' || e.keyword === 'dependentRequired') && p.missingProperty !== undefined) return p.missingProperty;
  const dependent = /^#\/dependentSchemas\/([^/]+)\//.exec(e.schemaPath);
  return dependent === null ? undefined : decodePointer(dependent[1] as string);
}

const decodePointer = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/**
 * The rule of the schema that failed, or of the nearest one around it: walks the error's schema path from the
 * root, remembering each `x-error` passed; at the failing schema, `x-error-<keyword>` comes first, and a
 * missing property answers its own schema's rule.
 */
function ruleFor(root: JsonSchema, e: ErrorObject): ErrorRule | undefined {
  const segments = e.schemaPath.replace(/^#\/?/, '').split('/').filter((s) => s !== '').map(decodePointer);
  let node: unknown = root;
  let found = root['x-error'] as ErrorRule | undefined;
  // The last segment is the keyword itself.
  for (const segment of segments.slice(0, -1)) {
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined;
    const rule = node !== null && typeof node === 'object' && !Array.isArray(node) ? ((node as JsonSchema)['x-error'] as ErrorRule | undefined) : undefined;
    if (rule !== undefined) found = rule;
  }
  const parent = (node !== null && typeof node === 'object' ? node : {}) as JsonSchema;
  const missing = (e.params as { missingProperty?: string }).missingProperty;
  if ((e.keyword === 'required' || e.keyword === 'dependentRequired') && missing !== undefined) {
    const property = propertiesOf(parent)[missing];
    const own = property?.['x-error'] as ErrorRule | undefined;
    if (own !== undefined) return own;
  }
  return (parent[`x-error-${e.keyword}`] as ErrorRule | undefined) ?? found;
}

/** The ApiError of a rule; a fixed detail may name the failing value as `{value}` and where it is as `{name}` (tokenIds.1). */
function errorOf(rule: ErrorRule | undefined, fallback: ApiErrorCode, detail: string, values: Readonly<Record<string, number>>, value = '', name = ''): ApiError {
  const code = rule === undefined ? fallback : typeof rule === 'string' ? rule : rule.code;
  const fixed = rule !== undefined && typeof rule !== 'string' ? rule.detail?.replace('{value}', value).replace('{name}', name) : undefined;
  return new ApiError(code, { ...values, detail: fixed ?? detail });
}

/** Turns ajv's first error into the 400 a client reads: the parameter (or body path) and what is wrong. */
export function validationError(errors: readonly ErrorObject[] | null | undefined, where: 'query' | 'body'): ApiError {
  const e = errors?.[0];
  if (e === undefined) return badRequest(`invalid ${where}`);
  const path = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const name = where === 'query' ? path.split('.')[0] || path : path === '' ? 'body' : path;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return badRequest(`${where === 'query' ? '' : name === 'body' ? '' : `${name}.`}${String(p.missingProperty)} is required`);
    case 'dependentRequired':
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
      return badRequest(`${name} must have at least ${String(p.limit)} ${p.limit === 1 ? 'item' : 'items'}`);
    case 'uniqueItems':
      return badRequest(`${name} must not repeat an item`);
    case 'minProperties':
      return badRequest(`${name} must have at least ${String(p.limit)} properties`);
    case 'additionalProperties':
      return badRequest(`${name === 'body' ? '' : `${name}.`}${String(p.additionalProperty)} is not allowed`);
    default:
      return badRequest(`${name || 'the query'} is malformed`);
  }
}

function article(type: string): string {
  const t = type.split(',')[0] ?? type;
  return /^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`;
}
