// Requests by route and status, and their latency by route: http_requests_total and
// http_request_duration_seconds on GET /metrics, the same series and text prom-client's Counter and Histogram
// give. Every request is counted (RouteMetrics.request), so the running totals live in plain numbers kept
// per route object and read only when scraped: prom-client's own counter and histogram build a label object
// and hash it on every call (~0.8 KB of garbage and a few µs of an order on the request thread).
//
// Contract: a route's series appear once it has answered a request; buckets are cumulative, `le` ascending,
// then +Inf, then _sum and _count, as prom-client writes a histogram.

import type { Registry, RegistryContentType } from 'prom-client';
import type { RouteDef } from '../api/http/apiTypes.js';

/** Upper bounds (seconds) of the latency histogram's buckets. */
export const LATENCY_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

interface RouteTotals {
  readonly surface: string;
  readonly route: string;
  /** Requests answered, by status. */
  readonly statuses: Map<number, number>;
  /** Observations per bucket (not cumulative); the last slot is beyond the largest bound. */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/** One value of a metric as prom-client's registry reads it (Registry.getMetricsAsString). */
interface MetricValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
}

interface MetricData {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'histogram';
  readonly aggregator: 'sum';
  readonly values: MetricValue[];
}

/** The names the two metrics are scraped under. */
export const REQUESTS_METRIC = 'http_requests_total';
export const LATENCY_METRIC = 'http_request_duration_seconds';

/**
 * Registers a metric that prom-client's registry scrapes as it does its own Counter or Histogram: the registry
 * reads only name, help, type, aggregator and get() of it (its type asks for prom-client's Metric class).
 */
function register(registry: Registry<RegistryContentType>, name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]): void {
  // get() reads the name from the metric: for OpenMetrics the registry renames a counter (drops `_total`) before
  // it scrapes, and writes each value's name with the suffix again.
  const metric = { name, help, type, aggregator: 'sum' as const, get: (): Promise<MetricData> => Promise.resolve({ name: metric.name, help, type, aggregator: 'sum', values: values() }) };
  registry.registerMetric(metric as unknown as Parameters<Registry<RegistryContentType>['registerMetric']>[0]);
}

const UNMATCHED: Pick<RouteTotals, 'surface' | 'route'> = { surface: 'none', route: 'unmatched' };

export class RouteMetrics {
  private readonly byRoute = new Map<RouteDef | undefined, RouteTotals>();

  constructor(registry: Registry<RegistryContentType>) {
    register(registry, REQUESTS_METRIC, 'HTTP requests answered, by route and status.', 'counter', () => this.requestValues());
    register(registry, LATENCY_METRIC, 'Time from a request arriving to its answer, by route.', 'histogram', () => this.latencyValues());
  }

  /** One request answered: `route` (undefined: no route matched) with `status`, after `seconds`. */
  request(route: RouteDef | undefined, status: number, seconds: number): void {
    let totals = this.byRoute.get(route);
    if (totals === undefined) {
      const names = route === undefined ? UNMATCHED : { surface: route.surface, route: `${route.method} ${route.path}` };
      totals = { ...names, statuses: new Map(), buckets: new Float64Array(LATENCY_BUCKETS.length + 1), sum: 0, count: 0 };
      this.byRoute.set(route, totals);
    }
    totals.statuses.set(status, (totals.statuses.get(status) ?? 0) + 1);
    let b = 0;
    while (b < LATENCY_BUCKETS.length && seconds > (LATENCY_BUCKETS[b] as number)) b++;
    (totals.buckets[b] as number) += 1;
    totals.sum += seconds;
    totals.count += 1;
  }

  private requestValues(): MetricValue[] {
    const values: MetricValue[] = [];
    for (const t of this.byRoute.values()) {
      for (const [status, n] of t.statuses) values.push({ value: n, labels: { surface: t.surface, route: t.route, status: String(status) } });
    }
    return values;
  }

  private latencyValues(): MetricValue[] {
    const name = LATENCY_METRIC;
    const values: MetricValue[] = [];
    for (const t of this.byRoute.values()) {
      let cumulative = 0;
      for (let b = 0; b < LATENCY_BUCKETS.length; b++) {
        cumulative += t.buckets[b] as number;
        values.push({ value: cumulative, labels: { le: LATENCY_BUCKETS[b] as number, surface: t.surface, route: t.route }, metricName: `${name}_bucket` });
      }
      values.push({ value: t.count, labels: { le: '+Inf', surface: t.surface, route: t.route }, metricName: `${name}_bucket` });
      values.push({ value: t.sum, labels: { surface: t.surface, route: t.route }, metricName: `${name}_sum` });
      values.push({ value: t.count, labels: { surface: t.surface, route: t.route }, metricName: `${name}_count` });
    }
    return values;
  }
}
