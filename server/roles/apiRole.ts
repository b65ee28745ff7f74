// Role `api` (any number of them): HTTP and WebSocket, the same front as the single process (front.ts), over a
// replica of the engine that follows the Kafka log (cluster/logFollower.ts). Commands go to the engine role
// (cluster/engineClient.ts); an answer is released once this node's replica holds the command's record, so a
// read after an acknowledged write on the same node shows it. The in-memory read model and the WebSocket
// publisher follow the same records as in the single process; the ClickHouse reads wait for the projector
// role's progress (cluster/projectionWatcher.ts).
//
// Start-up: the replica is recovered from this node's own snapshots (its data directory, written as it
// follows) and the log after them; the in-memory read model likewise, from its own snapshots written beside
// the replica's. All API nodes must share
// --auth-secret: API key credentials are derived from it.

import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { liveStateOptionsOf, type Config } from '../../config/index.js';
import type { LogRecord } from '../../log/eventLog.js';
import { openKafkaLog } from '../../log/kafka/kafkaLog.js';
import { engineConfigOf } from '../../host/engineService.js';
import { recover } from '../../host/recovery.js';
import { SnapshotStore } from '../../host/snapshotStore.js';
import { prepareCatalog } from '../../catalog/catalogDb.js';
import { applyMigrations } from '../../storage/migrations.js';
import { PROJECTION_MIGRATIONS } from '../../projections/schema.js';
import { MarketIndex } from '../../catalog/marketIndex.js';
import { LiveReadModel } from '../../projections/live/liveReadModel.js';
import { LiveSnapshotStore, snapshotBytes } from '../../projections/live/liveSnapshot.js';
import { NotificationStore } from '../../projections/notifications/notificationStore.js';
import { NotificationSnapshots } from '../../projections/notifications/notificationSnapshots.js';
import { loadUws } from '../../api/http/uwsLoader.js';
import { StreamPublisher } from '../../api/ws/streamPublisher.js';
import { EngineClient } from '../../cluster/engineClient.js';
import { LogFollower } from '../../cluster/logFollower.js';
import { ProjectionWatcher } from '../../cluster/projectionWatcher.js';
import { RemoteEngine } from '../../cluster/remoteEngine.js';
import { DurableFollower } from '../../log/durableFollower.js';
import { ServiceMetrics } from '../metrics.js';
import { LateFanout, startFront } from '../front.js';
import { retrying } from './startupRetry.js';
import { openRoleClickHouse } from './clickhouseOf.js';
import type { RoleProcess } from './roleProcess.js';
import { QuietSnapshots } from './quietSnapshots.js';

/** Replica records behind the engine's known end beyond which the node reports itself not ready. */
const READY_LAG = 1_000;
/** Longest a follower's Kafka fetch waits for new records (ms). */
const FOLLOW_FETCH_WAIT_MS = 10;
/** How often the market index is reloaded from the catalog tables (the engine role writes them). */
const MARKETS_REFRESH_MS = 5_000;
/** A replica snapshot that is due waits for this long without records (ms), up to twice the interval (quietSnapshots.ts). */
const SNAPSHOT_QUIET_MS = 20;

export interface ApiRole extends RoleProcess {
  readonly remote: RemoteEngine;
}

export async function startApiRole(config: Config, logger: Logger, signal: AbortSignal): Promise<ApiRole> {
  const uws = loadUws(config.allowSlowUws);
  if (!uws.native) logger.warn('uWebSockets.js runs on its slow JavaScript fallback (--allow-slow-uws)');
  const clock = Date.now;
  const metrics = new ServiceMetrics();
  const brokers = config.kafkaBrokers;
  const log = await retrying(
    `opening the Kafka log (topic ${config.kafkaTopic} at ${brokers.join(',')}) to follow`,
    // Fetches wait at most FOLLOW_FETCH_WAIT_MS for new records: a command's answer waits for this node's
    // replica, and a read_committed fetch may sit out its whole wait before it sees a commit.
    () => openKafkaLog({ brokers, topic: config.kafkaTopic, clientId: config.kafkaClientId, role: 'reader', fetchWaitMs: FOLLOW_FETCH_WAIT_MS }),
    logger,
    signal,
  );
  // The data directory holds this node's snapshots and the Unix socket between the header edge and uWS.
  await mkdir(config.dataDir, { recursive: true });
  const snapshots = new SnapshotStore(join(config.dataDir, 'snapshots'));
  const recovery = await recover(log, snapshots, {
    engineConfig: engineConfigOf(config),
    idHashKey: randomBytes(4).readInt32LE(0),
    onProgress: (p) => logger.info({ recovery: p }, 'replica recovery'),
  });
  for (const reason of recovery.skippedSnapshots) logger.warn({ reason }, 'replica snapshot skipped');
  const engine = recovery.engine;
  logger.info({ pos: recovery.pos, snapshotPos: recovery.snapshotPos, replayed: recovery.replayed }, 'replica of the engine recovered');
  // The replica's snapshots come from a copy of it on the snapshot thread, sent every record the replica
  // applies (as the engine's come from its copy: host/engineHost.ts), so this thread no longer exports it.
  await snapshots.follow(recovery.pos, engine);

  const ch = await openRoleClickHouse(config, logger, signal);
  const db = config.clickhouseDatabase;
  const catalog = await retrying('preparing the catalog tables', () => prepareCatalog(ch, db), logger, signal);
  // The projection tables, as the projector creates them (idempotent): this node reads them, possibly first.
  await retrying('preparing the projection tables', () => applyMigrations(ch, db, 'projections', PROJECTION_MIGRATIONS), logger, signal);
  const markets = new MarketIndex(ch, db);
  await retrying('loading the market index', () => markets.refresh(), logger, signal);

  const fanout = new LateFanout();
  const liveOptions = liveStateOptionsOf(config);
  const live = config.liveReads
    ? new LiveReadModel(log, {
        ...liveOptions,
        onFailure: (error) => logger.error({ err: error }, 'the in-memory read model stopped; its reads go to ClickHouse'),
      })
    : undefined;
  // Orders the publisher starts following from the engine take their creation time and trades from the
  // in-memory read model (the engine keeps neither).
  const publisher = new StreamPublisher({
    engine,
    fanout,
    catalog: (conditionId) => markets.get(conditionId),
    clock,
    knownOrder: (orderId) => live?.knownOrder(orderId),
    onApiKeyDeleted: (apiKey) => fanout.keyDeleted?.(apiKey),
  });
  // The in-memory read model from this node's own snapshot of it and the log after it (a node has no projector
  // beside it to restore from: projections/live/liveSnapshot.ts says why).
  const liveSnapshots = new LiveSnapshotStore(join(config.dataDir, 'live'));
  if (live !== undefined) {
    const { snapshot, skipped } = await liveSnapshots.latest(recovery.pos);
    for (const reason of skipped) logger.warn({ reason }, 'in-memory read model snapshot skipped');
    const started = performance.now();
    await live.startFrom(snapshot);
    logger.info({ snapshotPos: snapshot?.pos ?? 0, pos: live.position, ms: Math.round(performance.now() - started) }, 'in-memory read model restored');
  }
  // The notifications likewise, from this node's own snapshots of them (written every 100,000 records and at
  // close) and the log after the newest.
  const notifications = new NotificationStore(log, {
    snapshots: new NotificationSnapshots(join(config.dataDir, 'notifications')),
    // Taken from a copy beside the replica's on the snapshot thread, once that copy follows.
    copy: snapshots,
    onSnapshotError: (error) => logger.error({ err: error }, 'notifications snapshot failed'),
    onFailure: (error) => logger.error({ err: error }, 'the notifications stopped; GET /notifications answers 503'),
  });
  const notificationsStart = await notifications.start();
  for (const reason of notificationsStart.skipped) logger.warn({ reason }, 'notifications snapshot skipped');
  logger.info({ snapshotPos: notificationsStart.snapshotPos, pos: notifications.position }, 'notifications restored');

  // The read model's snapshots come from a copy of it beside the replica's copy on the snapshot thread, fed
  // with the events that copy reproduces (host/snapshotWorker.ts; --live-snapshot-copy). It is seeded from the
  // model's own bytes, taken here once (this thread waits for them: 0.7–1.3 s with 200,000 fills and 80,000
  // open orders held), at a moment when the model and the replica are at the same position: at start-up if
  // they are, else at the first batch after which they are, and again at a snapshot if the copy was lost.
  const liveSnapshotHold = metrics.summary('read_model_snapshot_hold_seconds', "Time a snapshot of the in-memory read model held this node's thread (seeding its copy, or taken here without one).");
  // Each returns the function that resolves once its file is written and the older ones pruned.
  const onThread = (written: () => Promise<void>) => () => written().then(() => liveSnapshots.prune());
  const liveSnapshotNow = (pos: number): (() => Promise<unknown>) | undefined => {
    if (live?.ready !== true) return undefined;
    if (live.position === pos && snapshots.followingLive) return onThread(snapshots.takeLive(pos, liveSnapshots.pathOf(pos)));
    const started = performance.now();
    const bytes = snapshotBytes(live.state);
    const ms = performance.now() - started;
    liveSnapshotHold(ms / 1000);
    const at = live.position;
    if (at === pos && snapshots.following && config.liveSnapshotCopy) {
      logger.info({ pos, bytes: bytes.length, ms: Math.round(ms) }, "in-memory read model's copy seeded on the snapshot thread");
      return onThread(snapshots.seedLive(pos, bytes, liveSnapshots.pathOf(pos), liveOptions));
    }
    return () => liveSnapshots.write(at, bytes);
  };
  let liveSeeded = live === undefined || !config.liveSnapshotCopy;
  const seedLiveCopy = (): void => {
    if (liveSeeded || live?.ready !== true || live.position !== follower.position || !snapshots.following) return;
    liveSeeded = true;
    const seeded = liveSnapshotNow(follower.position);
    void seeded?.().catch((error: unknown) => logger.error({ err: error }, "seeding the in-memory read model's copy failed; its snapshots are taken on this thread"));
  };
  // Replica snapshots: written as the replica follows, so that a restart replays only the log after the last.
  // The read model's snapshot goes with it, taken at the model's own position (reading it applies every batch
  // the replica handed over, so normally the same). Taken from the copies, they hold nothing here and are taken when
  // due; otherwise at quiet moments (quietSnapshots.ts).
  const replicaSnapshots = new QuietSnapshots({
    every: config.snapshotIntervalEvents,
    quietMs: SNAPSHOT_QUIET_MS,
    seq: () => engine.seq,
    holdsThread: () => !snapshots.following || (live?.ready === true && !(snapshots.followingLive && live.position === follower.position)),
    take: () => {
      const pos = follower.position;
      const replica = snapshots.take(pos, engine);
      const model = liveSnapshotNow(pos);
      return replica()
        .catch((error: unknown) => logger.error({ err: error }, 'replica snapshot failed'))
        .then(() => model?.())
        .catch((error: unknown) => logger.error({ err: error }, 'in-memory read model snapshot failed'))
        .then(() => undefined);
    },
  });
  let marketsStale = false;
  // From the engine's stamp on a command (its batch's time, before the append) to this node's replica
  // applying it: the append to Kafka plus the follower's delay. Both clocks are the machines' wall clocks.
  const replicaDelay = metrics.summary('replica_delay_seconds', "Time from the engine stamping a command to this node's replica applying it.");
  // The consumers of the records the replica applies, on the one follower (log/durableFollower.ts), as in the
  // single process; the replica's snapshot copy and its read model's copy are consumers too.
  const durable = new DurableFollower((consumer, error) => logger.error({ err: error, consumer }, 'a consumer of the durable records failed'));
  durable.register({
    name: 'replica delay',
    accept: (records) => {
      const now = Date.now();
      for (const r of records) replicaDelay((now - r.command.time) / 1000);
    },
  });
  durable.register({ name: 'read model', accept: (records) => live?.offer(records), deferredSeconds: () => live?.deferredSeconds ?? 0 });
  // Before the notifications: a snapshot they take from their copy finds every record of the batch sent to it.
  durable.register({
    name: 'snapshot copy',
    accept: (records) => {
      snapshots.followed(records);
      seedLiveCopy();
    },
  });
  durable.register({ name: 'notifications', accept: (records) => notifications.offer(records), deferredSeconds: () => notifications.deferredSeconds });
  durable.register({ name: 'WebSocket publisher', accept: (records) => publisher.publish(records) });
  durable.register({
    name: 'market index',
    accept: (records) => {
      for (const r of records) if (r.command.type === 'ListMarket' || r.command.type === 'UpdateMarket') marketsStale = true;
    },
  });
  durable.register({ name: 'replica snapshots', accept: () => replicaSnapshots.records() });
  metrics.watchFollower(durable);
  const follower = new LogFollower(log, engine, recovery.pos, {
    onRecords: (records: readonly LogRecord[]) => durable.offer(records),
    onFailure: (error) => logger.fatal({ err: error }, "this node's replica of the engine stopped following the log"),
  });
  const refresher = setInterval(() => {
    marketsStale = false;
    markets.refresh().catch((error: unknown) => logger.warn({ err: error }, 'market index refresh failed'));
  }, MARKETS_REFRESH_MS);
  refresher.unref();
  const hurry = setInterval(() => {
    if (!marketsStale) return;
    marketsStale = false;
    markets.refresh().catch((error: unknown) => logger.warn({ err: error }, 'market index refresh failed'));
  }, 200);
  hurry.unref();

  const watcher = new ProjectionWatcher(ch, db);
  await watcher.start();
  const node = `${config.kafkaClientId}@${hostname()}:${process.pid}`;
  const client = new EngineClient({
    address: config.engineAddress,
    token: config.engineToken,
    node,
    onConnected: (pos) => {
      // Called only once client.start() runs, after `remote` exists.
      remote.engineAt(pos);
      logger.info({ engine: config.engineAddress, pos }, 'connected to the engine');
    },
    onRecords: (records) => follower.offer(records),
    onDisconnected: (reason) => {
      // Whatever the engine makes durable until the node is back is read from the log.
      follower.needLog();
      logger.warn({ engine: config.engineAddress }, `lost the engine connection: ${reason}; reconnecting`);
    },
  });
  const remote = new RemoteEngine(client, follower);
  seedLiveCopy();
  follower.start();
  void client.start(0).catch(() => undefined);

  metrics.watch({ log, projector: watcher });
  metrics.gauge('read_model_copy_following', "1 while a copy of the in-memory read model on the snapshot thread follows (its snapshots hold nothing here).", () => (snapshots.followingLive ? 1 : 0));
  metrics.gauge('replica_log_position', "Last log position this node's replica of the engine holds.", () => follower.position);
  metrics.gauge('replica_lag_records', 'Records the engine has made durable that this node does not hold yet (a lower bound).', () => remote.lag);
  metrics.gauge('replica_log_reads', 'Reads of the log the replica started (at start-up, and after each gap in what the engine sent).', () => follower.logReads);
  metrics.gauge('engine_connected', '1 while this node is connected to the engine.', () => (client.connected ? 1 : 0));
  metrics.gauge('engine_unanswered_commands', 'Commands this node sent to the engine and has no answer for yet.', () => client.pending);

  const front = await startFront({
    config,
    logger,
    uws,
    clock,
    metrics,
    gateway: remote,
    projection: watcher,
    live,
    notifications,
    publisher,
    fanout,
    ch,
    catalog,
    markets,
    ready: () => {
      const problems: string[] = [];
      if (!client.connected) problems.push(`not connected to the engine at ${config.engineAddress}: ${client.problem}`);
      if (follower.failed !== undefined) problems.push(`the replica stopped following the log: ${follower.failed.message}`);
      else if (remote.lag > READY_LAG) problems.push(`the replica is ${remote.lag} records behind the engine`);
      if (live !== undefined && !live.ready) problems.push('the in-memory read model is not serving (reads go to ClickHouse)');
      if (!notifications.ready) problems.push('the notifications are not serving (GET /notifications answers 503)');
      if (watcher.problem !== undefined) problems.push(`ClickHouse: ${watcher.problem}`);
      return { ready: problems.length === 0, problems };
    },
  });

  let closing: Promise<void> | undefined;
  return {
    role: 'api',
    port: front.port,
    remote,
    close: () =>
      (closing ??= (async () => {
        clearInterval(refresher);
        clearInterval(hurry);
        await front.close();
        client.close();
        await follower.close();
        await notifications.close().catch((error: unknown) => logger.error({ err: error }, 'notifications snapshot at shutdown failed'));
        replicaSnapshots.close();
        await snapshots.close();
        watcher.close();
        await log.close();
        await ch.close();
        metrics.close();
        logger.info('stopped');
      })()),
  };
}
