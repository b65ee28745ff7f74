// The OpenAPI 3.1 document, generated from the same route definitions and schemas the server validates and
// serialises with. Each route appears under its surface prefix; the root aliases are described in the
// document's description (rootRules.ts). Each operation lists every status it can answer: its handler's
// declared errors, those the server adds from the route's shape (rate limits, query and body validation, the
// body cap, the activity allowlist) and the header edge's refusals. HEAD and OPTIONS, which every path
// answers (httpServer.ts), are described in the document's description rather than per path.

import { API_ERRORS, EDGE_ERRORS, type ApiErrorCode, type ApiErrorSpec, type EdgeErrorCode } from './apiErrors.js';
import type { JsonSchema, RouteDef } from './apiTypes.js';
import { ROOT_RULES } from './rootRules.js';

const PREFIX: Readonly<Record<RouteDef['surface'], string>> = { catalog: '/catalog', activity: '/activity', clob: '/clob', service: '' };

function parametersOf(route: RouteDef): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const match of route.path.matchAll(/\{(\w+)\}/g)) out.push({ name: match[1], in: 'path', required: true, schema: { type: 'string' } });
  const props = (route.query?.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((route.query?.required as string[] | undefined) ?? []);
  for (const [name, schema] of Object.entries(props)) {
    const { description, ...rest } = schema as { description?: string; type?: unknown };
    const isArray = rest.type === 'array';
    out.push({
      name,
      in: 'query',
      required: required.has(name),
      ...(description === undefined ? {} : { description: isArray ? `${description} Comma-separated.` : description }),
      ...(isArray ? { style: 'form', explode: false } : {}),
      schema: rest,
    });
  }
  return out;
}

/** The error codes the server itself may answer a route with, whatever its handler does (httpServer.ts). */
function serverErrors(route: RouteDef): ApiErrorCode[] {
  const codes: ApiErrorCode[] = ['rate_limited', route.surface === 'activity' ? 'internal_db' : 'internal'];
  if (route.query !== undefined) codes.push('bad_request');
  if (route.strictQuery === true) codes.push('unknown_field');
  if (route.surface === 'activity') codes.push('ip_not_allowlisted');
  if (route.method !== 'GET') codes.push('body_too_large');
  if (route.body !== undefined) codes.push(route.surface === 'clob' ? 'invalid_payload' : 'bad_request');
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
      tags: [route.surface],
      parameters: parametersOf(route),
      ...(route.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } }),
      responses: {
        200: { description: 'OK', content: { [text ? 'text/plain' : 'application/json']: { schema: route.response } } },
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
        '\n\nEvery GET path also answers HEAD (headers only). Every path answers OPTIONS with 204 and `Allow` (and, for a CORS preflight from an allowed origin, the CORS headers), and any other method with 405 and `Allow`; a method the server does not know gets 501. HTTP/1.0 and HTTP/1.1 are served; bodies above a size threshold (16 KiB by default) are compressed with br or gzip when Accept-Encoding allows.',
    },
    paths,
  };
}
