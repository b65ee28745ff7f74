// Kafka for the log benchmark: KAFKA_BROKERS when set, else a broker started with scripts/kafka/broker.sh
// for the duration of the run.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EventLog } from '../log/eventLog.js';
import { openKafkaLog } from '../log/kafka/kafkaLog.js';

export interface BenchKafka {
  readonly brokers: string;
  open(topic: string): Promise<EventLog>;
  stop(): Promise<void>;
}

/** The repository root, whether this runs from bench/ (tsx) or dist/bench/ (compiled). */
const here = dirname(fileURLToPath(import.meta.url));
const root = existsSync(join(here, '..', 'scripts', 'kafka')) ? join(here, '..') : join(here, '..', '..');

export async function openBenchKafkaLog(): Promise<BenchKafka> {
  const given = process.env.KAFKA_BROKERS?.trim();
  let brokers: string[];
  let stop = async (): Promise<void> => undefined;
  if (given !== undefined && given !== '') {
    brokers = given.split(',');
  } else {
    const stateDir = mkdtempSync(join(tmpdir(), 'bench-kafka-'));
    const env = { ...process.env, KAFKA_STATE_DIR: stateDir, KAFKA_OWNER_PID: String(process.pid) };
    const script = join(root, 'scripts/kafka/broker.sh');
    const started = spawnSync('bash', [script, 'start'], { cwd: root, env, encoding: 'utf8' });
    if (started.status !== 0) throw new Error(`could not start a Kafka broker for the benchmark: ${started.stderr}`);
    brokers = [started.stdout.trim().split('\n').pop() ?? ''];
    stop = async () => {
      spawnSync('bash', [script, 'stop'], { cwd: root, env });
      rmSync(stateDir, { recursive: true, force: true });
    };
  }
  return {
    brokers: brokers.join(','),
    open: (topic) => openKafkaLog({ brokers, topic, clientId: 'bench-log', replicationFactor: 1 }),
    stop,
  };
}
