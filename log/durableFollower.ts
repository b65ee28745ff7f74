// The one follower of the durable records. Every consumer of what the engine made durable (the projector's
// hand-over, the in-memory read model, the WebSocket publisher, the snapshot thread's copy, metrics, and any
// later one) is one registration here, and each durable batch is offered once, in log order, to each of them in
// the order they registered: a single loop on the thread that made the batch durable (the engine host's, or an
// API node's replica), never a pass of a consumer's own over the log.
//
// Contract:
// - offer() is called with each durable batch exactly once, in log order, after the batch is durable and after
//   its replies were released (their continuations run once the offer returns), and before the next batch is
//   applied: a consumer may read the engine's state as of this batch (the publisher reads the books' levels, so
//   its work cannot be put off past the next batch). A consumer gets the very records appended and must not
//   modify them.
// - Consumers run in registration order: a consumer may rely on those registered before it having seen the
//   batch (the publisher reads the read model's creation times of orders).
// - A consumer that throws is reported (onError) and the others still get the batch; it gets the next batches
//   too (each consumer decides whether it can go on: the read model stops itself and reads go to ClickHouse).
// - Each consumer's time on this thread is counted (seconds(), the metric durable_consumer_seconds_total): the
//   per-stage cost of an order that docs/benchmarks.md reads, without a profiler. A consumer that applies the
//   batches later than accept() (in runs, projections/logTail.ts) reports that time too (deferredSeconds).

import type { LogRecord } from './eventLog.js';

export interface DurableConsumer {
  /** Its name in metrics and error reports. */
  readonly name: string;
  /** One durable batch, in log order (positions consecutive from the previous batch's). */
  accept(records: readonly LogRecord[]): void;
  /** Time spent on offered batches after accept() returned (seconds), for consumers that apply them later. */
  deferredSeconds?(): number;
}

interface Registered {
  readonly consumer: DurableConsumer;
  /** Time spent in accept() (ms). */
  ms: number;
}

export class DurableFollower {
  private readonly registered: Registered[] = [];
  private batches = 0;
  private records = 0;

  constructor(private readonly onError: (consumer: string, error: unknown) => void) {}

  /** Adds a consumer: it gets every batch offered from now on. */
  register(consumer: DurableConsumer): void {
    if (this.registered.some((r) => r.consumer.name === consumer.name)) throw new Error(`a durable consumer named ${consumer.name} is registered already`);
    this.registered.push({ consumer, ms: 0 });
  }

  /** A durable batch: to every consumer, in registration order. */
  offer(records: readonly LogRecord[]): void {
    if (records.length === 0) return;
    this.batches += 1;
    this.records += records.length;
    let before = performance.now();
    for (const r of this.registered) {
      try {
        r.consumer.accept(records);
      } catch (error) {
        this.onError(r.consumer.name, error);
      }
      const after = performance.now();
      r.ms += after - before;
      before = after;
    }
  }

  /** Batches and records offered so far. */
  get offered(): { readonly batches: number; readonly records: number } {
    return { batches: this.batches, records: this.records };
  }

  /** Each consumer's time in accept() so far (seconds), in registration order. */
  seconds(): { readonly consumer: string; readonly seconds: number }[] {
    return this.registered.map((r) => ({ consumer: r.consumer.name, seconds: r.ms / 1000 + (r.consumer.deferredSeconds?.() ?? 0) }));
  }
}
