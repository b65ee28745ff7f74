// The projector's progress as a process that does not run it sees it: an API node polls the projection
// progress table while some read waits for a position (read-your-writes for the ClickHouse reads), and
// otherwise once a second for /metrics and /ready.

import type { ClickHouseClient } from '@clickhouse/client';
import type { ProjectionProgress } from '../api/trading/tradingDeps.js';
import { readProgress } from '../projections/progress.js';

const POLL_WAITING_MS = 20;
const POLL_IDLE_MS = 1_000;

export class ProjectionWatcher implements ProjectionProgress {
  private pos = 0;
  private waiters: { pos: number; resolve: () => void }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private closed = false;
  /** The last poll's failure, if it failed. */
  problem: string | undefined;

  constructor(
    private readonly ch: ClickHouseClient,
    private readonly db: string,
    private readonly name = 'main',
  ) {}

  get position(): number {
    return this.pos;
  }

  async start(): Promise<void> {
    await this.poll();
    this.schedule(POLL_IDLE_MS);
  }

  waitFor(pos: number, timeoutMs = 10_000): Promise<void> {
    if (this.pos >= pos) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`the projector did not reach log position ${pos} within ${timeoutMs} ms (at ${this.pos})`));
      }, timeoutMs);
      const waiter = {
        pos,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.waiters.push(waiter);
      this.schedule(POLL_WAITING_MS);
    });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.closed || this.polling) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    await this.poll();
    this.schedule(this.waiters.length > 0 ? POLL_WAITING_MS : POLL_IDLE_MS);
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      const progress = await readProgress(this.ch, this.db, this.name);
      this.pos = Math.max(this.pos, progress.pos);
      this.problem = undefined;
    } catch (error) {
      this.problem = (error as Error).message;
    } finally {
      this.polling = false;
    }
    const due = this.waiters.filter((w) => w.pos <= this.pos);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.pos > this.pos);
    for (const w of due) w.resolve();
  }
}
