// Prometheus metrics of the running service (GET /metrics): requests by route and status with latency,
// projection lag (log records not yet in ClickHouse), the engine's log position and queue, catalog syncs,
// the header edge's connections, requests and refusals, and Node's process metrics. Gauges are read when scraped, so nothing here runs on a timer.

import { collectDefaultMetrics, Counter, Gauge, Registry, Summary } from 'prom-client';
import type { RouteDef } from '../api/http/apiTypes.js';
import type { HeaderEdgeStats } from '../api/http/headerEdge.js';
import type { SyncReport } from '../catalog/sync/syncWorker.js';
import type { WsCounters } from '../api/ws/wsCounters.js';
import type { ChainAffinity } from './chainAffinity.js';
import type { DurableFollower } from '../log/durableFollower.js';
import { watchTallies, type WatchTally } from '../threads/answerWatch.js';
import { heapTrimCollections } from '../threads/heapTrim.js';
import { RouteMetrics } from './routeMetrics.js';

/** What a role runs of the projector and the engine (an API node runs neither: it reports its own gauges). */
interface Watched {
  /** The projection's committed position (the projector itself, or an API node's view of its progress). */
  readonly projector?: { readonly position: number };
  /** The log's end as this process knows it (absent where it does not follow the end: the projector role). */
  readonly log?: { readonly lastPos: number };
  readonly host?: { readonly position: number; readonly pending: number; readonly engine: { readonly openOrderCount: number } };
}

/**
 * Counters whose values live elsewhere (a component's own running totals): each is read from `source()` when
 * scraped, so the component pays nothing per event for metrics. `counts`: [name, help, reader].
 */
function countersOf<S>(registers: Registry[], counts: readonly (readonly [string, string, (s: S) => number])[], source: () => S): void {
  for (const [name, help, read] of counts) {
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read(source()));
      },
    });
  }
}

export class ServiceMetrics {
  readonly registry = new Registry();
  private watched: Watched | undefined;
  private readonly routes = new RouteMetrics(this.registry);
  private readonly syncs = new Counter({ name: 'catalog_syncs_total', help: 'Completed catalog syncs.', registers: [this.registry] });
  private readonly syncedItems = new Counter({ name: 'catalog_synced_items_total', help: 'Catalog objects stored by syncs.', registers: [this.registry] });
  private readonly syncPages = new Counter({ name: 'catalog_synced_pages_total', help: 'Upstream pages read by syncs.', registers: [this.registry] });
  private readonly syncDeleted = new Counter({
    name: 'catalog_deleted_items_total',
    help: 'Catalog objects marked deleted by reconciliations (no longer listed upstream), by resource.',
    labelNames: ['resource'],
    registers: [this.registry],
  });
  private readonly syncRestored = new Counter({ name: 'catalog_restored_items_total', help: 'Deleted catalog objects listed upstream again, by resource.', labelNames: ['resource'], registers: [this.registry] });
  private readonly reconciliations = new Counter({
    name: 'catalog_reconciliations_total',
    help: 'Completed catalog reconciliations, by outcome: applied, refused (mass-deletion guard), incomplete.',
    labelNames: ['outcome'],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // The process's own, beside Node's: the whole service and each role's process run the trim (service.ts, main.ts).
    this.gauge('nodejs_heap_trim_collections', "Full collections of the main thread's heap started at light load (threads/heapTrim.ts, --heap-trim-seconds) since the process started.", heapTrimCollections);
    // Read from what watch() was given when scraped; absent until then, or where that process has no such part.
    const fromWatched = (name: string, help: string, read: (w: Watched) => number | undefined): void => {
      const watched = (): Watched | undefined => this.watched;
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          const w = watched();
          const value = w === undefined ? undefined : read(w);
          if (value !== undefined) this.set(value);
        },
      });
    };
    fromWatched('projection_lag_records', 'Durable event-log records not yet projected into ClickHouse.', (w) =>
      w.projector !== undefined && w.log !== undefined ? Math.max(0, w.log.lastPos - w.projector.position) : undefined,
    );
    fromWatched('projection_position', 'Last event-log position committed to ClickHouse.', (w) => w.projector?.position);
    fromWatched('engine_log_position', 'Last durable event-log position of the engine.', (w) => w.host?.position);
    fromWatched('engine_pending_commands', 'Commands queued for the engine and not yet applied.', (w) => w.host?.pending);
    fromWatched('engine_open_orders', 'Orders open in the engine (resting, or live and waiting to rest).', (w) => w.host?.engine.openOrderCount);
    this.watchAnswers();
  }

  /** The answer watches' figures (threads/answerWatch.ts): how this thread learns that the journal's writer and the signature workers have answered. */
  private watchAnswers(): void {
    const counts: [string, string, keyof WatchTally][] = [
      ['thread_waits_armed_total', "Atomics.waitAsync waits armed for another thread's answer, by watch (journal, signatures).", 'armed'],
      ['thread_waits_woken_total', 'Of those, the waits whose wake-up came; armed minus woken above 1 per watch means wake-ups lost.', 'woken'],
      ['thread_wait_fallback_settles_total', "Answers settled by a watch's fallback read (every 10 ms while one is awaited) before their wake-up ran.", 'fallbackSettles'],
    ];
    for (const [name, help, key] of counts) {
      new Counter({
        name,
        help,
        labelNames: ['watch'],
        registers: [this.registry],
        collect() {
          this.reset();
          for (const [watch, tally] of watchTallies()) this.inc({ watch }, tally[key]);
        },
      });
    }
  }

  watch(watched: Watched): void {
    this.watched = watched;
  }

  /** A summary (p50, p90, p99 over the last minute) of observed values; returns the observer. */
  summary(name: string, help: string): (value: number) => void {
    const summary = new Summary({ name, help, percentiles: [0.5, 0.9, 0.99], maxAgeSeconds: 60, ageBuckets: 6, registers: [this.registry] });
    return (value) => summary.observe(value);
  }

  /** A gauge read from `read()` when scraped (a role's own figures: replica lag, command connections, ...). */
  gauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /**
   * A gauge read asynchronously when scraped; a failed read shows NaN in that scrape (the value is not known,
   * where a reset gauge would show 0) and is counted in nothing else: /metrics itself keeps answering.
   */
  asyncGauge(name: string, help: string, read: () => Promise<number>): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        try {
          this.set(await read());
        } catch {
          this.set(Number.NaN);
        }
      },
    });
  }

  /**
   * A gauge with one label, its series read asynchronously when scraped (each [label value, value]); a failed
   * read leaves every series out of that scrape.
   */
  asyncLabelledGauge(name: string, help: string, label: string, read: () => Promise<readonly (readonly [string, number])[]>): void {
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          for (const [key, value] of await read()) this.set({ [label]: key }, value);
        } catch {
          // unknown this scrape: no series
        }
      },
    });
  }

  /** Publishes the durable follower's figures (log/durableFollower.ts), read when scraped: its batches and records, and each consumer's time. */
  watchFollower(follower: DurableFollower): void {
    countersOf(
      [this.registry],
      [
        ['durable_batches_total', 'Durable batches offered to the consumers of the durable records.', (f: DurableFollower) => f.offered.batches],
        ['durable_records_total', 'Durable records offered to the consumers of the durable records.', (f: DurableFollower) => f.offered.records],
      ],
      () => follower,
    );
    new Counter({
      name: 'durable_consumer_seconds_total',
      help: "Time each consumer of the durable records spent on the batches offered to it, on the thread that made them durable (batches applied later, in runs, included).",
      labelNames: ['consumer'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const { consumer, seconds } of follower.seconds()) this.inc({ consumer }, seconds);
      },
    });
  }

  /** Publishes the header edge's counters, read from its stats when scraped. */
  watchEdge(edge: { readonly stats: HeaderEdgeStats }): void {
    const registers = [this.registry];
    new Gauge({
      name: 'http_edge_connections_open',
      help: 'Client connections open at the header edge.',
      registers,
      collect() {
        this.set(edge.stats.connectionsOpen);
      },
    });
    const counts: [string, string, (s: HeaderEdgeStats) => number][] = [
      ['http_edge_connections_total', 'Client connections accepted by the header edge.', (s) => s.connectionsTotal],
      ['http_edge_requests_total', 'Request heads the header edge forwarded to uWS.', (s) => s.requests],
      ['http_edge_underscore_requests_total', 'Forwarded request heads that had an underscore in a header name.', (s) => s.underscoreHeads],
      ['http_edge_upgrades_total', 'Connections the header edge switched to passthrough after a 101.', (s) => s.upgrades],
      ['http_edge_internal_errors_total', 'Connections closed because the header edge itself failed (a bug; 0 when healthy).', (s) => s.internalErrors],
      ['http_edge_upstream_reads_total', "Reads of uWS's output by the header edge (about one per response when uWS writes each response in one piece).", (s) => s.upstreamReads],
      ['http_edge_holds_total', 'Holds of write requests that reached the service idle or answering a few requests (--edge-hold-ms).', (s) => s.holds],
      ['http_edge_held_requests_total', 'Write requests the header edge held, to forward them together (--edge-hold-ms).', (s) => s.heldRequests],
    ];
    countersOf(registers, counts, () => edge.stats);
    new Counter({
      name: 'http_edge_refused_total',
      help: 'Requests the header edge answered itself, by error code (api/http/edge/edgeErrors.ts).',
      labelNames: ['code'],
      registers,
      collect() {
        this.reset();
        for (const [code, n] of Object.entries(edge.stats.refused)) this.inc({ code }, n);
      },
    });
  }

  /** Publishes where the order chain's threads run (server/chainAffinity.ts). */
  watchChainAffinity(chain: Pick<ChainAffinity, 'placement' | 'moves'>): void {
    const registers = [this.registry];
    new Gauge({
      name: 'order_chain_pinned',
      help: "1 while the order path's threads share one CPU (light load, --chain-affinity), 0 while they run on every CPU.",
      registers,
      collect() {
        this.set(chain.placement === 'pinned' ? 1 : 0);
      },
    });
    new Counter({
      name: 'order_chain_moves_total',
      help: "Times the order path's threads were moved onto one CPU or back onto every CPU.",
      registers,
      collect() {
        this.reset();
        this.inc(chain.moves);
      },
    });
  }

  /**
   * Publishes the WebSocket channels' counters (api/ws/wsCounters.ts), read when scraped; `slowAtEdge`, the
   * slow clients the header edge closed itself (api/http/edge/wsDirect.ts).
   */
  watchWs(ws: Readonly<WsCounters>, slowAtEdge: () => number = () => 0): void {
    const registers = [this.registry];
    new Gauge({
      name: 'ws_connections',
      help: 'Open WebSocket connections, by channel.',
      labelNames: ['channel'],
      registers,
      collect() {
        this.set({ channel: 'market' }, ws.marketConnections);
        this.set({ channel: 'user' }, ws.userConnections);
      },
    });
    new Gauge({
      name: 'ws_subscriptions',
      help: 'Current WebSocket subscriptions: assets on the market channel, markets (or all markets, counted once) on the user channel.',
      registers,
      collect() {
        this.set(ws.subscriptions);
      },
    });
    const counts: [string, string, (c: Readonly<WsCounters>) => number][] = [
      ['ws_connections_total', 'WebSocket connections opened.', (c) => c.connectionsTotal],
      ['ws_messages_sent_total', 'WebSocket messages handed to subscribers (a topic message counts once per subscriber).', (c) => c.messagesSent],
      ['ws_bytes_sent_total', 'Bytes of the WebSocket messages handed to subscribers.', (c) => c.bytesSent],
      ['ws_slow_consumers_dropped_total', 'WebSocket subscribers closed because their send buffer passed the backpressure limit.', (c) => c.slowConsumersDropped + slowAtEdge()],
      ['ws_connections_refused_total', 'WebSocket upgrades refused by the per-IP connection limit.', (c) => c.connectionsRefused],
      ['ws_error_frames_total', 'Error frames sent for malformed, unknown or over-limit messages.', (c) => c.errorFrames],
      ['ws_auth_failures_total', 'User-channel connections closed for missing or wrong credentials.', (c) => c.authFailures],
    ];
    countersOf(registers, counts, () => ws);
  }

  request(route: RouteDef | undefined, status: number, ms: number): void {
    this.routes.request(route, status, ms / 1000);
  }

  catalogSynced(report: SyncReport): void {
    this.syncs.inc();
    this.syncedItems.inc(report.items);
    this.syncPages.inc(report.pages);
    for (const [resource, n] of Object.entries(report.deleted)) if (n > 0) this.syncDeleted.inc({ resource }, n);
    for (const [resource, n] of Object.entries(report.restored)) if (n > 0) this.syncRestored.inc({ resource }, n);
    if (report.reconciliation !== undefined) this.reconciliations.inc({ outcome: report.reconciliation.outcome });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  close(): void {
    this.registry.clear();
  }
}
