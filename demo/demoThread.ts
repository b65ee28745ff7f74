// The demo traders' thread: the traders (demoTraders.ts) run in a worker thread of their own (demoWorker.ts),
// so that their signing (ethers' JavaScript keccak and curve, ~0.8 ms an order) and their client's work never
// take turns of the request thread, which the engine and the replies own. They reach the service as any client
// does, over its public port; what they read of the engine and their funding reach them from this thread
// (demoVenue.ts serveVenue), answered between two of its turns.
//
// Contract: startDemoTradersThread resolves once every trader is signed in and funded and every demo market
// has its first ladder (as startDemoTraders does on one thread), and rejects if the traders could not start
// (the thread is then gone). stop() lets the traders finish the round they are in, then ends the thread. A
// thread that fails later is logged; the service goes on without demo trading.

import type { Logger } from 'pino';
import type { Worker } from 'node:worker_threads';
import { moduleWorker } from '../threads/moduleWorker.js';
import type { EngineHost } from '../host/engineHost.js';
import type { DemoTraders } from './demoTraders.js';
import { engineVenue, serveVenue } from './demoVenue.js';

/** What the worker is started with (its workerData). */
export interface DemoThreadData {
  readonly clobUrl: string;
  readonly chainId: number;
  readonly seed: Uint8Array;
  readonly cycleMs?: number;
  /** threads/heapTrim.ts's interval on the traders' thread, in ms (0 or unset: off). */
  readonly heapTrimMs?: number;
}

/** What the worker tells this thread, besides the venue requests (demoVenue.ts). */
export type DemoThreadMessage =
  | { readonly kind: 'ready'; readonly markets: readonly string[]; readonly ordersPerSecond: number }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'log'; readonly message: string; readonly err: string }
  | { readonly kind: 'stopped' };

export interface DemoThreadOptions extends DemoThreadData {
  readonly host: EngineHost;
  readonly logger: Logger;
}

function isThreadMessage(message: unknown): message is DemoThreadMessage {
  return typeof message === 'object' && message !== null && typeof (message as { kind?: unknown }).kind === 'string';
}

export function startDemoTradersThread(options: DemoThreadOptions): Promise<DemoTraders> {
  const { host, logger, ...data } = options;
  const worker: Worker = moduleWorker(import.meta.url, 'demoWorker', { workerData: data satisfies DemoThreadData });
  serveVenue(worker, engineVenue(host));
  let stopped: (() => void) | undefined;
  let running = false;
  return new Promise<DemoTraders>((resolve, reject) => {
    worker.on('message', (message: unknown) => {
      if (!isThreadMessage(message)) return;
      switch (message.kind) {
        case 'ready':
          running = true;
          resolve({
            markets: message.markets,
            ordersPerSecond: message.ordersPerSecond,
            stop: async () => {
              if (!running) return;
              running = false;
              await new Promise<void>((done) => {
                stopped = done;
                worker.postMessage({ kind: 'stop' });
              });
              await worker.terminate();
            },
          });
          return;
        case 'failed':
          reject(new Error(`the demo traders could not start: ${message.message}`));
          void worker.terminate();
          return;
        case 'log':
          logger.debug({ err: message.err }, message.message);
          return;
        case 'stopped':
          stopped?.();
          return;
      }
    });
    worker.on('error', (error) => {
      if (running) logger.error({ err: error }, 'the demo traders stopped');
      running = false;
      stopped?.();
      reject(error);
    });
    worker.on('exit', (code) => {
      stopped?.();
      if (!running) reject(new Error(`the demo traders' thread exited (code ${code}) before it started`));
    });
  });
}
