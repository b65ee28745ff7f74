// Every setting of the service, declared once. The loader, --help and the README's configuration table are
// all generated from this table. Each key `fooBarSec` is set by the flag `--foo-bar-sec` or the environment
// variable `PMX_FOO_BAR_SEC`; a flag wins over its variable. Defaults give the embedded single-process mode.

import { DEFAULT_ENGINE_CONFIG } from '../engine/index.js';
import { address, bool, cidr, hostPort, int, listOf, oneOf, text, url, type ValueKind } from './valueKinds.js';

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

export const SETTINGS = {
  // Storage and HTTP
  dataDir: setting(text({ placeholder: '<path>' }), './data', 'Directory for the event journal, snapshots and embedded ClickHouse (chDB) data.'),
  httpHost: setting(text({ placeholder: '<host>' }), '127.0.0.1', 'Address the HTTP and WebSocket server listens on.'),
  httpPort: setting(int(0, 65535), 8080, 'Port of the HTTP and WebSocket server; 0 picks a free port.'),
  allowSlowUws: setting(bool(), false, "Start even when uWebSockets.js's native binary did not load, on its slow JavaScript fallback."),
  headerEdge: setting(bool(), true, 'true: the in-process header edge owns the public port and relays to uWS over a Unix socket under the data directory (needed while uWS 20.30 drops requests with "_" in a header name); false: uWS listens on the port itself (only behind a proxy that rewrites such header names).'),
  edgeThread: setting(bool(), true, 'true: the header edge runs on a thread of its own (it only relays bytes, and on the request thread it took a quarter of that thread\'s time per order); false: on the request thread. Ignored with --header-edge false.'),

  // Event log
  logBackend: setting(oneOf(['journal', 'kafka'] as const), 'journal', 'Where the event log lives: the embedded journal under the data directory, or a Kafka topic.'),
  kafkaBrokers: setting(listOf(hostPort()), [] as readonly string[], 'Kafka bootstrap brokers; required when the log backend is kafka.'),
  kafkaTopic: setting(text({ pattern: /^[A-Za-z0-9._-]{1,249}$/, expected: 'a Kafka topic name (letters, digits, ".", "_", "-")', placeholder: '<topic>' }), 'engine-events', "Kafka topic holding the engine's events."),
  kafkaClientId: setting(text({ placeholder: '<id>' }), 'prediction-exchange', 'Kafka client id of this process.'),
  snapshotIntervalEvents: setting(int(1, 1_000_000_000), 100_000, 'Write an engine snapshot every this many events.'),
  journalSegmentBytes: setting(int(MiB, 2 ** 31 - 1), 64 * MiB, 'Size at which the journal starts a new segment file.'),
  groupCommitMaxBatch: setting(int(1, 100_000), 1000, 'Most commands applied and made durable by one log append (one fsync).'),

  // ClickHouse
  clickhouseMode: setting(oneOf(['embedded', 'server'] as const), 'embedded', 'embedded: chDB inside this process, data under the data directory; server: the ClickHouse server at the URL below.'),
  projectionIntervalMs: setting(int(0, 10_000), 300, 'Least time between two projector commits into ClickHouse while the log grows; a read waiting for its own writes cuts it short. Each commit costs chDB a few ms of CPU per table whatever its size, so larger means less CPU under load but more projection lag (at 5,000 fills/s on a quiet machine: lag p99 ~380 ms at 200, ~520 ms at 300).'),
  liveReads: setting(bool(), true, 'Serve /positions, /holders, /data/orders and /data/order/{id} from the in-memory read model (projections/live/), which follows the log; false reads them from ClickHouse.'),
  liveFinishedOrders: setting(int(0, 100_000_000), 200_000, 'Finished orders the in-memory read model keeps for GET /data/order/{id} (~0.5 KB each; older ones are read from ClickHouse).'),
  clickhouseUrl: setting(url(), 'http://127.0.0.1:8123', 'HTTP URL of the ClickHouse server (server mode).'),
  clickhouseUser: setting(text({ placeholder: '<user>' }), 'default', 'ClickHouse user (server mode).'),
  clickhousePassword: setting(text({ minLength: 0, placeholder: '<password>' }), '', 'ClickHouse password (server mode).', { secret: true }),
  clickhouseDatabase: setting(text({ pattern: /^[A-Za-z_][A-Za-z0-9_]*$/, expected: 'a database name (letters, digits, "_")', placeholder: '<name>' }), 'exchange', 'ClickHouse database holding the projections and the catalog.'),

  // Engine and signing
  feeAccount: setting(address(), DEFAULT_ENGINE_CONFIG.feeAccount, 'Ledger account that collects trading fees.'),
  gtdSecurityMarginSec: setting(int(0, 86_400), DEFAULT_ENGINE_CONFIG.gtdSecurityMarginSec, 'A GTD order leaves the book this many seconds before its expiration; an order expiring sooner is refused.'),
  chainId: setting(int(1, 2 ** 32 - 1), 137, 'Chain id in the EIP-712 domains of orders and of L1 authentication.'),
  exchangeAddress: setting(address(), '0xE111180000d2663C0091e4f400237545B87B996B', 'EIP-712 verifying contract for orders on standard markets.'),
  negRiskExchangeAddress: setting(address(), '0xe2222d279d744050d28e00520010520000310F59', 'EIP-712 verifying contract for orders on neg-risk markets.'),
  authFreshnessSec: setting(int(1, 3600), 30, "Largest difference, either way, between an L2 request's timestamp header and the server clock."),
  orderTimestampWindowSec: setting(int(1, 3600), 60, "Largest difference, either way, between a signed order's timestamp and the server clock; a replayed order is refused as a duplicate within it and as stale after it."),
  signatureWorkers: setting(int(0, 16), 1, 'Worker threads that hash signed orders and recover their signers; 0 checks them on the request thread.'),
  authSecret: optional(text({ minLength: 32, placeholder: '<secret>' }), 'Master secret (at least 32 characters) from which API key secrets and passphrases are derived; unset: a random one is created once in auth.secret under the data directory. Changing it invalidates every API key.', { secret: true }),

  // Access
  operatorToken: optional(text({ minLength: 16, placeholder: '<token>' }), 'Bearer token of the operator API; unset turns the operator API off.', { secret: true }),
  activityIpAllowlist: setting(listOf(cidr(), { minItems: 1 }), ['0.0.0.0/0', '::/0'] as readonly string[], 'Client networks allowed on the activity surface; the default allows all.'),
  rateLimit: setting(bool(), true, 'Enforce the per-route request rate limits.'),

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

  // Logging
  logLevel: setting(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const), 'info', 'Least severe log level written (pino levels).'),
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
