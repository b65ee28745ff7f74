// Event-log benchmark: appends per second and p99 append latency at batch sizes 1, 100 and 1000, for the
// embedded journal with fsync and for Kafka (acks from all in-sync replicas, idempotent transactional
// producer); and replay time of a journal holding at least 1M events (target: 10M events in at most 30 s,
// extrapolated from the measured rate). The last line printed is one JSON object.
//
// Kafka: uses KAFKA_BROKERS when set, else starts a local broker (scripts/kafka); BENCH_LOG_KAFKA=0 skips it.
// BENCH_LOG_SECONDS bounds each append phase (default 4 s); BENCH_REPLAY_EVENTS the replay size (1M).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ENGINE_CONFIG, Engine, type Command } from '../engine/index.js';
import type { EventLog, LogRecord } from '../log/eventLog.js';
import { Journal } from '../log/journal/journal.js';
import { recover } from '../host/recovery.js';
import { summarise } from './latency.js';
import { openBenchKafkaLog } from './logBenchKafka.js';

const SECONDS = Number(process.env.BENCH_LOG_SECONDS ?? 4);
const REPLAY_EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 1_000_000);
const T0 = 1_700_000_000_000;

/** A deterministic trading session: every second order crosses, so commands carry fills. */
function* session(): Generator<Command> {
  yield { type: 'ListMarket', time: T0, conditionId: '0xbench', tokenIds: ['1', '2'], tickSize: 10_000, minSize: 1_000_000, makerFeeBps: 0, takerFeeBps: 10, negRisk: false };
  yield { type: 'Deposit', time: T0, account: '0xa', amount: 2 ** 51 };
  yield { type: 'Deposit', time: T0, account: '0xb', amount: 2 ** 51 };
  for (let i = 0; ; i++) {
    const account = i % 2 === 0 ? '0xa' : '0xb';
    const tokenId = i % 2 === 0 ? '1' : '2';
    const price = i % 2 === 0 ? 500_000 : 510_000;
    const qty = 1_000_000 * (1 + (i % 5));
    yield {
      type: 'PlaceOrder', time: T0 + i, orderId: `0x${i.toString(16).padStart(64, '0')}`, account, owner: 'bench', tokenId, side: 'BUY',
      makerAmount: (qty / 10_000) * (price / 100), takerAmount: qty, orderType: 'GTC', postOnly: false, expiration: 0, dedupeUntil: 0,
    };
  }
}

/** Records with their events, as the engine host would append them. */
function makeRecords(count: number, firstPos = 1): { records: LogRecord[]; events: number } {
  const engine = new Engine();
  const records: LogRecord[] = [];
  let events = 0;
  const gen = session();
  for (let pos = firstPos; records.length < count; pos++) {
    const command = gen.next().value as Command;
    const produced = engine.apply(command);
    events += produced.length;
    records.push({ pos, command, events: produced });
  }
  return { records, events };
}

interface AppendResult {
  readonly batch: number;
  readonly appendsPerSec: number;
  readonly recordsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly appends: number;
}

async function measureAppends(log: EventLog, records: readonly LogRecord[], batch: number): Promise<AppendResult> {
  const maxAppends = Math.floor(records.length / batch);
  const samples = new Float64Array(maxAppends);
  const deadline = performance.now() + SECONDS * 1000;
  const offset = log.lastPos;
  let n = 0;
  const started = performance.now();
  while (n < maxAppends && performance.now() < deadline) {
    const slice = records.slice(n * batch, (n + 1) * batch).map((r) => ({ ...r, pos: r.pos + offset }));
    const t0 = performance.now();
    await log.append(slice);
    samples[n] = performance.now() - t0;
    n += 1;
  }
  const elapsed = (performance.now() - started) / 1000;
  const s = summarise(samples.subarray(0, n));
  return { batch, appends: n, appendsPerSec: n / elapsed, recordsPerSec: (n * batch) / elapsed, p50Ms: s.p50Ns, p99Ms: s.p99Ns };
}

function row(name: string, r: AppendResult): string {
  return `${name.padEnd(8)} batch ${String(r.batch).padStart(5)}  ${r.appendsPerSec.toFixed(0).padStart(8)} appends/s  ${r.recordsPerSec.toFixed(0).padStart(9)} records/s  p50 ${r.p50Ms.toFixed(2)} ms  p99 ${r.p99Ms.toFixed(2)} ms  (${r.appends} appends)`;
}

async function measureReplay(dir: string): Promise<{ events: number; records: number; bytes: number; replaySec: number; singleSec: number }> {
  // Replay: a journal with at least REPLAY_EVENTS events, recovered from position 1 with no snapshot.
  const replayDir = join(dir, 'replay');
  const journal = await Journal.open({ dir: replayDir, segmentBytes: 64 << 20 });
  const engine = new Engine();
  const gen = session();
  let events = 0;
  let pos = 0;
  while (events < REPLAY_EVENTS) {
    const batch: LogRecord[] = [];
    for (let i = 0; i < 1000; i++) {
      const command = gen.next().value as Command;
      const produced = engine.apply(command);
      events += produced.length;
      batch.push({ pos: ++pos, command, events: produced });
    }
    await journal.append(batch);
  }
  const bytes = await journal.bytesOnDisk();
  // Replay both ways: reading on this thread, and pipelined with a reader thread (recovery's default).
  const timeReplay = async (pipelined: boolean): Promise<number> => {
    const t0 = performance.now();
    const restored = await recover(journal, undefined, { engineConfig: DEFAULT_ENGINE_CONFIG, pipelined });
    const seconds = (performance.now() - t0) / 1000;
    if (restored.engine.stateHash() !== engine.stateHash()) throw new Error('replay did not reproduce the live state hash');
    return seconds;
  };
  const singleSec = await timeReplay(false);
  const replaySec = await timeReplay(true);
  console.log(`replay   single thread: ${singleSec.toFixed(2)} s; pipelined (reader thread): ${replaySec.toFixed(2)} s`);
  await journal.close();
  return { events, records: pos, bytes, replaySec, singleSec };
}

async function main(): Promise<void> {
  console.log(`log benchmark on ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}, node ${process.version}; ${SECONDS} s per phase`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-log-'));
  // Replay first, on a clean heap: the records generated for the append phases would otherwise stay alive
  // and make garbage collection during replay slower than a restarting engine would see.
  const { events, records: replayRecords, bytes, replaySec, singleSec } = await measureReplay(dir);

  const { records } = makeRecords(1_000 * 1_000);
  const results: Record<string, AppendResult[]> = { journal: [], kafka: [] };

  for (const batch of [1, 100, 1000]) {
    const journal = await Journal.open({ dir: join(dir, `journal-${batch}`), segmentBytes: 64 << 20 });
    const r = await measureAppends(journal, records, batch);
    results.journal?.push(r);
    console.log(row('journal', r));
    await journal.close();
  }

  let kafkaNote = 'skipped (BENCH_LOG_KAFKA=0)';
  if (process.env.BENCH_LOG_KAFKA !== '0') {
    const kafka = await openBenchKafkaLog();
    try {
      for (const batch of [1, 100, 1000]) {
        const log = await kafka.open(`bench-${batch}-${Date.now()}`);
        const r = await measureAppends(log, records, batch);
        results.kafka?.push(r);
        console.log(row('kafka', r));
        await log.close();
      }
      kafkaNote = `broker ${kafka.brokers}`;
    } finally {
      await kafka.stop();
    }
  }

  const eventsPerSec = events / replaySec;
  const projected10M = 10_000_000 / eventsPerSec;
  console.log(`replay   ${events} events in ${replayRecords} records (${(bytes / 2 ** 20).toFixed(0)} MiB): ${replaySec.toFixed(2)} s, ${eventsPerSec.toFixed(0)} events/s; 10M events would take ${projected10M.toFixed(1)} s (target <= 30 s)`);
  rmSync(dir, { recursive: true, force: true });
  console.log(`kafka: ${kafkaNote}`);

  const pick = (name: string, batch: number): AppendResult | undefined => results[name]?.find((r) => r.batch === batch);
  const summary: Record<string, number | boolean | string | null> = { node: process.version, seconds_per_phase: SECONDS };
  for (const name of ['journal', 'kafka']) {
    for (const batch of [1, 100, 1000]) {
      const r = pick(name, batch);
      summary[`${name}_b${batch}_appends_per_sec`] = r === undefined ? null : Math.round(r.appendsPerSec);
      summary[`${name}_b${batch}_records_per_sec`] = r === undefined ? null : Math.round(r.recordsPerSec);
      summary[`${name}_b${batch}_p99_ms`] = r === undefined ? null : Number(r.p99Ms.toFixed(3));
    }
  }
  summary.replay_events = events;
  summary.replay_seconds = Number(replaySec.toFixed(3));
  summary.replay_single_thread_seconds = Number(singleSec.toFixed(3));
  summary.replay_events_per_sec = Math.round(eventsPerSec);
  summary.replay_10m_projected_seconds = Number(projected10M.toFixed(2));
  summary.target_replay_met = projected10M <= 30;
  console.log(JSON.stringify(summary));
}

await main();
