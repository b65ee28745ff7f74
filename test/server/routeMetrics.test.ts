// The per-route request metrics kept in plain running totals (server/routeMetrics.ts) scrape to the same
// series, values and text as prom-client's own Counter and Histogram fed the same requests, in both the
// Prometheus and the OpenMetrics formats, and through the registry's JSON.

import t from 'tap';
import { Counter, Histogram, Registry, type RegistryContentType } from 'prom-client';
import type { RouteDef } from '../../api/http/apiTypes.js';
import { LATENCY_BUCKETS, RouteMetrics } from '../../server/routeMetrics.js';

const route = (method: 'GET' | 'POST' | 'DELETE', path: string, surface: 'clob' | 'catalog'): RouteDef =>
  ({ method, path, surface, summary: '', handler: () => ({ status: 200, body: {} }) }) as unknown as RouteDef;

const BOOK = route('GET', '/book', 'clob');
const ORDER = route('POST', '/order', 'clob');
const MARKETS = route('GET', '/markets', 'catalog');

/** Requests with latencies on, between and beyond the bucket bounds, and an unmatched one. */
const REQUESTS: readonly (readonly [RouteDef | undefined, number, number])[] = [
  [BOOK, 200, 0.0004], [BOOK, 200, 0.0005], [BOOK, 404, 0.003], [ORDER, 200, 0.007], [ORDER, 400, 0.0001],
  [ORDER, 200, 0.025], [ORDER, 200, 3.7], [MARKETS, 200, 0.2], [undefined, 404, 0.00002], [BOOK, 200, 1],
  [ORDER, 429, 0.0009], [MARKETS, 200, 2.5],
];

/** The metrics text, its lines sorted (the two keep series in different orders; Prometheus does not read it). */
async function sortedText(registry: Registry<RegistryContentType>): Promise<string> {
  return (await registry.metrics()).split('\n').sort().join('\n');
}

function reference(contentType?: typeof Registry.OPENMETRICS_CONTENT_TYPE): Registry<RegistryContentType> {
  const registry = new Registry<RegistryContentType>();
  if (contentType !== undefined) registry.setContentType(contentType);
  const counter = new Counter({ name: 'http_requests_total', help: 'HTTP requests answered, by route and status.', labelNames: ['surface', 'route', 'status'], registers: [registry] });
  const histogram = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from a request arriving to its answer, by route.',
    labelNames: ['surface', 'route'],
    buckets: [...LATENCY_BUCKETS],
    registers: [registry],
  });
  for (const [r, status, seconds] of REQUESTS) {
    const surface = r?.surface ?? 'none';
    const path = r === undefined ? 'unmatched' : `${r.method} ${r.path}`;
    counter.inc({ surface, route: path, status: String(status) });
    histogram.observe({ surface, route: path }, seconds);
  }
  return registry;
}

function ours(contentType?: typeof Registry.OPENMETRICS_CONTENT_TYPE): Registry<RegistryContentType> {
  const registry = new Registry<RegistryContentType>();
  if (contentType !== undefined) registry.setContentType(contentType);
  const metrics = new RouteMetrics(registry);
  for (const [r, status, seconds] of REQUESTS) metrics.request(r, status, seconds);
  return registry;
}

t.test("the same text as prom-client's Counter and Histogram", async (t) => {
  const expected = await sortedText(reference());
  t.equal(await sortedText(ours()), expected);
  t.match(expected, /^http_request_duration_seconds_bucket\{le="0.0005",surface="clob",route="GET \/book"\} 2$/m, 'a bound is inclusive');
  t.match(expected, /^http_request_duration_seconds_bucket\{le="\+Inf",surface="clob",route="POST \/order"\} 5$/m, 'beyond the last bound: +Inf only');
  t.match(expected, /^http_requests_total\{surface="none",route="unmatched",status="404"\} 1$/m, 'an unmatched request');
});

t.test('the same in the OpenMetrics format', async (t) => {
  t.equal(await sortedText(ours(Registry.OPENMETRICS_CONTENT_TYPE)), await sortedText(reference(Registry.OPENMETRICS_CONTENT_TYPE)));
});

t.test('the same values through the registry as JSON', async (t) => {
  const byName = async (registry: Registry<RegistryContentType>): Promise<Map<string, string[]>> => {
    const out = new Map<string, string[]>();
    for (const m of await registry.getMetricsAsJSON()) {
      out.set(m.name, m.values.map((v) => `${(v as { metricName?: string }).metricName ?? m.name} ${JSON.stringify(Object.entries(v.labels).sort())} ${v.value}`).sort());
    }
    return out;
  };
  t.same(await byName(ours()), await byName(reference()));
});

t.test('nothing is shown of a route before it answers', async (t) => {
  const registry = new Registry();
  const metrics = new RouteMetrics(registry);
  t.notMatch(await registry.metrics(), /route=/);
  metrics.request(BOOK, 200, 0.001);
  const text = await registry.metrics();
  t.match(text, /^http_requests_total\{surface="clob",route="GET \/book",status="200"\} 1$/m);
  t.notMatch(text, /POST \/order/);
});
