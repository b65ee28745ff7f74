// What the trading routes (api/trading/) read and write: the engine host (commands go through the log), the
// API key registry over the engine's key table, the signature checker, the projector
// (account reads wait until it has caught up with what this process acknowledged) and the read model.

import type { CommandGateway } from '../../host/commandGateway.js';
import type { ApiKeyRegistry, OrderDomainConfig } from '../../auth/index.js';
import type { ReadContext } from '../../projections/readModel/index.js';
import type { LiveReadModel } from '../../projections/live/liveReadModel.js';
import type { NotificationStore } from '../../projections/notifications/notificationStore.js';
import type { RateLimiter } from '../http/rateLimiter.js';
import type { SignatureChecker } from './signatureChecks.js';

/** The chain id of L1 signatures and the EIP-712 order domains (balance-allowance names the exchanges). */
export interface TradingSettings extends OrderDomainConfig {
  /** Largest difference, either way, between an L1/L2 timestamp header and the server clock (s). */
  readonly authFreshnessSec: number;
  /** Largest difference, either way, between a signed order's `timestamp` and the server clock (s). */
  readonly orderTimestampWindowSec: number;
  /** Window of a heartbeat session (s): a session whose next heartbeat is later has its orders cancelled. */
  readonly heartbeatTimeoutSec: number;
}

/** The part of the projector the account reads need: read-your-writes up to a log position. */
export interface ProjectionProgress {
  readonly position: number;
  waitFor(pos: number, timeoutMs?: number): Promise<void>;
}

export interface TradingDeps {
  readonly settings: TradingSettings;
  readonly host: CommandGateway;
  readonly registry: ApiKeyRegistry;
  /** Order hashing and signature recovery, on worker threads or inline. */
  readonly signatures: SignatureChecker;
  readonly projection: ProjectionProgress;
  readonly reads: ReadContext;
  /** The in-memory read model (open orders, one order by id), when on; else those reads go to ClickHouse. */
  readonly live?: LiveReadModel;
  /** The notifications (projections/notifications/); without them GET /notifications answers 503. */
  readonly notifications?: NotificationStore;
  /** The server's limiter, when rate limits are on: POST /orders counts each order of a batch. */
  readonly limiter?: RateLimiter;
  /** Wall clock, ms since the epoch. */
  readonly clock: () => number;
}
