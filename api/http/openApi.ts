// The OpenAPI 3.1 document, generated from the same route definitions and schemas the server validates and
// serialises with. Each route appears under its surface prefix; the root aliases are described in the
// document's description (rootRules.ts).

import { API_ERRORS } from './apiErrors.js';
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

function errorResponses(route: RouteDef): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  const codes = new Set([...(route.errors ?? []), 'rate_limited', 'internal'] as const);
  for (const code of codes) {
    const spec = API_ERRORS[code];
    const key = String(spec.status);
    const typed = route.surface === 'catalog' && 'catalogType' in spec;
    const prior = (out[key]?.description as string | undefined) ?? '';
    out[key] = {
      description: prior === '' ? spec.when : `${prior} ${spec.when}`,
      content: { 'application/json': { schema: typed ? { type: 'object', properties: { type: { type: 'string' }, error: { type: 'string' } }, required: ['type', 'error'] } : { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] } } },
    };
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
        rules,
    },
    paths,
  };
}
