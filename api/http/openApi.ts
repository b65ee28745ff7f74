// The OpenAPI 3.1 document, generated from the same route definitions and schemas the server validates and
// serialises with, so it states every rule of a request's form the service enforces: path parameters, query
// parameters (an optional one on /catalog and /clob `allowEmptyValue`, as the server reads `x=` as absent;
// parameters tied by `dependentRequired` / `dependentSchemas` as one form-exploded object parameter, the one
// place such a rule fits) and bodies (optional ones not required). Schemas go out without their `x-error`
// annotations, whose codes are listed as responses instead. Each route appears under its surface prefix; the
// root aliases are described in the document's description (rootRules.ts). Each operation lists every status
// it can answer: its handler's declared errors, those the server adds from the route's shape (rate limits,
// query and body validation, the body cap, the activity allowlist), those its schemas name, and the header
// edge's refusals. HEAD and OPTIONS, which every path answers (httpServer.ts), are described in the
// document's description rather than per path. test/api/openapiFuzz.test.ts holds the service to it.

import { API_ERRORS, EDGE_ERRORS, type ApiErrorCode, type ApiErrorSpec, type EdgeErrorCode } from './apiErrors.js';
import type { JsonSchema, RouteDef } from './apiTypes.js';
import { ROOT_RULES } from './rootRules.js';
import { dependentGroups } from './schemas.js';

const PREFIX: Readonly<Record<RouteDef['surface'], string>> = { catalog: '/catalog', activity: '/activity', clob: '/clob', service: '' };

/** `schema` without its `x-error` annotations (their codes are documented as responses instead), deeply. */
function documented(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(documented);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) if (!key.startsWith('x-error')) out[key] = documented(value);
  return out;
}

/** Every error code an `x-error` of the schema names. */
function ruleCodes(schema: unknown, into: Set<ApiErrorCode>): Set<ApiErrorCode> {
  if (Array.isArray(schema)) for (const item of schema) ruleCodes(item, into);
  else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key.startsWith('x-error')) into.add((typeof value === 'string' ? value : (value as { code: ApiErrorCode }).code) as ApiErrorCode);
      else ruleCodes(value, into);
    }
  }
  return into;
}

/** A group parameter's name: the common prefix of its members (filterType, filterAmount → filter), else their names joined. */
function groupName(names: readonly string[]): string {
  let prefix = names[0] ?? '';
  for (const n of names) while (!n.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix.length >= 3 ? prefix : names.join('_');
}


function parametersOf(route: RouteDef): JsonSchema[] {
  const out: JsonSchema[] = [];
  const pathProps = (route.params?.properties ?? {}) as Record<string, JsonSchema>;
  for (const match of route.path.matchAll(/\{(\w+)\}/g)) {
    const name = match[1] as string;
    const { description, ...schema } = (pathProps[name] ?? { type: 'string' }) as { description?: string };
    out.push({ name, in: 'path', required: true, ...(description === undefined ? {} : { description }), schema: documented(schema) });
  }
  const query = route.query;
  if (query === undefined) return out;
  const props = (query.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((query.required as string[] | undefined) ?? []);
  const lax = route.strictQuery !== true;
  const groups = dependentGroups(query);
  const grouped = new Set(groups.flat());
  for (const [name, schema] of Object.entries(props)) {
    const group = groups.find((g) => g[0] === name);
    if (group !== undefined) {
      // Members are read as sent, an empty value included (schemas.ts queryObject).
      const members = Object.fromEntries(group.map((n) => [n, documented(props[n])]));
      const pick = (rules: unknown): Record<string, unknown> | undefined => {
        const kept = Object.entries((rules ?? {}) as Record<string, unknown>).filter(([n]) => group.includes(n));
        return kept.length === 0 ? undefined : Object.fromEntries(kept.map(([n, v]) => [n, documented(v)]));
      };
      const dependentRequired = pick(query.dependentRequired);
      const dependentSchemas = pick(query.dependentSchemas);
      const groupRequired = group.filter((n) => required.has(n));
      out.push({
        name: groupName(group),
        in: 'query',
        required: groupRequired.length > 0,
        description: `${group.join(', ')}: each a query parameter of its own. ${group.map((n) => `${n}: ${String((props[n] as { description?: string }).description ?? '')}`).join(' ')}`.trim(),
        style: 'form',
        explode: true,
        schema: {
          type: 'object',
          properties: members,
          ...(groupRequired.length === 0 ? {} : { required: groupRequired }),
          ...(dependentRequired === undefined ? {} : { dependentRequired }),
          ...(dependentSchemas === undefined ? {} : { dependentSchemas }),
          additionalProperties: false,
        },
      });
      continue;
    }
    if (grouped.has(name)) continue;
    const { description, ...rest } = schema as { description?: string; type?: unknown };
    const isArray = rest.type === 'array';
    // A list is never empty on the wire (`x=` is one empty item, which its items refuse).
    const optionalEmpty = lax && !required.has(name) && !isArray;
    out.push({
      name,
      in: 'query',
      required: required.has(name),
      ...(description === undefined ? {} : { description: isArray ? `${description} Comma-separated.` : description }),
      ...(isArray ? { style: 'form', explode: false } : {}),
      ...(optionalEmpty ? { allowEmptyValue: true } : {}),
      schema: documented(rest),
    });
  }
  return out;
}

/** The error codes the server itself may answer a route with, whatever its handler does (httpServer.ts). */
function serverErrors(route: RouteDef): ApiErrorCode[] {
  const codes: ApiErrorCode[] = ['rate_limited', route.surface === 'activity' ? 'internal_db' : 'internal'];
  if (route.query !== undefined || route.params !== undefined) codes.push('bad_request');
  if (route.strictQuery === true) codes.push('unknown_field');
  if (route.surface === 'activity') codes.push('ip_not_allowlisted');
  if (route.engineState === true) codes.push('unavailable');
  if (route.method !== 'GET') codes.push('body_too_large');
  if (route.body !== undefined) codes.push(route.surface === 'clob' ? 'invalid_payload' : 'bad_request');
  for (const schema of [route.query, route.params, route.body]) for (const code of ruleCodes(schema, new Set())) codes.push(code);
  return codes;
}

/** What the header edge may answer any request with before a route sees it (edge/edgeErrors.ts). */
const EDGE_CODES: readonly EdgeErrorCode[] = ['malformed_request', 'body_too_large', 'header_too_large', 'upstream_unavailable'];

const ERROR_SCHEMA = { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] };
const TYPED_ERROR_SCHEMA = { type: 'object', properties: { type: { type: 'string' }, error: { type: 'string' } }, required: ['type', 'error'] };
const MAYBE_TYPED_ERROR_SCHEMA = { type: 'object', properties: { type: { type: 'string' }, error: { type: 'string' } }, required: ['error'] };

/**
 * Every status the route can answer other than 200: its handler's codes, the server's and the edge's, each
 * status with the `when` of every code behind it and the body schema they share (catalog errors are typed
 * `{type, error}`; a status that may also come untyped, from the edge, has `type` optional).
 */
function errorResponses(route: RouteDef): Record<string, JsonSchema> {
  const byStatus = new Map<number, { when: string[]; typed: number; untyped: number }>();
  const add = (status: number, when: string, typed: boolean): void => {
    const entry = byStatus.get(status) ?? { when: [], typed: 0, untyped: 0 };
    if (!entry.when.includes(when)) entry.when.push(when);
    if (typed) entry.typed++;
    else entry.untyped++;
    byStatus.set(status, entry);
  };
  for (const code of new Set([...(route.errors ?? []), ...serverErrors(route)])) {
    const spec: ApiErrorSpec = API_ERRORS[code];
    add(spec.status, spec.when, route.surface === 'catalog' && spec.catalogType !== undefined);
  }
  for (const code of EDGE_CODES) add(EDGE_ERRORS[code].status, `(edge) ${EDGE_ERRORS[code].when}`, false);
  const out: Record<string, JsonSchema> = {};
  for (const [status, entry] of [...byStatus].sort(([a], [b]) => a - b)) {
    const schema = entry.untyped === 0 ? TYPED_ERROR_SCHEMA : entry.typed === 0 ? ERROR_SCHEMA : MAYBE_TYPED_ERROR_SCHEMA;
    out[String(status)] = { description: entry.when.join(' '), content: { 'application/json': { schema } } };
  }
  return out;
}

export function openApiDocument(routes: readonly RouteDef[], version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const path = PREFIX[route.surface] + (route.path === '/' && route.surface !== 'service' ? '' : route.path) || '/';
    const text = route.response.type === 'string';
    paths[path] ??= {};
    (paths[path] as Record<string, JsonSchema>)[route.method.toLowerCase()] = {
      summary: route.summary,
      tags: [route.path.startsWith('/operator/') ? 'operator' : route.surface],
      parameters: parametersOf(route),
      ...(route.body === undefined ? {} : { requestBody: { required: route.bodyOptional !== true, content: { 'application/json': { schema: documented(route.body) } } } }),
      responses: {
        200: { description: 'OK', content: { [typeof route.response.contentMediaType === 'string' ? route.response.contentMediaType : text ? 'text/plain' : 'application/json']: { schema: route.response } } },
        ...errorResponses(route),
      },
    };
  }
  const rules = ROOT_RULES.map((r) => `- \`${r.method} ${r.path}\`: ${r.rule}`).join('\n');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Prediction-market exchange',
      version,
      description:
        'Catalog (/catalog), activity (/activity) and order-book and trading (/clob) surfaces. Every path is also served at the root when only one surface has it; shared paths follow these rules:\n' +
        rules +
        '\n\nParameters and bodies: every rule the service applies to their form is in their schemas, and a value that breaks one is answered 400 (the public CLOB\'s message where it has one). On /catalog and /clob an empty query value (`x=`) of a parameter that says allowEmptyValue counts as absent; of any other parameter, and on /activity, it is a value, as in upstream\'s Data API document, so only what the schema admits is taken. A request the schemas admit can still be refused by the state it finds (funds, a market\'s status, a signed request already applied: the engine\'s 400s and 404s). Trading routes authenticate first (the public CLOB\'s L1 or L2 `POLY_*` headers, or a read-only key for private reads), and only then are their parameters and bodies judged; the operator API (/operator, present only when the service runs with an operator token) needs `Authorization: Bearer <token>` first in the same way.' +
        '\n\nEvery GET path also answers HEAD (headers only). Every path answers OPTIONS with 204 and `Allow` (and, for a CORS preflight from an allowed origin, the CORS headers), and any other method with 405 and `Allow`; a method the server does not know gets 501. HTTP/1.0 and HTTP/1.1 are served; bodies above a size threshold (16 KiB by default) are compressed with br or gzip when Accept-Encoding allows.',
    },
    paths,
  };
}
