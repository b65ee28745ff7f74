// The demo traders' thread (demoThread.ts starts it): runs the traders with the venue asked over the port to
// the service's thread, says when they are ready (or why they could not start), forwards their failed rounds
// to the service's log, and stops them when asked.

import { parentPort, workerData } from 'node:worker_threads';
import { nameThisThread } from '../threads/threadName.js';
import { answerHeapQueries } from '../threads/threadHeaps.js';
import { startHeapTrim } from '../threads/heapTrim.js';
import { startDemoTraders } from './demoTraders.js';
import { venueOverPort } from './demoVenue.js';
import type { DemoThreadData, DemoThreadMessage } from './demoThread.js';

const port = parentPort;
if (port === null) throw new Error('demoWorker.ts runs as a worker thread');
nameThisThread('pmx-demo');
const data = workerData as DemoThreadData;
const tell = (message: DemoThreadMessage): void => port.postMessage(message);
answerHeapQueries('pmx-demo');
// The traders sign every order in JS and promote garbage steadily at any rate they run: no load to wait for.
startHeapTrim({ intervalMs: data.heapTrimMs ?? 0, maxGrowthBytes: Infinity });

try {
  const traders = await startDemoTraders({
    ...data,
    venue: venueOverPort(port),
    logger: { debug: (fields, message) => tell({ kind: 'log', message, err: fields.err instanceof Error ? fields.err.message : String(fields.err) }) },
  });
  port.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && (message as { kind?: unknown }).kind === 'stop') {
      void traders.stop().then(() => tell({ kind: 'stopped' }));
    }
  });
  tell({ kind: 'ready', markets: traders.markets, ordersPerSecond: traders.ordersPerSecond });
} catch (error) {
  tell({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
}
