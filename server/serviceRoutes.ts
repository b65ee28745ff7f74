// The service's own endpoints at the root: Prometheus metrics, the OpenAPI document, liveness (/health) and
// readiness (/ready).

import type { RouteDef } from '../api/http/apiTypes.js';
import { ok } from '../api/http/apiTypes.js';
import { openApiDocument } from '../api/http/openApi.js';
import type { ServiceMetrics } from './metrics.js';
import { SERVICE_VERSION } from './version.js';

export interface ServiceRouteDeps {
  readonly metrics: ServiceMetrics;
  /** The public routes the OpenAPI document describes. */
  readonly documented: readonly RouteDef[];
  readonly native: boolean;
  /** Whether this process can serve what it is for now (its engine state caught up, its connections up). */
  readonly ready: () => Readiness;
}

/** Readiness: ready, or why not (each part that is not). */
export interface Readiness {
  readonly ready: boolean;
  readonly problems: readonly string[];
}

export const READY: Readiness = { ready: true, problems: [] };

export function serviceRoutes(deps: ServiceRouteDeps): RouteDef[] {
  let document: string | undefined;
  const routes: RouteDef[] = [
    {
      method: 'GET',
      path: '/metrics',
      surface: 'service',
      summary: 'Prometheus metrics (text exposition format).',
      response: { type: 'string' },
      handler: async () => ok(await deps.metrics.text(), { 'content-type': 'text/plain; version=0.0.4' }),
    },
    {
      method: 'GET',
      path: '/openapi.json',
      surface: 'service',
      summary: 'This OpenAPI 3.1 document.',
      response: { type: 'string' },
      handler: () => {
        document ??= JSON.stringify(openApiDocument([...deps.documented, ...routes], SERVICE_VERSION));
        return ok(document, { 'content-type': 'application/json' });
      },
    },
    {
      method: 'GET',
      path: '/health',
      surface: 'service',
      summary: 'Liveness: the process serves requests.',
      response: { type: 'object', properties: { status: { type: 'string' }, uwsNative: { type: 'boolean' } }, required: ['status', 'uwsNative'], additionalProperties: false },
      handler: () => ok({ status: 'ok', uwsNative: deps.native }),
    },
    {
      method: 'GET',
      path: '/ready',
      surface: 'service',
      summary: 'Readiness: 200 when this process serves current state (its engine state caught up, its connections up), else 503 with the reasons.',
      response: { type: 'object', properties: { ready: { type: 'boolean' }, problems: { type: 'array', items: { type: 'string' } } }, required: ['ready', 'problems'], additionalProperties: false },
      handler: () => {
        const r = deps.ready();
        return r.ready ? ok(r) : { status: 503, body: r };
      },
    },
  ];
  return routes;
}
