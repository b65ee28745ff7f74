// The projector: reads the event log and writes the projection tables, each fill counted exactly once
// whatever crashes, restarts or redeliveries happen.
//
// A batch is a range of log positions [from, to]. Committing it:
//   1. record "progress = the previous batch's end, pending [from, to]" in projection_progress;
//   2. insert each table's rows with insert_deduplication_token `<projector>:<table>:<from>-<to>` (tables
//      ClickHouse derives from them, fill_sides and latest_prices, deduplicate on tokens derived from those);
//   3. the batch is committed: readers see it, position = to. "progress = to" is recorded by the next
//      batch's step 1, or, when no batch follows, once the projector is idle or stops (recordProgress()):
//      one progress insert per batch under load instead of two.
// Embedded (chDB), steps 1 and 2 are one call of several statements, which chDB runs in order and stops at
// the first that fails (storage/bulkInsert.ts, insertTogether()): the same outcome as separate calls, so a
// crash or failure can still stop a commit between any two of its statements, and the tokens are the same.
// Against a server each is its own insert.
// After a crash anywhere, start() finds the pending range and redoes exactly it: the in-memory state is
// restored as of the recorded progress (rows with version <= progress; a builder whose table already holds
// rows of the pending batch is restored as of its end instead and sits the redo out, see recovery.ts), so
// the redo produces the same rows. It does not lean on the tokens of the attempt that crashed: a
// non-replicated MergeTree records a block's token in its deduplication log before it commits the block's
// part, so a process killed between the two leaves a token whose rows are gone, and a redo under that
// token would be dropped (seen in test/projections/projectorCrash.test.ts). Instead the redo deletes the
// batch's rows from the tables it appends to (recovery.ts, clearAppendedRows()) and inserts every table
// under tokens of its own; the latest-state tables take a row again at the same version without change.
// Tokens still make a repeated insert of one attempt land once.
//
// Batches are pipelined: while one batch's inserts run in ClickHouse (off the JavaScript thread), the next
// batch is read and built. Building advances the in-memory state past the committed progress, so after a
// failed commit (or a build cut short by the log) this projector refuses further work; a new one (start())
// restores the state from the tables. A batch read from the log is built as it is read, record by record, with
// only the events decoded: its records are never all held at once (held, they would survive many young-
// generation collections and be copied into the old generation; measured, half the projector's GC time).
// Projection passes (catchUpTo, deliver) run one at a time.
//
// Records handed over in memory (offer(): the engine host's durable records, server/service.ts) spare
// re-reading and decoding them from the log: catchUp() takes them while they are exactly the next positions
// and reads the log otherwise (after a restart, a gap, or a lag beyond the queue's bound). A handed-over
// record must equal its log copy as every builder reads it; the engine keeps its events equal to their JSON
// round trip and never touches them after apply() returns (test/projections/projectorOffer.test.ts).
// Between passes (while run() waits between commits) offered records that are exactly the next positions are
// built at once, in the durable follower's pass, into rows that the next pass commits as its first batch:
// a record is then dropped while young instead of being held for the length of a pause (hundreds of ms, long
// enough to be copied into V8's old generation and collected there), and the builders' state (open orders'
// creation times included) is at the log's end. The batch's rows are the same as a pass would build: the
// open orders, positions and prices it changed are flushed into it when the pass takes it.

import { randomUUID } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import { hasEncodedReads, type EventLog, type EventsRecord, type LogRecord } from '../log/eventLog.js';
import { decodeEvents } from '../log/recordCodec.js';
import { insertRows, insertTogether, insertsTogether, type RowsInsert } from '../storage/bulkInsert.js';
import { applyMigrations } from '../storage/migrations.js';
import { PROJECTION_MIGRATIONS, PROJECTED_TABLES, type ProjectedTable } from './schema.js';
import { COLUMNS } from './columns.js';
import { RowSink, type RowFormat } from './rows.js';
import { hasPending, progressInsert, readProgress, refusePendingFromVersion1, writeProgress } from './progress.js';
import { OfferedRecords } from './offeredRecords.js';
import { projectFills } from './builders/fills.js';
import { MarketsBuilder } from './builders/markets.js';
import { OrdersBuilder, type FillOrders } from './builders/orders.js';
import { PositionsBuilder } from './builders/positions.js';
import { AccountTotalsBuilder } from './builders/accountTotals.js';
import { PriceHistoryBuilder } from './builders/priceHistory.js';
import { BookHistoryBuilder } from './builders/bookHistory.js';
import { projectRewards } from './builders/rewards.js';
import { clearAppendedRows, landedBuilders, type BuilderName } from './recovery.js';
import { restoreBookHistory, restoreState } from './restoreState.js';
import { applyBookHistoryRetention } from './bookHistoryRetention.js';
import { CommitDurations, waitWithinBudget } from './commitSpacing.js';

/** Default most log records per batch: large batches amortise the fixed cost of each insert and part. */
export const DEFAULT_MAX_BATCH = 20_000;

/**
 * Default most handed-over records held (offer()): at ~1 KB each, at most ~50 MB, reached only when the
 * projector falls 50,000 records behind; beyond it the oldest are dropped and read back from the log.
 */
export const DEFAULT_MAX_OFFERED = 50_000;

const NONE_LANDED: ReadonlySet<BuilderName> = new Set();

/**
 * Longest stretch (ms) of building before build() yields to the event loop, checked every YIELD_CHECK records:
 * the projector shares its thread with the request path, and a longer stretch shows up directly in the
 * latency of the requests waiting behind it.
 */
const YIELD_AFTER_MS = 1;
const YIELD_CHECK = 16;

export interface ProjectorOptions {
  readonly name?: string;
  /** Most log records in one batch (DEFAULT_MAX_BATCH). */
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
  /**
   * Under light load, commits further apart than minIntervalMs. The load is light when fewer than `records`
   * records wait once the least pause is over; the projector then waits on, up to `intervalMs` after the
   * commit, until `maxRecords` (default `records`) wait or somebody waits for a position. Each commit costs
   * ClickHouse a fixed amount per table (a part per table, and the merges that rewrite them), which at a few
   * hundred orders per second was most of the process's CPU per order; under load the records reach `records`
   * within the least pause, and commits are spaced by minIntervalMs as before. Unset: minIntervalMs alone.
   */
  readonly lightLoad?: { readonly intervalMs: number; readonly records: number; readonly maxRecords?: number };
  /**
   * Under load (past minIntervalMs, and past the light load when there is one), commits as far apart as keeps a
   * record's wait from the log to its commit within this many ms, estimated from the last commits' durations
   * (commitSpacing.ts); never closer than minIntervalMs, and a reader waiting for a position still cuts the wait
   * short. Unset, or minIntervalMs 0 (commits unspaced): minIntervalMs alone.
   */
  readonly lagBudgetMs?: number;
  /** Called after each committed batch with the rows the projector sent (derived tables not counted). */
  readonly onBatch?: (from: number, to: number, rows: number) => void;
  /**
   * Called after each insert (table, rows, ms), progress records included: for metrics and benchmarks. An
   * embedded commit is one call: reported once, as table 'commit', with every row of the call (the progress
   * record's included) and the call's duration.
   */
  readonly onInsert?: (table: string, rows: number, ms: number) => void;
  /** Most records offer() holds (DEFAULT_MAX_OFFERED); 0 turns the hand-over off. */
  readonly maxOffered?: number;
  /** Days the book history is kept (a TTL set at start; bookHistoryRetention.ts); 0 or unset: for ever. */
  readonly bookHistoryRetentionDays?: number;
  /** False: no book history rows (benchmarks measure its cost with it); default true. */
  readonly bookHistory?: boolean;
}

/** A batch's records: positions from..to, in memory or read as build() consumes them. */
interface BatchSource {
  readonly from: number;
  readonly to: number;
  readonly records: readonly EventsRecord[] | AsyncIterable<EventsRecord>;
}

/** A built batch waiting for its inserts. */
interface Batch {
  readonly from: number;
  readonly to: number;
  readonly rows: RowSink;
  /** A pending batch's redo only: the suffix that makes its tokens unlike any earlier attempt's. */
  readonly redo?: string;
}

export class Projector {
  readonly name: string;
  private progressPos = 0;
  /** progressPos is ahead of the last progress record (its batch is fully inserted; see recordProgress()). */
  private unrecorded = false;
  /** Last log position applied to the builders (ahead of progressPos while a batch is being written). */
  private builtPos = 0;
  /** Set by a failed commit or a build that failed part-way: the in-memory state no longer matches the tables. */
  private broken: unknown = undefined;
  /** The projection pass in progress (passes run one at a time). */
  private passes: Promise<unknown> = Promise.resolve();
  /** Reused per record: the orders builder's view of each fill's orders. */
  private readonly fillOrders: FillOrders[] = [];
  private readonly markets = new MarketsBuilder();
  private readonly orders = new OrdersBuilder();
  private readonly positions: PositionsBuilder;
  private readonly prices: PriceHistoryBuilder;
  private readonly book: BookHistoryBuilder;
  private readonly accounts = new AccountTotalsBuilder();
  private waiters: { pos: number; resolve: () => void }[] = [];
  private wake: (() => void) | null = null;
  /** While run() waits on under light load: the backlog that ends the wait (lightLoad.maxRecords). */
  private lightUntil: number | undefined;
  /** The last commits' durations from run(), for lagBudgetMs. */
  private readonly commitDurations = new CommitDurations();
  /** Ends a pause between commits early: set while run() waits out minIntervalMs, the light load or the lag budget. */
  private hurry: (() => void) | null = null;
  /** Records of this.log handed over in memory (offer()), not yet projected. */
  private readonly offered: OfferedRecords;
  /** Passes queued or running (exclusive()); records are built as they are offered only while none is. */
  private passesInFlight = 0;
  /** start() has restored the state: offered records may be built from then on. */
  private restored = false;
  /**
   * Records built as they were offered, between passes: the rows of positions eager.from..builtPos, committed as
   * the next pass's first batch (their open orders, positions and prices flushed into it then).
   */
  private eager: { readonly from: number; readonly rows: RowSink } | undefined;
  /** Records taken from `offered` rather than read from the log (tests, metrics). */
  private offeredTaken = 0;
  /** Of them, records built as they were offered (tests, metrics). */
  private builtOnOffer = 0;
  /**
   * The format the batches' rows are built in: Native where the inserts go through spool files (embedded: the
   * format ClickHouse reads at the least cost), TabSeparated for a server's (storage/bulkInsert.ts).
   */
  private readonly rowFormat: RowFormat;

  constructor(
    private readonly ch: ClickHouseClient,
    private readonly db: string,
    private readonly log: EventLog,
    private readonly options: ProjectorOptions,
  ) {
    this.name = options.name ?? 'main';
    this.rowFormat = insertsTogether(ch) ? 'Native' : 'TabSeparated';
    this.positions = new PositionsBuilder(this.markets, options.feeAccount);
    this.prices = new PriceHistoryBuilder(this.markets, this.orders);
    this.book = new BookHistoryBuilder(this.markets, this.orders, this.prices);
    if (options.bookHistory !== false) this.orders.levelHook = (conditionId, bid, price, size) => this.book.levelChanging(conditionId, bid, price, size);
    this.offered = new OfferedRecords(options.maxOffered ?? DEFAULT_MAX_OFFERED);
  }

  /** How many projected records came from offer() instead of the log. */
  get handedOver(): number {
    return this.offeredTaken;
  }

  /** How many of them were built as they were offered, between passes (canBuildNow()). */
  get builtAsOffered(): number {
    return this.builtOnOffer;
  }

  /** Last log position whose rows are committed. */
  get position(): number {
    return this.progressPos;
  }

  /**
   * The creation time (ms) of an order open in the projector's built state (restored, then every record it
   * has built), if it holds it. Creation times never change, so any order it holds has the right one.
   */
  openOrderCreatedAt(orderId: string): number | undefined {
    return this.orders.open.get(orderId)?.createdAt;
  }

  /** Log position minus projected position. */
  get lag(): number {
    return Math.max(0, this.log.lastPos - this.progressPos);
  }

  /** A batch's insert into each table it has rows for, in PROJECTED_TABLES order, with their tokens. */
  private tableInserts({ from, to, rows: out, redo }: Batch): { table: ProjectedTable; rows: number; insert: RowsInsert }[] {
    const inserts: { table: ProjectedTable; rows: number; insert: RowsInsert }[] = [];
    const suffix = redo === undefined ? '' : `:redo-${redo}`;
    for (const table of PROJECTED_TABLES) {
      const rows = out.rows(table);
      if (rows === 0) continue;
      inserts.push({ table, rows, insert: { table: `${this.db}.${table}`, columns: COLUMNS[table], body: out.body(table), format: out.format, token: `${this.name}:${table}:${from}-${to}${suffix}` } });
    }
    return inserts;
  }

  private async progressRow(pos: number, pendingFrom: number, pendingTo: number, version: number): Promise<void> {
    const t0 = performance.now();
    await writeProgress(this.ch, this.db, this.name, { pos, pendingFrom, pendingTo }, version);
    this.options.onInsert?.('projection_progress', 1, performance.now() - t0);
  }

  /** Applies migrations, restores state as of the committed progress and redoes a pending batch. */
  async start(): Promise<void> {
    await this.exclusive(async () => {
      await refusePendingFromVersion1(this.ch, this.db, this.name);
      await applyMigrations(this.ch, this.db, 'projections', PROJECTION_MIGRATIONS);
      await applyBookHistoryRetention(this.ch, this.db, this.options.bookHistoryRetentionDays ?? 0);
      const progress = await readProgress(this.ch, this.db, this.name);
      this.progressPos = progress.pos;
      this.builtPos = progress.pos;
      const pending = hasPending(progress);
      const landed = pending ? await landedBuilders(this.ch, this.db, progress.pendingFrom, progress.pendingTo) : new Set<BuilderName>();
      const at = (b: BuilderName): number => (landed.has(b) ? progress.pendingTo : progress.pos);
      await restoreState(this.ch, this.db, { markets: at('markets'), orders: at('orders'), positions: at('positions'), prices: at('prices'), accounts: at('accounts') }, {
        markets: this.markets, orders: this.orders, positions: this.positions, prices: this.prices, accounts: this.accounts,
      });
      await restoreBookHistory(this.ch, this.db, at('prices'), this.book);
      const { pendingFrom: from, pendingTo: to } = progress;
      if (pending) {
        const batch = await this.build({ from, to, records: this.readRange(this.log, from, to) }, landed);
        await clearAppendedRows(this.ch, this.db, batch.rows, from, to);
        await this.write({ ...batch, redo: randomUUID() });
      }
      this.restored = true;
    });
  }

  /** Runs `pass` after every pass before it; a pass after a failed commit is refused. */
  private exclusive<T>(pass: () => Promise<T>): Promise<T> {
    this.passesInFlight += 1;
    const run = this.passes
      .then(() => {
        if (this.broken !== undefined) throw new Error(`projector ${this.name} stopped after a failure (its state is past its tables); start a new one`, { cause: this.broken });
        return pass();
      })
      .finally(() => (this.passesInFlight -= 1));
    this.passes = run.catch(() => undefined);
    return run;
  }

  /**
   * Positions from..to of `log`, read as they are consumed (a batch's records are not all held at once:
   * held, they would outlive many young-generation collections and be copied into the old generation).
   * Only events are decoded when the log hands out encoded records. Ends early if the log ends early;
   * build() names the gap.
   */
  private async *readRange(log: EventLog, from: number, to: number): AsyncGenerator<EventsRecord> {
    if (hasEncodedReads(log)) {
      for await (const { pos, bytes } of log.readEncoded(from)) {
        if (pos > to) return;
        yield decodeEvents(bytes);
        if (pos === to) return;
      }
      return;
    }
    for await (const record of log.read(from)) {
      if (record.pos > to) return;
      yield record;
      if (record.pos === to) return;
    }
  }

  /** Applies one record, which must follow builtPos, to the builders (but those of `landed`). */
  private apply(record: EventsRecord, out: RowSink, landed: ReadonlySet<BuilderName>): void {
    if (record.pos !== this.builtPos + 1) throw new Error(`projector ${this.name}: record ${record.pos} follows ${this.builtPos}`);
    // Stateless: rewritten whole by a redo (recovery.ts deletes the range first).
    projectRewards(record, out);
    if (!landed.has('markets')) this.markets.apply(record, out);
    if (!landed.has('orders')) {
      const touched = this.orders.apply(record, out, this.fillOrders);
      projectFills(record, out, this.fillOrders);
      if (!landed.has('prices')) {
        this.prices.apply(record, touched);
        if (this.options.bookHistory !== false) this.book.apply(record, out);
      } else this.book.reset();
    }
    if (!landed.has('positions')) this.positions.apply(record);
    if (!landed.has('accounts')) this.accounts.apply(record);
    this.builtPos = record.pos;
  }

  /**
   * Applies the records of positions source.from..source.to, which must follow builtPos, to the builders and
   * returns their rows. Yields to the event loop after YIELD_AFTER_MS of work, so that requests are not held
   * behind a whole batch and the batch being written meanwhile can start its next insert without waiting for
   * the whole build (chDB runs each insert off this thread, but each is started from it). `landed` (a pending
   * batch's redo only, see recovery.ts): builders restored as of the batch's end, which neither apply it
   * again nor write its rows, nor do the tables that depend on them. A build that fails after applying a
   * record leaves the projector broken (its state is past its tables).
   */
  private async build(source: BatchSource, landed: ReadonlySet<BuilderName> = NONE_LANDED): Promise<Batch> {
    const { from, to, records } = source;
    if (from !== this.builtPos + 1) throw new Error(`projector ${this.name}: batch starts at ${from}, expected ${this.builtPos + 1}`);
    const out = new RowSink(this.rowFormat);
    let stretch = performance.now();
    let i = 0;
    // Checked without awaiting: an await per record would cost a microtask each, long stretch or not.
    const longStretch = (): boolean => ++i % YIELD_CHECK === 0 && performance.now() - stretch >= YIELD_AFTER_MS;
    const breathe = async (): Promise<void> => {
      await setImmediate();
      stretch = performance.now();
    };
    try {
      if (Array.isArray(records)) {
        for (const record of records as readonly EventsRecord[]) {
          if (record.pos > to) break;
          this.apply(record, out, landed);
          if (longStretch()) await breathe();
        }
      } else {
        for await (const record of records) {
          if (record.pos > to) break;
          this.apply(record, out, landed);
          if (longStretch()) await breathe();
        }
      }
      if (this.builtPos !== to) throw new Error(`projector ${this.name}: the log no longer holds positions ${this.builtPos + 1}..${to}`);
    } catch (error) {
      if (this.builtPos >= from) this.broken ??= error;
      throw error;
    }
    if (!landed.has('orders')) this.orders.flush(out);
    if (!landed.has('positions')) this.positions.flush(out);
    if (!landed.has('prices')) this.prices.flush(out);
    if (!landed.has('accounts')) this.accounts.flush(out);
    return { from, to, rows: out };
  }

  /** Commits a built batch, which must follow the progress. */
  private async write(batch: Batch): Promise<void> {
    const { from, to } = batch;
    if (from !== this.progressPos + 1) throw new Error(`projector ${this.name}: batch starts at ${from}, expected ${this.progressPos + 1}`);
    try {
      const rows = insertsTogether(this.ch) ? await this.commitInOneCall(batch) : await this.commitInsertByInsert(batch);
      this.progressPos = to;
      // "progress = to" is not recorded yet: the next commit's step 1 or recordProgress() records it.
      this.unrecorded = true;
      this.options.onBatch?.(from, to, rows);
      this.settleWaiters();
    } catch (error) {
      this.broken = error;
      throw error;
    }
  }

  /** Steps 1 and 2 of a commit as one call (embedded); returns the table rows sent. */
  private async commitInOneCall(batch: Batch): Promise<number> {
    const { from, to } = batch;
    const inserts = this.tableInserts(batch);
    const rows = inserts.reduce((n, i) => n + i.rows, 0);
    const t0 = performance.now();
    await insertTogether(this.ch, [progressInsert(this.db, this.name, { pos: this.progressPos, pendingFrom: from, pendingTo: to }, 2 * from)], inserts.map((i) => i.insert));
    this.options.onInsert?.('commit', rows + 1, performance.now() - t0);
    return rows;
  }

  /** Steps 1 and 2 of a commit, one insert per call (server); returns the table rows sent. */
  private async commitInsertByInsert(batch: Batch): Promise<number> {
    await this.progressRow(this.progressPos, batch.from, batch.to, 2 * batch.from);
    let sent = 0;
    for (const { table, rows, insert } of this.tableInserts(batch)) {
      const t0 = performance.now();
      await insertRows(this.ch, insert);
      this.options.onInsert?.(table, rows, performance.now() - t0);
      sent += rows;
    }
    return sent;
  }

  /**
   * Builds and writes the batches `next` returns (undefined: no more), one batch built ahead while the
   * previous one is written. Returns the number of records projected.
   */
  private async pipeline(next: () => BatchSource | undefined): Promise<number> {
    let writing: Promise<void> | undefined;
    let done = 0;
    let built = this.takeEager();
    try {
      for (;;) {
        let batch: Batch;
        if (built !== undefined) {
          batch = built;
          built = undefined;
        } else {
          const source = next();
          if (source === undefined) break;
          batch = await this.build(source);
        }
        done += batch.to - batch.from + 1;
        if (writing !== undefined) await writing;
        writing = this.write(batch);
        // Observed now, awaited later: a failure while the next batch is read is not an unhandled rejection.
        writing.catch(() => undefined);
      }
      if (writing !== undefined) await writing;
    } catch (error) {
      this.broken ??= error;
      await writing?.catch(() => undefined);
      throw error;
    }
    return done;
  }

  /**
   * Projects delivered records, idempotently: records at or below the progress are skipped (a redelivery,
   * however it is cut, changes nothing); the rest must follow the progress without a gap and are committed
   * in batches of at most maxBatch. Returns the number of records projected.
   */
  deliver(records: readonly EventsRecord[]): Promise<number> {
    return this.exclusive(() => {
      const fresh = records.filter((r) => r.pos > this.builtPos);
      const max = this.options.maxBatch ?? DEFAULT_MAX_BATCH;
      let i = 0;
      return this.pipeline(() => {
        const chunk = fresh.slice(i, i + max);
        i += max;
        const first = chunk[0];
        // A gap inside the chunk is refused by build(), record by record.
        return first === undefined ? undefined : { from: first.pos, to: first.pos + chunk.length - 1, records: chunk };
      });
    });
  }

  /**
   * Projects positions up to `to` (inclusive) of `log`, in batches: from the records offer() holds while they
   * are exactly the next positions (`log` being this projector's log), else read from `log` (up to the first
   * one held, so that the next batch can come from memory again).
   */
  catchUpTo(log: EventLog, to: number): Promise<number> {
    return this.exclusive(() => {
      const max = this.options.maxBatch ?? DEFAULT_MAX_BATCH;
      return this.pipeline(() => {
        if (this.builtPos >= to) return undefined;
        const from = this.builtPos + 1;
        const end = Math.min(to, this.builtPos + max);
        if (log !== this.log) return { from, to: end, records: this.readRange(log, from, end) };
        const held = this.offered.take(from, end);
        if (held !== undefined && held.length > 0) {
          this.offeredTaken += held.length;
          return { from, to: from + held.length - 1, records: held };
        }
        const next = this.offered.first();
        const until = next !== undefined && next > from ? Math.min(end, next - 1) : end;
        return { from, to: until, records: this.readRange(log, from, until) };
      });
    });
  }

  /**
   * Hands over records of this projector's log that are durable, in position order (the engine host's
   * onDurable), and wakes run(). Kept in a bounded queue of contiguous positions until catchUp() projects
   * them; a gap drops what is held (the log has it all). Never changes what is projected, only where it is
   * read from: the records must not be modified afterwards.
   */
  offer(records: readonly LogRecord[]): void {
    if (this.canBuildNow(records)) this.buildNow(records);
    else this.offered.add(records, this.builtPos);
    this.notify();
  }

  /**
   * Offered records are built at once (in the durable follower's pass, while they are young: held until a
   * pass, hundreds of ms, they outlived the young generation and were copied into the old one) when nothing
   * else builds: no pass queued or running, the state restored and sound, and they are exactly the next
   * positions, nothing held before them, within one batch's bound.
   */
  private canBuildNow(records: readonly LogRecord[]): boolean {
    const first = records[0];
    if (first === undefined || !this.restored || this.passesInFlight > 0 || this.broken !== undefined || this.offered.size > 0) return false;
    if (first.pos !== this.builtPos + 1 || (records[records.length - 1] as LogRecord).pos !== first.pos + records.length - 1) return false;
    const from = this.eager?.from ?? first.pos;
    return first.pos + records.length - from <= (this.options.maxBatch ?? DEFAULT_MAX_BATCH);
  }

  private buildNow(records: readonly LogRecord[]): void {
    const eager = (this.eager ??= { from: (records[0] as LogRecord).pos, rows: new RowSink(this.rowFormat) });
    try {
      for (const record of records) this.apply(record, eager.rows, NONE_LANDED);
      this.offeredTaken += records.length;
      this.builtOnOffer += records.length;
    } catch (error) {
      // The state may be past the rows now: as a build that fails part-way.
      this.broken ??= error;
    }
  }

  /** The batch of the records built as offered, its open orders, positions and prices flushed into it; none: undefined. */
  private takeEager(): Batch | undefined {
    const eager = this.eager;
    if (eager === undefined) return undefined;
    this.eager = undefined;
    this.orders.flush(eager.rows);
    this.positions.flush(eager.rows);
    this.prices.flush(eager.rows);
    this.accounts.flush(eager.rows);
    return { from: eager.from, to: this.builtPos, rows: eager.rows };
  }

  /**
   * Records the progress when it is ahead of the last record (a batch committed and no batch after it yet),
   * so that a restart need not redo that batch. run() calls it when idle and when it stops.
   */
  recordProgress(): Promise<void> {
    return this.exclusive(async () => {
      if (!this.unrecorded) return;
      await this.progressRow(this.progressPos, 0, 0, 2 * this.progressPos + 1);
      this.unrecorded = false;
    });
  }

  /** Projects what the log holds beyond the progress, in batches; returns the number of records. */
  catchUp(): Promise<number> {
    return this.catchUpTo(this.log, this.log.lastPos);
  }

  /** Keeps projecting until `signal` aborts; records the progress when idle and before returning. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const cutAt = performance.now();
      const done = await this.catchUp();
      if (done > 0) {
        this.commitDurations.add(performance.now() - cutAt);
        await this.pauseBetweenCommits(signal, cutAt);
        continue;
      }
      await this.recordProgress();
      await pause(this.options.idleMs ?? 50, signal, (end) => (this.wake = end));
      this.wake = null;
    }
    if (this.broken === undefined) await this.recordProgress();
  }

  /**
   * Waits out minIntervalMs after a commit whose range was cut at `cutAt`; then under light load up to
   * lightLoad.intervalMs, and under load as long as lagBudgetMs allows; unless a reader is already waiting for
   * more or run() stops.
   */
  private async pauseBetweenCommits(signal: AbortSignal, cutAt: number): Promise<void> {
    const ms = this.options.minIntervalMs ?? 0;
    if (ms <= 0 || this.waiters.length > 0 || signal.aborted) return;
    await this.pauseUnlessHurried(ms, signal);
    const light = this.options.lightLoad;
    if (light === undefined || light.intervalMs <= ms || this.waiters.length > 0 || signal.aborted || this.backlog >= light.records) {
      await this.pauseWithinBudget(signal, cutAt);
      return;
    }
    this.lightUntil = light.maxRecords ?? light.records;
    await this.pauseUnlessHurried(light.intervalMs - ms, signal);
    this.lightUntil = undefined;
  }

  /** Under load, waits on until the next cut keeps the lag within lagBudgetMs (commitSpacing.ts). */
  private async pauseWithinBudget(signal: AbortSignal, cutAt: number): Promise<void> {
    const budget = this.options.lagBudgetMs;
    if (budget === undefined || this.waiters.length > 0 || signal.aborted) return;
    const ms = waitWithinBudget(budget, cutAt, performance.now(), this.commitDurations.predicted);
    if (ms <= 0) return;
    await this.pauseUnlessHurried(ms, signal);
  }

  /** A pause between commits that a stop, a reader waiting for a position or a growing backlog (hurry) ends early. */
  private async pauseUnlessHurried(ms: number, signal: AbortSignal): Promise<void> {
    await pause(ms, signal, (end) => (this.hurry = end));
    this.hurry = null;
  }

  /** Records of this projector's log not committed yet (built as offered or not). */
  private get backlog(): number {
    return this.log.lastPos - this.progressPos;
  }

  /** Tells a waiting run() that the log has grown (the engine host calls this after each durable batch). */
  notify(): void {
    this.wake?.();
    if (this.lightUntil !== undefined && this.backlog >= this.lightUntil) this.hurry?.();
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
      // An idle run() or one pausing between commits goes on at once.
      this.wake?.();
      this.hurry?.();
    });
  }

  private settleWaiters(): void {
    const ready = this.waiters.filter((w) => w.pos <= this.progressPos);
    this.waiters = this.waiters.filter((w) => w.pos > this.progressPos);
    for (const w of ready) w.resolve();
  }
}

/** Waits `ms`, or until `signal` aborts, or until the function handed to `onEnd` is called. */
function pause(ms: number, signal: AbortSignal, onEnd: (end: () => void) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(end, ms);
    function end(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', end);
      resolve();
    }
    onEnd(end);
    signal.addEventListener('abort', end);
  });
}
