// EventLog wrappers that misbehave on purpose, around a real log: they delay, count or fail appends the
// way real storage can (a hung disk, an append that lands but reports failure, a fatal write error).

import type { EventLog, LogRecord } from '../../log/eventLog.js';
import { FatalLogError } from '../../log/eventLog.js';

export class ScriptedLog implements EventLog {
  appendCalls = 0;
  /** Held appends wait for release() before reaching the real log. */
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;
  /** Next appends: 'land-then-fail' writes and then throws; 'fail' throws without writing; 'fatal' throws FatalLogError. */
  script: ('land-then-fail' | 'fail' | 'fatal')[] = [];

  constructor(readonly inner: EventLog) {}

  get lastPos(): number {
    return this.inner.lastPos;
  }

  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open?.();
    this.gate = null;
  }

  async append(records: readonly LogRecord[]): Promise<void> {
    this.appendCalls += 1;
    if (this.gate !== null) await this.gate;
    const step = this.script.shift();
    if (step === 'fatal') throw new FatalLogError('disk is gone (scripted)');
    if (step === 'fail') throw new Error('transient failure before writing (scripted)');
    await this.inner.append(records);
    if (step === 'land-then-fail') throw new Error('the write landed but the acknowledgement was lost (scripted)');
  }

  read(from: number): AsyncIterable<LogRecord> {
    return this.inner.read(from);
  }

  follow(from: number, signal: AbortSignal): AsyncIterable<LogRecord> {
    return this.inner.follow(from, signal);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
