// Every setting of the service, declared once. The loader, --help and the README's configuration table are
// all generated from this table. Each key `fooBarSec` is set by the flag `--foo-bar-sec` or the environment
// variable `PMX_FOO_BAR_SEC`; a flag wins over its variable. Defaults give the embedded single-process mode.

import { DEFAULT_ENGINE_CONFIG } from '../engine/index.js';
import { address, bool, cidr, corsOrigin, hostPort, int, listOf, oneOf, text, url, type ValueKind } from './valueKinds.js';

export interface Setting<T> {
  readonly kind: ValueKind<unknown>;
  /** `undefined` only for optional settings, meaning "unset". */
  readonly default: T;
  readonly optional: boolean;
  /** Never echoed back in error messages or printed. */
  readonly secret: boolean;
  readonly description: string;
}

interface Options {
  readonly secret?: boolean;
}

function setting<T>(kind: ValueKind<T>, defaultValue: T, description: string, opts: Options = {}): Setting<T> {
  return { kind, default: defaultValue, optional: false, secret: opts.secret ?? false, description };
}

/** A setting that may stay unset; an empty value also means unset. */
function optional<T>(kind: ValueKind<T>, description: string, opts: Options = {}): Setting<T | undefined> {
  return { kind, default: undefined, optional: true, secret: opts.secret ?? false, description };
}

const MiB = 1024 * 1024;

/** The projector's pause between commits when --projection-interval-ms is unset, per ClickHouse mode (ms). */
export const PROJECTION_INTERVAL_MS = { embedded: 300, server: 1_000 } as const;

/**
 * Under light load (fewer records waiting than `records` once the least pause is over) the projector commits up
 * to --projection-light-load-ms apart instead, or once `maxRecords` wait (projections/projector.ts,
 * ProjectorOptions.lightLoad). Each commit costs the embedded ClickHouse ~8 ms of CPU per statement whatever
 * its rows (a statement per table written, ~15 at a few hundred orders per second), so at a steady rate the
 * spacing sets most of ClickHouse's CPU; under load `records` are waiting within the least pause and commits
 * are spaced by that alone. `maxRecords` lets 400 orders/s (~0.9 records an order) wait the whole 15 s, and
 * keeps a light-load commit to 7,500 records (1,000 orders/s fill it in ~8 s); a read that waits for its own
 * writes in ClickHouse then waits for a commit of up to that many (~0.3 s at 400 orders/s here).
 */
export const PROJECTION_LIGHT_LOAD = { intervalMs: 15_000, records: 1_000, maxRecords: 7_500 } as const;

/**
 * The single process's projector under load commits as far apart as keeps a record's wait from the journal to its
 * commit within this (ms; ProjectorOptions.lagBudgetMs): below the 1 s the projection lag is held to at 5,000
 * fills/s (bench:projections), with room for a commit that takes longer than the last ones.
 */
export const PROJECTION_LAG_BUDGET_MS = 800;

/** The projector's lag budget under load (ProjectorOptions.lagBudgetMs) for a configuration; 0: none. */
export function projectionLagBudgetOf(config: Pick<Config, 'projectionLagBudgetMs'>): number | undefined {
  return config.projectionLagBudgetMs > 0 ? config.projectionLagBudgetMs : undefined;
}

/** The projector's light-load spacing of commits (ProjectorOptions.lightLoad) for a configuration. */
export function projectionLightLoadOf(config: Pick<Config, 'projectionLightLoadMs'>): { readonly intervalMs: number; readonly records: number; readonly maxRecords: number } {
  return { intervalMs: config.projectionLightLoadMs, records: PROJECTION_LIGHT_LOAD.records, maxRecords: PROJECTION_LIGHT_LOAD.maxRecords };
}

export const SETTINGS = {
  // Roles (one process, or engine / API / projector processes over Kafka and a ClickHouse server)
  role: setting(
    oneOf(['all', 'engine', 'api', 'projector'] as const),
    'all',
    'What this process runs. all: the whole service in one process (the default). engine: the single writer of the Kafka log, taking commands from API nodes on the engine port. api: HTTP and WebSocket, following the log with a replica of the engine and sending commands to the engine. projector: the log into ClickHouse. Every role but all needs --log-backend kafka and --clickhouse-mode server.',
  ),
  heapTrimSeconds: setting(int(0, 3600), 30, "Seconds between two looks at the JS heaps of the main thread and the demo traders' thread: at light load, a heap grown by a quarter over its low since its last full collection is collected in full, so that resident memory follows live data rather than V8's collection cycle (threads/heapTrim.ts; needs --expose-gc, which scripts/node-flags gives). 0 turns it off."),
  nice: setting(int(0, 19), 0, "CPU priority of this process, as the nice value of all its threads (0: normal; 19: lowest). For batch work sharing a host with the order path, such as a projector beside an engine and API nodes: it then takes the CPU they leave, and catches up when they idle (its lag is on /metrics). Raising it needs no privilege."),
  engineHost: setting(text({ placeholder: '<host>' }), '127.0.0.1', 'Address the engine role listens on for commands from API nodes.'),
  enginePort: setting(int(0, 65535), 7100, 'Port the engine role listens on for commands from API nodes; 0 picks a free port.'),
  engineAddress: setting(hostPort(), '127.0.0.1:7100', 'host:port of the engine role, to which an API node sends its commands.'),
  engineToken: optional(text({ minLength: 16, placeholder: '<token>' }), 'Shared secret an API node presents to the engine role; when set on the engine, a connection without it is refused. Set it whenever the engine port is reachable beyond this machine.', { secret: true }),

  // Storage and HTTP
  dataDir: setting(text({ placeholder: '<path>' }), './data', 'Directory for the event journal, snapshots and embedded ClickHouse (chDB) data.'),
  httpHost: setting(text({ placeholder: '<host>' }), '127.0.0.1', 'Address the HTTP and WebSocket server listens on.'),
  httpPort: setting(int(0, 65535), 8080, 'Port of the HTTP and WebSocket server; 0 picks a free port.'),
  allowSlowUws: setting(bool(), false, "Start even when uWebSockets.js's native binary did not load, on its slow JavaScript fallback."),
  headerEdge: setting(bool(), true, 'true: the in-process header edge owns the public port and relays to uWS over a Unix socket under the data directory (needed while uWS 20.30 drops requests with "_" in a header name); false: uWS listens on the port itself (only behind a proxy that rewrites such header names).'),
  edgeThread: setting(bool(), true, 'true: the header edge runs on a thread of its own (it only relays bytes, and on the request thread it took a quarter of that thread\'s time per order); false: on the request thread. Ignored with --header-edge false.'),
  edgeHoldMs: setting(int(0, 50), 8, "Milliseconds the header edge holds a write request (POST, PUT, PATCH, DELETE) that reaches the service idle or answering at most 8 requests, so that those arriving meanwhile reach the service with it and share its hand-overs between threads, each a wake-up of a sleeping thread (api/http/edge/writeHold.ts). While more are in flight requests pass at once; under load a hold opens only as a batch's answers go out together, and the writes sent on them fill it at once (32), so it adds no wait of its own there; at a steady moderate rate it adds up to this much to a write's latency and takes CPU off every order. 0: never held. Ignored with --header-edge false."),
  chainAffinity: setting(bool(), true, "true: while the order path's threads (the request thread, the header edge's, the signature workers, the journal's writer) together use less than 30% of one CPU for 2 s, they run on one CPU, so that each hands over to the next without a wake-up across CPUs; above 40% of it, or once other threads used more than half of that CPU over 2 s (such as another process pinned there; they then stay spread for 60 s), they run on every CPU again, within 250 ms (server/chainAffinity.ts). Needs taskset (util-linux) and two CPUs or more; Linux only."),

  // Event log
  logBackend: setting(oneOf(['journal', 'kafka'] as const), 'journal', 'Where the event log lives: the embedded journal under the data directory, or a Kafka topic.'),
  kafkaBrokers: setting(listOf(hostPort()), [] as readonly string[], 'Kafka bootstrap brokers; required when the log backend is kafka.'),
  kafkaTopic: setting(text({ pattern: /^[A-Za-z0-9._-]{1,249}$/, expected: 'a Kafka topic name (letters, digits, ".", "_", "-")', placeholder: '<topic>' }), 'engine-events', "Kafka topic holding the engine's events."),
  kafkaClientId: setting(text({ placeholder: '<id>' }), 'prediction-exchange', 'Kafka client id of this process.'),
  snapshotIntervalEvents: setting(int(1, 1_000_000_000), 100_000, "Write an engine snapshot (on an API node, of its replica and read model) every this many events. The engine and an API node take them from their copies on the snapshot thread, when due. A snapshot that would hold the thread (a copy failed, or --live-snapshot-copy false: the read model's bytes take 0.7–1.3 s with 200,000 fills and 80,000 open orders held; npm run bench:live-memory) waits for 20 ms without records after that many events, and is taken at the latest after twice as many."),
  liveSnapshotCopy: setting(bool(), true, "API nodes: keep a copy of the in-memory read model on the snapshot thread, fed by the replica's copy there, so that its snapshots never hold the node's thread (seeding it once at start-up does). It costs about as much memory as the model restored from a snapshot (383 MB with 200,000 fills and 80,000 open orders held). false: each snapshot serialises the model on the node's thread."),
  journalSegmentBytes: setting(int(MiB, 2 ** 31 - 1), 64 * MiB, 'Size at which the journal starts a new segment file.'),
  groupCommitMaxBatch: setting(int(1, 100_000), 1000, 'Most commands applied and made durable by one log append (one fsync).'),

  // ClickHouse
  clickhouseMode: setting(oneOf(['embedded', 'server'] as const), 'embedded', 'embedded: chDB inside this process, data under the data directory; server: the ClickHouse server at the URL below.'),
  clickhouseNice: setting(int(0, 19), 10, "Nice value of the embedded ClickHouse's own threads (its query, insert and merge pools), above the rest of the process: under load they take the CPU that the engine, HTTP and WebSocket threads leave, so a projector commit or a merge does not delay order answers and stream deliveries. Reads served from ClickHouse then wait for that CPU too. 0: the process's value. Raising it needs no privilege. Embedded mode only (a ClickHouse server has its own settings)."),
  projectionIntervalMs: optional(int(0, 10_000), `Least time between two projector commits into ClickHouse while the log grows; unset: ${PROJECTION_INTERVAL_MS.embedded} with the embedded ClickHouse, ${PROJECTION_INTERVAL_MS.server} with a server (ClickHouse advises about one insert per second per table into a server: each insert makes a part, which its merges then rewrite). In one process a read waiting for its own writes cuts the pause short. Each commit costs ClickHouse a few ms of CPU per table whatever its size, so larger means less CPU under load but more projection lag (embedded, at 5,000 fills/s on a quiet machine: lag p99 ~380 ms at 200, ~520 ms at 300). Under light load (fewer than ${PROJECTION_LIGHT_LOAD.records} records waiting once this pause is over) commits are up to --projection-light-load-ms apart.`),
  projectionLightLoadMs: setting(
    int(0, 60_000),
    PROJECTION_LIGHT_LOAD.intervalMs,
    `The single process's projector: under light load (fewer than ${PROJECTION_LIGHT_LOAD.records} log records waiting once --projection-interval-ms is over, and no read waiting for its own writes) it commits up to this far apart (ms; at or below --projection-interval-ms: no light-load spacing), or once ${PROJECTION_LIGHT_LOAD.maxRecords} records wait. Each commit costs the embedded ClickHouse ~8 ms of CPU per table it writes whatever the rows, so at a steady rate this spacing sets most of its CPU (at 400 orders/s on 2 cores, Intel Xeon: ~140 µs per order at 2,000, ~75 at 5,000, ~50 at 10,000; AMD EPYC: ~80 at 5,000, ~26 at 30,000), and it bounds how far the ClickHouse tables trail the engine when the load is light (the leaderboards; the price and book histories, the account reads served from ClickHouse and analysts' queries through --clickhouse-http-port wait for what was acknowledged, which ends the pause).`,
  ),
  projectionLagBudgetMs: setting(
    int(0, 60_000),
    PROJECTION_LAG_BUDGET_MS,
    `The single process's projector under load (once --projection-interval-ms is over, when the light-load spacing does not apply: ${PROJECTION_LIGHT_LOAD.records} log records or more waiting, or --projection-light-load-ms at most --projection-interval-ms): it commits as far apart as keeps a record's wait from the journal to its commit in ClickHouse within this many ms, judged by how long its last commits took (projections/commitSpacing.ts). A larger commit costs the embedded ClickHouse little more than a small one (a part per table, and the merges that rewrite it), so where commits are quick this spaces them further than --projection-interval-ms and takes CPU off every order; where they are slow --projection-interval-ms alone spaces them. A read waiting for its own writes ends the wait. 0, or at most --projection-interval-ms: --projection-interval-ms alone (and with --projection-interval-ms 0, commits follow each other unspaced).`,
  ),
  projectorThread: setting(bool(), true, "true: in the single process on the journal, the projector runs on a thread of its own, reading the journal's files up to the durable end the engine's thread publishes in shared memory, and sends its few ClickHouse calls per commit to the thread that holds the client: building rows takes nothing from the request thread. false, or with --live-reads false (the WebSocket publisher then takes the creation times of orders open since before start-up from the projector's state), or on the Kafka log: the projector runs on the request thread and is handed the durable records there."),
  bookHistoryRetentionDays: setting(int(0, 36_500), 0, 'Days the book history (every level change of every book, and periodic whole books: /orderbook-history, GET /book?at=) is kept in ClickHouse; 0 keeps everything.'),
  liveReads: setting(bool(), true, 'Serve /positions, /holders, /data/orders, /data/order/{id}, and the pages of /trades?user= and /data/trades that lie within the fills it keeps, from the in-memory read model (projections/live/), which follows the log; false reads them from ClickHouse.'),
  liveFinishedOrders: setting(int(0, 100_000_000), 200_000, 'Finished orders the in-memory read model keeps for GET /data/order/{id} (~0.65 KB each; older ones are read from ClickHouse).'),
  liveFinishedMinutes: setting(int(0, 10_080), 10, 'Minutes a finished order stays in the in-memory read model after newer ones finish (by the log\'s time; GET /data/order/{id} reads older ones from ClickHouse, which holds them by then), within --live-finished-orders: at a light, steady load the model stops growing within minutes instead of filling its count for hours. 0: by count alone.'),
  liveAccountFills: setting(int(0, 1_000_000), 1_000, "Newest fills of each account the in-memory read model keeps for GET /trades?user= and GET /data/trades: a page within them is answered from memory, one reaching further from ClickHouse. 0: no fills kept."),
  liveFills: setting(int(0, 100_000_000), 250_000, 'Most fills the in-memory read model keeps in all (~0.5 KB each, and ~0.3 KB per account holding any); the oldest leave first, from every account. 0: no fills kept.'),
  leaderboardMaxAgeMs: setting(int(0, 3_600_000), 30_000, 'GET /v1/leaderboard answers each board (period and category) from a whole ranking ClickHouse computed (every position held, ~1 s at 10M fills and 100k addresses); once the projector has moved past it and it is this old, the next read starts computing the next one in the background. 0: every read after a change waits for a ranking as of the projector\'s position.'),
  liveShownJson: setting(int(0, 100_000_000), 20_000, 'Most fills, and most open orders, whose JSON the in-memory read model keeps once GET /data/trades or GET /data/orders has shown them (~1.6 KB a fill, ~1 KB an order): a page of them is sent as their texts joined instead of serialised afresh; the oldest kept leave first. 0: none kept.'),
  clickhouseUrl: setting(url(), 'http://127.0.0.1:8123', 'HTTP URL of the ClickHouse server (server mode).'),
  clickhouseUser: setting(text({ placeholder: '<user>' }), 'default', 'ClickHouse user (server mode).'),
  clickhousePassword: setting(text({ minLength: 0, placeholder: '<password>' }), '', 'ClickHouse password (server mode).', { secret: true }),
  clickhouseDatabase: setting(text({ pattern: /^[A-Za-z_][A-Za-z0-9_]*$/, expected: 'a database name (letters, digits, "_")', placeholder: '<name>' }), 'exchange', 'ClickHouse database holding the projections and the catalog.'),

  // ClickHouse's HTTP interface on the embedded ClickHouse (docs/analysts.md)
  clickhouseHttpPort: optional(int(0, 65535), "Port on which the embedded ClickHouse is served over ClickHouse's own HTTP interface (the protocol of a server's port 8123), for analysts and for other processes of the service; 0 picks a free port; unset: off. Embedded mode only: in server mode analysts use the server."),
  clickhouseHttpHost: setting(text({ placeholder: '<host>' }), '127.0.0.1', "Address ClickHouse's HTTP interface listens on."),
  analystUser: setting(text({ pattern: /^[A-Za-z_][A-Za-z0-9_.-]*$/, expected: 'a user name (letters, digits, "_", ".", "-")', placeholder: '<user>' }), 'analyst', "Name of the read-only analyst user of ClickHouse's HTTP interface."),
  analystPassword: optional(text({ minLength: 8, placeholder: '<password>' }), 'Password of the analyst user; unset: no analyst user.', { secret: true }),
  clickhouseServiceUser: setting(text({ pattern: /^[A-Za-z_][A-Za-z0-9_.-]*$/, expected: 'a user name (letters, digits, "_", ".", "-")', placeholder: '<user>' }), 'service', "Name of the read-write service user of ClickHouse's HTTP interface, with which other processes of the service use this one as their ClickHouse server."),
  clickhouseServicePassword: optional(text({ minLength: 16, placeholder: '<password>' }), 'Password of the read-write service user; unset (the default): no service user.', { secret: true }),
  analystMaxExecutionSec: setting(int(1, 86_400), 60, "Longest an analyst query may run (ClickHouse's max_execution_time)."),
  analystMaxMemoryBytes: setting(int(16 * MiB, 2 ** 45), 2048 * MiB, "Most memory one analyst query may use (ClickHouse's max_memory_usage)."),
  analystMaxResultRows: setting(int(1, 2 ** 40), 1_000_000, "Most rows an analyst query may return (max_result_rows; more is an error, never a silently cut result)."),
  analystMaxResultBytes: setting(int(1024, 2 ** 40), 256 * MiB, 'Most uncompressed bytes an analyst query may return (max_result_bytes).'),
  analystMaxThreads: setting(int(1, 64), 1, "Threads one analyst query may use (ClickHouse's max_threads); with one concurrent query, analysts never take more than this many cores from the engine."),
  analystNice: setting(int(0, 19), 19, "Scheduling priority (nice value) of the threads running an analyst query (ClickHouse's os_thread_priority): at 19 the engine, the order path and the projector always come first, and analysts get the idle CPU."),
  analystMaxConcurrentQueries: setting(int(1, 64), 1, 'Analyst queries that run at once; the others wait their turn in arrival order.'),
  analystMaxQueuedQueries: setting(int(0, 10_000), 16, 'Analyst queries that may wait for a turn; past that a query is refused at once (TOO_MANY_SIMULTANEOUS_QUERIES).'),

  // Engine and signing
  feeAccount: setting(address(), DEFAULT_ENGINE_CONFIG.feeAccount, 'Ledger account that collects trading fees.'),
  gtdSecurityMarginSec: setting(int(0, 86_400), DEFAULT_ENGINE_CONFIG.gtdSecurityMarginSec, 'A GTD order leaves the book this many seconds before its expiration; an order expiring sooner is refused.'),
  chainId: setting(int(1, 2 ** 32 - 1), 137, 'Chain id in the EIP-712 domains of orders and of L1 authentication.'),
  exchangeAddress: setting(address(), '0xE111180000d2663C0091e4f400237545B87B996B', 'EIP-712 verifying contract for orders on standard markets.'),
  negRiskExchangeAddress: setting(address(), '0xe2222d279d744050d28e00520010520000310F59', 'EIP-712 verifying contract for orders on neg-risk markets.'),
  authFreshnessSec: setting(int(1, 3600), 30, "Largest difference, either way, between an L2 request's timestamp header and the server clock."),
  orderTimestampWindowSec: setting(int(1, 3600), 60, "Largest difference, either way, between a signed order's timestamp and the server clock; a replayed order is refused as a duplicate within it and as stale after it."),
  heartbeatTimeoutSec: setting(int(1, 3600), 10, "Window of a heartbeat session (POST /v1/heartbeats): once a user has sent one, if the next does not arrive within this many seconds every open order of that user is cancelled."),
  signatureWorkers: setting(int(0, 16), 1, 'Worker threads that hash signed orders and recover their signers; 0 checks them on the request thread.'),
  authSecret: optional(text({ minLength: 32, placeholder: '<secret>' }), 'Master secret (at least 32 characters) from which API key secrets and passphrases are derived; unset: a random one is created once in auth.secret under the data directory. Changing it invalidates every API key.', { secret: true }),

  // Access
  operatorToken: optional(text({ minLength: 16, placeholder: '<token>' }), 'Bearer token of the operator API; unset turns the operator API off.', { secret: true }),
  activityIpAllowlist: setting(listOf(cidr(), { minItems: 1 }), ['0.0.0.0/0', '::/0'] as readonly string[], 'Client networks allowed on the activity surface; the default allows all.'),
  trustedProxies: setting(
    listOf(cidr()),
    [] as readonly string[],
    "Networks of the reverse proxies in front of the service (nginx, HAProxy, a load balancer): a request from one of them is attributed to the client its X-Forwarded-For names (the rightmost address that is not a trusted proxy), for rate limits, the activity allowlist, WebSocket connections per IP and logs. Empty: the connection's peer is the client and X-Forwarded-For is ignored.",
  ),
  rateLimit: setting(bool(), true, 'Enforce the per-route request rate limits.'),
  corsOrigins: setting(
    listOf(corsOrigin()),
    ['*'] as readonly string[],
    'Browser origins allowed to call the API (CORS): `*` for any (no cookies are used, so any origin is safe for what a key-holder can already do), or a list of origins; empty turns CORS off.',
  ),

  // HTTP responses
  compressMinBytes: setting(int(0, 2 ** 31 - 1), 16_384, 'Bodies of at least this many bytes are compressed (br or gzip, by Accept-Encoding); 0 turns compression off. Each compression costs ~45 µs of the request thread whatever the size (measured), more than a whole GET /book, so small bodies go as they are.'),

  // Catalog
  catalogUpstreamUrl: optional(url(), 'Base URL of an upstream Gamma-shaped catalog to sync from; unset means no sync.'),
  catalogSyncIntervalSec: setting(int(1, 86_400), 300, 'Seconds between catalog syncs when an upstream is set.'),
  catalogReconcileIntervalSec: setting(
    int(0, 30 * 86_400),
    86_400,
    'Seconds between reconciliations with the upstream: a complete pass that marks as deleted the objects the upstream no longer lists (run by the first sync due after the interval); 0 turns them off.',
  ),
  catalogReconcileMaxDeletePercent: setting(int(1, 100), 50, 'A reconciliation that would delete more than this percentage of the stored markets, events, series or tags of its upstream deletes nothing and is logged; 100 turns the guard off.'),
  demoCatalog: setting(bool(), true, 'Load the demo catalog shipped in the repository on first start.'),
  demoTraders: setting(bool(), true, 'Run the demo traders (a market maker quoting every open demo market, the questions of a neg-risk event around prices that add up to 1, and three takers, all using the official client over the public API) on the demo catalog; never when --catalog-upstream-url is set. About 15 orders/s at the default cycle.'),
  demoTraderCycleMs: setting(int(100, 60_000), 1000, "ms between two of the demo market maker's quote cycles (each refreshes one market's quotes, or those of every question of a neg-risk event); the takers act about every 1.5-2.5 cycles."),

  // WebSocket channels (/ws/market, /ws/user; docs/websocket.md)
  wsPort: optional(int(0, 65535), 'Also serve the WebSocket channels on this port of the HTTP host, straight from uWS without the header edge, as the public service gives them a host of their own: each frame is written by uWS instead of a Node socket, and nothing beside it takes a core (npm start and the compose file use 8081). 0 picks a free port; unset: only on the public port. uWS 20.30 drops an upgrade request with "_" in a header name here.'),
  wsMaxSubscriptions: setting(int(1, 1_000_000), 1000, 'Most assets (market channel) or markets (user channel) one WebSocket connection may subscribe to; a subscribe beyond it is refused with an error frame and changes nothing.'),
  wsMaxMessageBytes: setting(int(1024, 16 * MiB), 64 * 1024, 'Largest message a WebSocket client may send; a larger one closes the connection (1009).'),
  wsMaxConnectionsPerIp: setting(int(1, 1_000_000), 100, 'Most open WebSocket connections per client IP; the upgrade beyond it is refused with 429.'),
  wsIdleTimeoutSec: setting(int(8, 900), 60, 'A WebSocket connection that sends nothing (no PING) for this long is closed (uWS rounds to 4 s).'),
  wsMaxBackpressureBytes: setting(int(64 * 1024, 1024 * MiB), 4 * MiB, 'Bytes queued for one WebSocket subscriber beyond which it is closed as a slow consumer (4008), so the others never wait for it.'),

  // Logging
  logLevel: setting(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const), 'info', 'Least severe log level written (pino levels).'),
  logFormat: setting(oneOf(['auto', 'pretty', 'json'] as const), 'auto', 'Log lines as JSON (one object a line, for log shippers) or pretty (coloured text for a terminal); auto: pretty when stdout is a terminal, JSON otherwise.'),
} as const;

export type SettingName = keyof typeof SETTINGS;

type ValueOf<S> = S extends Setting<infer T> ? T : never;

/** The validated configuration: one readonly field per setting. */
export type Config = { readonly [K in SettingName]: ValueOf<(typeof SETTINGS)[K]> };

export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

const words = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();

export function envVarOf(name: SettingName): string {
  return 'PMX_' + words(name).toUpperCase();
}

export function flagOf(name: SettingName): string {
  return '--' + words(name).replace(/_/g, '-');
}

export function defaultText(name: SettingName): string {
  const s: Setting<unknown> = SETTINGS[name];
  if (s.default === undefined) return 'unset';
  return s.kind.format(s.default);
}

/** The in-memory read model's bounds as LiveState takes them (the single process and an API node alike). */
export function liveStateOptionsOf(config: Pick<Config, 'feeAccount' | 'liveFinishedOrders' | 'liveFinishedMinutes' | 'liveAccountFills' | 'liveFills' | 'liveShownJson'>) {
  return {
    feeAccount: config.feeAccount,
    maxFinishedOrders: config.liveFinishedOrders,
    finishedOrderAgeMs: config.liveFinishedMinutes * 60_000,
    maxAccountFills: config.liveAccountFills,
    maxFills: config.liveFills,
    maxShownJson: config.liveShownJson,
  } as const;
}

/** The projector's pause between commits (ms): the setting, or its default for the ClickHouse mode. */
export function projectionIntervalOf(config: Pick<Config, 'projectionIntervalMs' | 'clickhouseMode'>): number {
  return config.projectionIntervalMs ?? PROJECTION_INTERVAL_MS[config.clickhouseMode];
}
