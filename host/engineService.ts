// The engine as a running service: opens the configured event log (the embedded journal under the data
// directory, or a Kafka topic), restores the engine from the latest snapshot plus the log, and hosts it, with a copy of
// it on the snapshot thread that snapshots are taken from (EngineHost.followOnSnapshotThread).
// close() stops taking commands, waits for the in-flight batch to become durable, writes a final snapshot
// and closes the log.

import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from '../config/index.js';
import type { EngineConfig } from '../engine/index.js';
import type { EventLog } from '../log/eventLog.js';
import { Journal } from '../log/journal/journal.js';
import { EngineHost, type EngineHostOptions } from './engineHost.js';
import { SnapshotStore } from './snapshotStore.js';
import { recover, type RecoveryProgress, type RecoveryResult } from './recovery.js';

export interface EngineService {
  readonly host: EngineHost;
  readonly log: EventLog;
  readonly recovery: RecoveryResult;
  /** The engine's snapshots, and the copies on the snapshot thread that other state can keep beside the engine's. */
  readonly snapshots: SnapshotStore;
  close(): Promise<void>;
}

export interface EngineServiceHooks {
  /** Opens the Kafka log when the backend is kafka (default: from the configuration). */
  readonly openKafkaLog?: (config: Config) => Promise<EventLog>;
  readonly onProgress?: (progress: RecoveryProgress) => void;
  readonly onStop?: EngineHostOptions['onStop'];
  readonly onDurable?: EngineHostOptions['onDurable'];
  readonly onSnapshotError?: EngineHostOptions['onSnapshotError'];
  readonly onAppended?: EngineHostOptions['onAppended'];
  readonly clock?: () => number;
}

export function engineConfigOf(config: Config): EngineConfig {
  return { feeAccount: config.feeAccount, gtdSecurityMarginSec: config.gtdSecurityMarginSec };
}

/** The Kafka log of the configuration; kafkajs is loaded only when the backend is kafka. */
async function openConfiguredKafkaLog(config: Config): Promise<EventLog> {
  const brokers = config.kafkaBrokers;
  if (brokers === undefined || brokers.length === 0) throw new Error('the kafka log backend needs --kafka-brokers (PMX_KAFKA_BROKERS)');
  const { openKafkaLog } = await import('../log/kafka/kafkaLog.js');
  return openKafkaLog({ brokers, topic: config.kafkaTopic, clientId: config.kafkaClientId });
}

export async function openEventLog(config: Config, hooks: EngineServiceHooks = {}): Promise<EventLog> {
  if (config.logBackend === 'kafka') return (hooks.openKafkaLog ?? openConfiguredKafkaLog)(config);
  return Journal.open({ dir: join(config.dataDir, 'journal'), segmentBytes: config.journalSegmentBytes });
}

export async function startEngineService(config: Config, hooks: EngineServiceHooks = {}): Promise<EngineService> {
  const log = await openEventLog(config, hooks);
  const snapshots = new SnapshotStore(join(config.dataDir, 'snapshots'));
  let recovery: RecoveryResult;
  try {
    // A fresh random key for the engine's order-id hash each start: traders cannot aim ids at one slot of the
    // table (engine/orderIdHash.ts). It changes no event and no state hash.
    recovery = await recover(log, snapshots, { engineConfig: engineConfigOf(config), idHashKey: randomBytes(4).readInt32LE(0), onProgress: hooks.onProgress });
  } catch (error) {
    await log.close();
    throw error;
  }
  const host = new EngineHost(recovery.engine, log, {
    maxBatch: config.groupCommitMaxBatch,
    clock: hooks.clock ?? Date.now,
    snapshotEvery: config.snapshotIntervalEvents,
    snapshots,
    onStop: hooks.onStop,
    onDurable: hooks.onDurable,
    onSnapshotError: hooks.onSnapshotError,
    onAppended: hooks.onAppended,
  });
  // Snapshots from a copy of the engine on the snapshot thread, so that taking one never holds the engine's.
  try {
    await host.followOnSnapshotThread();
  } catch (error) {
    await snapshots.close();
    await log.close();
    throw error;
  }
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      host.unwatchDeadlines();
      await host.idle();
      if (host.stopped === null && host.position > recovery.pos) await host.snapshotNow();
      await snapshots.close();
      await log.close();
    })();
    return closing;
  };
  return { host, log, recovery, snapshots, close };
}
