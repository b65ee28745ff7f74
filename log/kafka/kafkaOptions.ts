// Settings of the Kafka event log and the kafkajs client built from them.

import { Kafka, logLevel, type ISocketFactory, type LogEntry } from 'kafkajs';
import { WRITER_LANES } from './writerLanes.js';

export interface KafkaLogOptions {
  /** Bootstrap brokers, host:port. */
  readonly brokers: readonly string[];
  /** The topic holding the log: one partition, so the order is total. Created when missing. */
  readonly topic: string;
  readonly clientId: string;
  /**
   * 'writer' (default) initialises the transactional producer on open, which fences any earlier writer of the
   * same transactional id; 'reader' never writes and never fences (projections, tools).
   */
  readonly role?: 'writer' | 'reader';
  /**
   * Transactional id of the writer. The default is derived from the topic, not the client id, so that two
   * engines writing the same topic always fence each other whatever their client ids.
   */
  readonly transactionalId?: string;
  /**
   * Transactional producers the writer uses in turn (writerLanes.ts), with ids `transactionalId`,
   * `transactionalId.2`, ... (default 2).
   */
  readonly writerLanes?: number;
  /** Replication factor when the topic has to be created (default: the broker's default). */
  readonly replicationFactor?: number;
  /** Create the topic when it is missing (default true). */
  readonly createTopic?: boolean;
  /** Kafka aborts a transaction left open longer than this (default 30 s). */
  readonly transactionTimeoutMs?: number;
  /** read() fails when the topic yields nothing for this long before reaching its end (default 30 s). */
  readonly readStallMs?: number;
  /** Longest a fetch waits for new data; bounds how long closing a reader takes (default 250 ms). */
  readonly fetchWaitMs?: number;
  readonly connectionTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  /** Receives kafkajs's warnings and errors (default: dropped; kafkajs reports failures through errors too). */
  readonly onClientLog?: (level: 'error' | 'warn', message: string) => void;
  /** How kafkajs opens connections (proxies, custom transports; tests use it to inject lost responses). */
  readonly socketFactory?: ISocketFactory;
}

export interface ResolvedKafkaLogOptions extends Required<Omit<KafkaLogOptions, 'onClientLog' | 'socketFactory'>> {
  readonly onClientLog: ((level: 'error' | 'warn', message: string) => void) | undefined;
  readonly socketFactory: ISocketFactory | undefined;
}

export function resolveOptions(options: KafkaLogOptions): ResolvedKafkaLogOptions {
  if (options.brokers.length === 0) throw new Error('the Kafka event log needs at least one broker');
  return {
    brokers: options.brokers,
    topic: options.topic,
    clientId: options.clientId,
    role: options.role ?? 'writer',
    transactionalId: options.transactionalId ?? `${options.topic}.engine-writer`,
    writerLanes: options.writerLanes ?? WRITER_LANES,
    replicationFactor: options.replicationFactor ?? -1,
    createTopic: options.createTopic ?? true,
    transactionTimeoutMs: options.transactionTimeoutMs ?? 30_000,
    readStallMs: options.readStallMs ?? 30_000,
    fetchWaitMs: options.fetchWaitMs ?? 250,
    connectionTimeoutMs: options.connectionTimeoutMs ?? 3_000,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    onClientLog: options.onClientLog,
    socketFactory: options.socketFactory,
  };
}

export function createClient(options: ResolvedKafkaLogOptions): Kafka {
  const sink = options.onClientLog;
  return new Kafka({
    clientId: options.clientId,
    brokers: [...options.brokers],
    connectionTimeout: options.connectionTimeoutMs,
    requestTimeout: options.requestTimeoutMs,
    ...(options.socketFactory === undefined ? {} : { socketFactory: options.socketFactory }),
    logLevel: sink === undefined ? logLevel.NOTHING : logLevel.WARN,
    logCreator: () => (entry: LogEntry) => {
      if (sink === undefined) return;
      sink(entry.level === logLevel.ERROR ? 'error' : 'warn', `kafkajs ${entry.namespace}: ${entry.log.message}`);
    },
  });
}
