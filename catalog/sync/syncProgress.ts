// Progress of a sync run for people: on a terminal, one line rewritten in place; elsewhere (logs, CI), plain
// lines, at most one every `everyMs` per stream plus one when each stream finishes, and one per
// reconciliation (what it deleted, or why it deleted nothing).

import type { ReconcileReport } from './reconcile.js';

export interface PageProgress {
  readonly stream: string;
  readonly phase: 'full' | 'incremental' | 'reconcile';
  readonly offset: number;
  readonly pageItems: number;
  /** Objects stored by this stream in this run. */
  readonly runItems: number;
  readonly elapsedMs: number;
}

export interface SyncProgress {
  page(progress: PageProgress): void;
  retry(stream: string, attempt: number, delayMs: number, error: Error): void;
  streamDone(stream: string, runItems: number, elapsedMs: number): void;
  runDone(totalItems: number, elapsedMs: number): void;
  reconciled?(report: ReconcileReport): void;
}

export const silentProgress: SyncProgress = { page() {}, retry() {}, streamDone() {}, runDone() {}, reconciled() {} };

export interface ProgressOutput {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

const rate = (items: number, ms: number): string => (ms > 0 ? Math.round((items * 1000) / ms).toLocaleString('en-US') : '0');

export function terminalProgress(out: ProgressOutput, everyMs = 2000, now: () => number = Date.now): SyncProgress {
  const tty = out.isTTY === true;
  const lastLine = new Map<string, number>();
  const line = (text: string): void => {
    if (tty) out.write(`\r\x1b[2K${text}`);
    else out.write(`${text}\n`);
  };
  return {
    page(p) {
      const text = `catalog sync ${p.stream} (${p.phase}): ${p.runItems.toLocaleString('en-US')} stored, offset ${p.offset}, ${rate(p.runItems, p.elapsedMs)}/s`;
      if (tty) return line(text);
      const t = now();
      if (t - (lastLine.get(p.stream) ?? -Infinity) < everyMs) return;
      lastLine.set(p.stream, t);
      line(text);
    },
    retry(stream, attempt, delayMs, error) {
      line(`catalog sync ${stream}: attempt ${attempt} failed (${error.message}); retrying in ${delayMs} ms`);
      if (tty) out.write('\n');
    },
    streamDone(stream, runItems, elapsedMs) {
      line(`catalog sync ${stream}: done, ${runItems.toLocaleString('en-US')} stored in ${(elapsedMs / 1000).toFixed(1)} s`);
      if (tty) out.write('\n');
    },
    runDone(totalItems, elapsedMs) {
      line(`catalog sync: ${totalItems.toLocaleString('en-US')} objects in ${(elapsedMs / 1000).toFixed(1)} s (${rate(totalItems, elapsedMs)}/s)`);
      if (tty) out.write('\n');
    },
    reconciled(report) {
      // Messages other than an applied one's start with their outcome.
      line(`catalog reconcile: ${report.outcome === 'applied' ? 'applied, ' : ''}${report.message} (${report.pages} pages in ${(report.durationMs / 1000).toFixed(1)} s)`);
      if (tty) out.write('\n');
    },
  };
}
