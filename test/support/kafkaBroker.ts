// A Kafka broker for the Kafka test tier. KAFKA_BROKERS (set by scripts/test.sh, or by hand) names a running
// one; otherwise the first call starts a throwaway broker with scripts/kafka/broker.sh for this test process
// and stops it when the process's tests end (a watchdog stops it too if the process dies first).
//
// When Java or Maven is missing the promise rejects with broker.sh's message saying what to install: the test
// file fails. It never skips. When scripts/test.sh already failed to start one, it passes that message on in
// KAFKA_TIER_ERROR and the files fail with it at once instead of each trying again.

import tap from 'tap';
import { Kafka, logLevel } from 'kafkajs';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = join(root, 'scripts/kafka/broker.sh');

let started: Promise<string[]> | null = null;

function run(command: string, env: NodeJS.ProcessEnv): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', [script, command], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => resolve({ status: 127, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (status) => resolve({ status: status ?? 1, stdout, stderr }));
  });
}

async function startBroker(): Promise<string[]> {
  const stateDir = mkdtempSync(join(tmpdir(), 'pmx-kafka-state-'));
  const env = { ...process.env, KAFKA_STATE_DIR: stateDir, KAFKA_OWNER_PID: String(process.pid) };
  const result = await run('start', env);
  if (result.status !== 0) {
    rmSync(stateDir, { recursive: true, force: true });
    const hint = result.status === 3 ? '' : ' (or set KAFKA_BROKERS to a running broker)';
    throw new Error(`the Kafka test tier could not start a broker (scripts/kafka/broker.sh exit ${result.status})${hint}:\n${result.stderr.trim()}`);
  }
  tap.teardown(async () => {
    await run('stop', env);
    rmSync(stateDir, { recursive: true, force: true });
  });
  const address = result.stdout.trim().split('\n').pop() ?? '';
  return [address];
}

/** Bootstrap brokers for the tests: KAFKA_BROKERS, or a broker started for this test process. */
export function kafkaBrokers(): Promise<string[]> {
  const failed = process.env.KAFKA_TIER_ERROR?.trim();
  if (failed !== undefined && failed !== '') {
    return Promise.reject(new Error(`the Kafka test tier has no broker: scripts/test.sh could not start one:\n${failed}`));
  }
  const given = process.env.KAFKA_BROKERS?.trim();
  if (given !== undefined && given !== '') return Promise.resolve(given.split(',').map((b) => b.trim()));
  started ??= startBroker();
  return started;
}

let counter = 0;

/** A topic name no other test (or earlier run against the same broker) uses. */
export function uniqueTopic(label: string): string {
  counter += 1;
  return `test-${label}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

/**
 * Leaves a transaction open on `topic` holding `value`, as a writer that crashed mid-append does: a producer
 * with `transactionalId` sends it and disconnects without committing or aborting.
 */
export async function leaveOpenTransaction(brokers: readonly string[], topic: string, transactionalId: string, value: Buffer): Promise<void> {
  const kafka = new Kafka({ clientId: 'test-crashed-writer', brokers: [...brokers], logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const tx = await producer.transaction();
  await tx.send({ topic, acks: -1, messages: [{ partition: 0, value }] });
  await producer.disconnect();
}
