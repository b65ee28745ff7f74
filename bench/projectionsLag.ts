// Phase 2 of the projection benchmark: projection lag under a steady load. A real engine host appends to a
// real journal (one synchronised write per batch, group commit); a projector runs beside it (run(), handed each durable batch
// in memory as the service does, or only woken by it and reading the journal with handOver false; commits
// spaced by minIntervalMs and, under load, as far as lagBudgetMs allows, as the service spaces them), both in this process as in the embedded deployment. A driver submits workload rounds
// at `fillsPerSec` (paced by elapsed time, so a slow turn is caught up rather than dropped). Every `sampleMs`
// a sample records
//   lag (positions) = log position − projected position
//   lag (ms)        = age of the oldest durable record not yet projected (0 when none)
// Samples before `warmupSec` are discarded. After the run the projector must catch up and hold every fill.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ENGINE_CONFIG, Engine } from '../engine/index.js';
import { EngineHost, type Submission } from '../host/engineHost.js';
import { Journal } from '../log/journal/journal.js';
import type { LogRecord } from '../log/eventLog.js';
import type { ClickHouseClient } from '../storage/clickhouse.js';
import { Projector } from '../projections/projector.js';
import { summarise } from './latency.js';
import { threadCpuMs } from './processProbe.js';
import type { ProjectionsWorkload } from './projectionsWorkload.js';

export interface LagOptions {
  readonly fillsPerSec: number;
  readonly seconds: number;
  readonly warmupSec: number;
  readonly sampleMs: number;
  /** The projector's minIntervalMs (the service passes its projectionIntervalMs setting). */
  readonly minIntervalMs: number;
  /** The projector's lagBudgetMs (the service passes its projectionLagBudgetMs setting); undefined: none. */
  readonly lagBudgetMs: number | undefined;
  /** Hand the host's durable records to the projector (Projector.offer()), as the service does. */
  readonly handOver: boolean;
}

export interface LagResult {
  readonly targetFillsPerSec: number;
  readonly achievedFillsPerSec: number;
  readonly seconds: number;
  readonly samples: number;
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
  readonly lagP99Positions: number;
  readonly lagMaxPositions: number;
  readonly catchUpMs: number;
  /** CPU µs per fill after the warm-up, all threads (engine host, journal, projector, chDB), and by thread name. */
  readonly cpuUsPerFill: number;
  readonly threadCpuUsPerFill: Record<string, number>;
  /** Records the projector took from the hand-over, of all it projected. */
  readonly handedOver: number;
  readonly projected: number;
}

const strip = (commands: readonly { time: number }[]): Submission[] => commands.map(({ time: _time, ...rest }) => rest as Submission);

export async function measureLag(ch: ClickHouseClient, db: string, workload: ProjectionsWorkload, options: LagOptions): Promise<LagResult> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-lag-'));
  const journal = await Journal.open({ dir, segmentBytes: 256 << 20 });
  // Durable batches: last position and the time it became durable, in order.
  const durable: { last: number; at: number }[] = [];
  let fills = 0;
  let projector: Projector | undefined;
  const host = new EngineHost(new Engine(), journal, {
    maxBatch: 2_000,
    clock: Date.now,
    onDurable: (records: readonly LogRecord[]) => {
      durable.push({ last: (records[records.length - 1] as LogRecord).pos, at: performance.now() });
      for (const r of records) for (const e of r.events) if (e.type === 'TradeExecuted') fills += 1;
      if (options.handOver) projector?.offer(records);
      else projector?.notify();
    },
  });
  const refused: string[] = [];
  const submit = (s: Submission): void => {
    host.submit(s).then(
      (events) => {
        for (const e of events) if (e.type === 'OrderRejected' || e.type === 'CommandRejected') refused.push(e.message);
      },
      (error: unknown) => refused.push(String(error)),
    );
  };
  try {
    for (const s of strip(workload.setup())) submit(s);
    await host.idle();
    projector = new Projector(ch, db, journal, { feeAccount: DEFAULT_ENGINE_CONFIG.feeAccount, minIntervalMs: options.minIntervalMs, lagBudgetMs: options.lagBudgetMs });
    await projector.start();
    await projector.catchUp();
    const setupFills = fills;
    const controller = new AbortController();
    const running = projector.run(controller.signal);
    const p = projector;

    const lagMs: number[] = [];
    const lagPos: number[] = [];
    let oldest = 0; // index into `durable` of the first batch with unprojected records
    const started = performance.now();
    let rounds = 0;
    const roundsPerMs = options.fillsPerSec / workload.config.makers / 1000;
    const endAt = started + options.seconds * 1000;
    const warmEnd = started + options.warmupSec * 1000;
    let fillsAtWarm = -1;
    let cpuAtWarm = process.cpuUsage();
    let threadsAtWarm: Record<string, number> = {};
    await new Promise<void>((resolve) => {
      const drive = (): void => {
        const now = performance.now();
        if (now >= endAt) return resolve();
        const due = Math.floor((now - started) * roundsPerMs);
        for (; rounds < due; rounds++) for (const s of strip(workload.nextRound(0))) submit(s);
        setTimeout(drive, 2);
      };
      const sample = (): void => {
        const now = performance.now();
        if (now >= endAt) return;
        if (now >= warmEnd) {
          if (fillsAtWarm < 0) {
            fillsAtWarm = fills;
            cpuAtWarm = process.cpuUsage();
            threadsAtWarm = threadCpuMs();
          }
          while (oldest < durable.length && (durable[oldest] as { last: number }).last <= p.position) oldest += 1;
          const pending = durable[oldest];
          lagMs.push(pending === undefined ? 0 : now - pending.at);
          lagPos.push(Math.max(0, host.position - p.position));
        }
        setTimeout(sample, options.sampleMs);
      };
      drive();
      sample();
    });
    const measuredSec = (performance.now() - warmEnd) / 1000;
    const measuredFills = fills - Math.max(0, fillsAtWarm);
    const achieved = measuredFills / measuredSec;
    const cpu = process.cpuUsage(cpuAtWarm);
    const threadCpuUsPerFill: Record<string, number> = {};
    for (const [name, ms] of Object.entries(threadCpuMs())) {
      const used = ms - (threadsAtWarm[name] ?? 0);
      if (used > 0) threadCpuUsPerFill[name] = (1000 * used) / measuredFills;
    }
    await host.idle();
    const t0 = performance.now();
    await p.waitFor(host.position, 600_000);
    const catchUpMs = performance.now() - t0;
    controller.abort();
    await running;
    if (refused.length > 0) throw new Error(`${refused.length} commands refused, first: ${refused[0]}`);
    const result = await ch.query({ query: `SELECT count() AS n FROM ${db}.fills`, format: 'JSONEachRow', clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
    const [row] = (await result.json()) as { n: number }[];
    if (Number(row?.n) !== fills) throw new Error(`projected ${row?.n} fills, the log holds ${fills} (setup ${setupFills})`);
    const ms = summarise(Float64Array.from(lagMs));
    const pos = summarise(Float64Array.from(lagPos));
    return {
      targetFillsPerSec: options.fillsPerSec, achievedFillsPerSec: achieved, seconds: measuredSec, samples: ms.count,
      lagP50Ms: ms.p50Ns, lagP99Ms: ms.p99Ns, lagMaxMs: ms.maxNs, lagP99Positions: pos.p99Ns, lagMaxPositions: pos.maxNs, catchUpMs,
      cpuUsPerFill: (cpu.user + cpu.system) / measuredFills, threadCpuUsPerFill, handedOver: p.handedOver, projected: p.position,
    };
  } finally {
    await host.idle();
    await journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
