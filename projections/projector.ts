// The projector: reads the event log and writes the projection tables, each fill counted exactly once
// whatever crashes, restarts or redeliveries happen.
//
// A batch is a range of log positions [from, to]. Committing it:
//   1. record "pending [from, to]" in projection_progress;
//   2. insert each table's rows with insert_deduplication_token `<projector>:<table>:<from>-<to>`;
//   3. record "progress = to".
// After a crash anywhere in between, start() finds the pending range and redoes exactly it: the in-memory
// state is restored as of the committed progress (rows with version <= progress), so the redo produces the
// same rows under the same tokens, and ClickHouse drops the inserts that had already landed.

import type { ClickHouseClient } from '@clickhouse/client';
import type { EventLog, LogRecord } from '../log/eventLog.js';
import { applyMigrations } from '../storage/migrations.js';
import { queryRows } from '../storage/clickhouse.js';
import { PROJECTION_MIGRATIONS, PROJECTED_TABLES } from './schema.js';
import { RowSink } from './rows.js';
import { projectFills } from './builders/fills.js';
import { MarketsBuilder } from './builders/markets.js';
import { OrdersBuilder } from './builders/orders.js';
import { PositionsBuilder } from './builders/positions.js';
import { PriceHistoryBuilder } from './builders/priceHistory.js';
import { restoreState } from './restoreState.js';

export interface ProjectorOptions {
  readonly name?: string;
  /** Most log records in one batch. */
  readonly maxBatch?: number;
  /** The engine's fee account (its token fees enter positions at zero cost). */
  readonly feeAccount: string;
  /** How long run() waits for new records before looking again (ms). */
  readonly idleMs?: number;
  /**
   * Least time (ms) between two commits while records keep arriving (default 0). Each commit costs a fixed
   * number of ClickHouse inserts whatever its size, so under load fewer and larger commits cost far less; a
   * reader waiting for a position (waitFor) cuts the pause short, so read-your-writes stays prompt.
   */
  readonly minIntervalMs?: number;
  /** Called after each committed batch. */
  readonly onBatch?: (from: number, to: number, rows: number) => void;
}

interface Progress {
  readonly pos: number;
  readonly pendingFrom: number;
  readonly pendingTo: number;
}

export class Projector {
  readonly name: string;
  private progressPos = 0;
  private readonly markets = new MarketsBuilder();
  private readonly orders = new OrdersBuilder();
  private readonly positions: PositionsBuilder;
  private readonly prices: PriceHistoryBuilder;
  private waiters: { pos: number; resolve: () => void }[] = [];
  private wake: (() => void) | null = null;
  /** Ends a pause between commits early: set while run() waits out minIntervalMs. */
  private hurry: (() => void) | null = null;

  constructor(
    private readonly ch: ClickHouseClient,
    private readonly db: string,
    private readonly log: EventLog,
    private readonly options: ProjectorOptions,
  ) {
    this.name = options.name ?? 'main';
    this.positions = new PositionsBuilder(this.markets, options.feeAccount);
    this.prices = new PriceHistoryBuilder(this.markets, this.orders);
  }

  /** Last log position whose rows are committed. */
  get position(): number {
    return this.progressPos;
  }

  /** Log position minus projected position. */
  get lag(): number {
    return Math.max(0, this.log.lastPos - this.progressPos);
  }

  private async readProgress(): Promise<Progress> {
    const rows = await queryRows<{ pos: number; pending_from: number; pending_to: number }>(
      this.ch,
      `SELECT argMax(pos, version) AS pos, argMax(pending_from, version) AS pending_from, argMax(pending_to, version) AS pending_to
         FROM ${this.db}.projection_progress WHERE projector = {name:String}`,
      { name: this.name },
    );
    const row = rows[0];
    return { pos: Number(row?.pos ?? 0), pendingFrom: Number(row?.pending_from ?? 0), pendingTo: Number(row?.pending_to ?? 0) };
  }

  private async writeProgress(pos: number, pendingFrom: number, pendingTo: number, version: number): Promise<void> {
    await this.ch.insert({
      table: `${this.db}.projection_progress`,
      values: [{ projector: this.name, pos, pending_from: pendingFrom, pending_to: pendingTo, version }],
      format: 'JSONEachRow',
    });
  }

  /** Applies migrations, restores state as of the committed progress and redoes a pending batch. */
  async start(): Promise<void> {
    await applyMigrations(this.ch, this.db, 'projections', PROJECTION_MIGRATIONS);
    const progress = await this.readProgress();
    this.progressPos = progress.pos;
    await restoreState(this.ch, this.db, progress.pos, { markets: this.markets, orders: this.orders, positions: this.positions, prices: this.prices });
    if (progress.pendingFrom === progress.pos + 1 && progress.pendingTo >= progress.pendingFrom) {
      await this.commit(await this.readRange(this.log, progress.pendingFrom, progress.pendingTo));
    }
  }

  private async readRange(log: EventLog, from: number, to: number): Promise<LogRecord[]> {
    const records: LogRecord[] = [];
    for await (const record of log.read(from)) {
      if (record.pos > to) break;
      records.push(record);
      if (record.pos === to) break;
    }
    if (records.length !== to - from + 1) throw new Error(`projector ${this.name}: the log no longer holds positions ${from}..${to}`);
    return records;
  }

  private build(records: readonly LogRecord[]): RowSink {
    const out = new RowSink();
    for (const record of records) {
      projectFills(record, out, (orderId) => this.orders.builderOf(orderId));
      this.markets.apply(record, out);
      const touched = this.orders.apply(record, out);
      this.positions.apply(record);
      this.prices.apply(record, touched);
    }
    this.orders.flush(out);
    this.positions.flush(out);
    this.prices.flush(out);
    return out;
  }

  /** Commits one batch of consecutive records following the progress. */
  private async commit(records: readonly LogRecord[]): Promise<void> {
    const first = records[0];
    const last = records[records.length - 1];
    if (first === undefined || last === undefined) return;
    if (first.pos !== this.progressPos + 1) throw new Error(`projector ${this.name}: batch starts at ${first.pos}, expected ${this.progressPos + 1}`);
    const from = first.pos;
    const to = last.pos;
    const out = this.build(records);
    await this.writeProgress(this.progressPos, from, to, 2 * from);
    let rows = 0;
    for (const table of PROJECTED_TABLES) {
      const values = out.tables.get(table);
      if (values === undefined || values.length === 0) continue;
      rows += values.length;
      await this.ch.insert({
        table: `${this.db}.${table}`,
        values,
        format: 'JSONEachRow',
        clickhouse_settings: { insert_deduplication_token: `${this.name}:${table}:${from}-${to}` },
      });
    }
    await this.writeProgress(to, 0, 0, 2 * to + 1);
    this.progressPos = to;
    this.options.onBatch?.(from, to, rows);
    this.settleWaiters();
  }

  /**
   * Projects delivered records, idempotently: records at or below the progress are skipped (a redelivery,
   * however it is cut, changes nothing); the rest must follow the progress without a gap and are committed
   * in batches of at most maxBatch. Returns the number of records projected.
   */
  async deliver(records: readonly LogRecord[]): Promise<number> {
    const fresh = records.filter((r) => r.pos > this.progressPos);
    const max = this.options.maxBatch ?? 5_000;
    for (let i = 0; i < fresh.length; i += max) await this.commit(fresh.slice(i, i + max));
    return fresh.length;
  }

  /** Projects positions up to `to` (inclusive) read from `log`, in batches. */
  async catchUpTo(log: EventLog, to: number): Promise<number> {
    const max = this.options.maxBatch ?? 5_000;
    let done = 0;
    while (this.progressPos < to) {
      const end = Math.min(to, this.progressPos + max);
      done += await this.deliver(await this.readRange(log, this.progressPos + 1, end));
    }
    return done;
  }

  /** Projects what the log holds beyond the progress, in batches; returns the number of records. */
  catchUp(): Promise<number> {
    return this.catchUpTo(this.log, this.log.lastPos);
  }

  /** Keeps projecting until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const done = await this.catchUp();
      if (done > 0) {
        await this.pauseBetweenCommits(signal);
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(finish, this.options.idleMs ?? 50);
        function finish(): void {
          clearTimeout(timer);
          signal.removeEventListener('abort', finish);
          resolve();
        }
        this.wake = finish;
        signal.addEventListener('abort', finish);
      });
      this.wake = null;
    }
  }

  /** Waits out minIntervalMs after a commit, unless a reader is already waiting for more or run() stops. */
  private async pauseBetweenCommits(signal: AbortSignal): Promise<void> {
    const ms = this.options.minIntervalMs ?? 0;
    if (ms <= 0 || this.waiters.length > 0 || signal.aborted) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(finish, ms);
      function finish(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', finish);
        resolve();
      }
      this.hurry = finish;
      signal.addEventListener('abort', finish);
    });
    this.hurry = null;
  }

  /** Tells a waiting run() that the log has grown (the engine host calls this after each durable batch). */
  notify(): void {
    this.wake?.();
  }

  /** Resolves once the log position `pos` is projected (read-your-writes); rejects after `timeoutMs`. */
  waitFor(pos: number, timeoutMs = 10_000): Promise<void> {
    if (this.progressPos >= pos) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(new Error(`projection did not reach position ${pos} within ${timeoutMs} ms (at ${this.progressPos})`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push({ pos, resolve: done });
      this.hurry?.();
    });
  }

  private settleWaiters(): void {
    const ready = this.waiters.filter((w) => w.pos <= this.progressPos);
    this.waiters = this.waiters.filter((w) => w.pos > this.progressPos);
    for (const w of ready) w.resolve();
  }
}
