// Phase 1 of the projection benchmark: a journal holding `fills` fills (written by the real engine from the
// workload), projected from position 1 by a fresh projector into a fresh chDB database. Fills/s counts the
// projection only (catchUp: journal read, row building, inserts, progress), not the journal's writing. The
// result is checked: count() and uniqExact(fill_id) of `fills` must equal the fills in the log.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ENGINE_CONFIG, Engine } from '../engine/index.js';
import type { LogRecord } from '../log/eventLog.js';
import { Journal } from '../log/journal/journal.js';
import type { ClickHouseClient } from '../storage/clickhouse.js';
import { Projector } from '../projections/projector.js';
import { threadCpuMs } from './processProbe.js';
import { ProjectionsWorkload, T0 } from './projectionsWorkload.js';

export interface ThroughputResult {
  readonly fills: number;
  readonly records: number;
  readonly rows: number;
  readonly seconds: number;
  readonly fillsPerSec: number;
  readonly maxBatch: number;
  /** Process CPU time (all threads) while projecting. */
  readonly cpuSeconds: number;
  /** CPU ms per thread name while projecting (Linux; 'main (JS)' is the JavaScript thread). */
  readonly threadCpuMs: Record<string, number>;
}

/** Writes a journal of at least `fills` fills; returns it open, with its record and fill counts. */
export async function writeJournal(dir: string, workload: ProjectionsWorkload, fills: number): Promise<{ journal: Journal; records: number; fills: number }> {
  const journal = await Journal.open({ dir, segmentBytes: 256 << 20 });
  const engine = new Engine();
  let pos = 0;
  let made = 0;
  let batch: LogRecord[] = [];
  const push = async (commands: ReturnType<ProjectionsWorkload['setup']>): Promise<void> => {
    for (const command of commands) {
      const events = engine.apply(command);
      for (const e of events) {
        if (e.type === 'TradeExecuted') made += 1;
        else if (e.type === 'OrderRejected' || e.type === 'CommandRejected') throw new Error(`workload command refused: ${JSON.stringify(e)}`);
      }
      batch.push({ pos: ++pos, command, events });
      if (batch.length === 2_000) {
        await journal.append(batch);
        batch = [];
      }
    }
  };
  await push(workload.setup());
  for (let i = 0; made < fills; i++) await push(workload.nextRound(T0 + 1 + Math.floor(i / 10)));
  await journal.append(batch);
  return { journal, records: pos, fills: made };
}

export async function measureThroughput(
  ch: ClickHouseClient,
  db: string,
  workload: ProjectionsWorkload,
  fills: number,
  maxBatch: number,
  onInsert?: (table: string, rows: number, ms: number) => void,
  bookHistory = true,
): Promise<ThroughputResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-proj-'));
  try {
    const log = await writeJournal(join(dir, 'journal'), workload, fills);
    let rows = 0;
    const projector = new Projector(ch, db, log.journal, { feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount, maxBatch, onBatch: (_f, _t, n) => (rows += n), onInsert, bookHistory });
    await projector.start();
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const threads0 = threadCpuMs();
    await projector.catchUp();
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const threads = threadCpuMs();
    for (const [name, ms] of Object.entries(threads0)) threads[name] = (threads[name] ?? 0) - ms;
    await log.journal.close();
    const result = await ch.query({ query: `SELECT count() AS n, uniqExact(fill_id) AS u FROM ${db}.fills`, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
    const [check] = (await result.json()) as { n: number; u: number }[];
    if (Number(check?.n) !== log.fills || Number(check?.u) !== log.fills) throw new Error(`projected ${check?.n} fills (${check?.u} distinct), the log holds ${log.fills}`);
    return { fills: log.fills, records: log.records, rows, seconds, fillsPerSec: log.fills / seconds, maxBatch, cpuSeconds: (cpu.user + cpu.system) / 1e6, threadCpuMs: threads };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
