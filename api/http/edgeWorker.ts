// Worker side of edgeThread.ts: runs one header edge (headerEdge.ts) on this thread's event loop, its
// counters in the shared buffer it was given, and talks to the thread that started it by messages
// (EdgeThreadMessage out; 'close' and the WebSocket output it writes itself, DirectMessage, in).

import { parentPort, workerData } from 'node:worker_threads';
import { nameThisThread } from '../../threads/threadName.js';
import { answerHeapQueries } from '../../threads/threadHeaps.js';
import { startHeaderEdge, type HeaderEdge, type HeaderEdgeOptions } from './headerEdge.js';
import type { DirectMessage } from './edge/wsDirect.js';

export type EdgeThreadMessage =
  | { readonly kind: 'ready'; readonly port: number }
  | { readonly kind: 'failed'; readonly message: string; readonly code: string | undefined }
  | { readonly kind: 'closed' };

if (parentPort === null) throw new Error('edgeWorker runs as a worker thread');
const port = parentPort;
nameThisThread('pmx-edge');
answerHeapQueries('pmx-edge');
const send = (message: EdgeThreadMessage): void => port.postMessage(message);

let edge: HeaderEdge | undefined;
try {
  edge = await startHeaderEdge(workerData as HeaderEdgeOptions);
} catch (error) {
  // Nothing listens: closing the port ends the thread once the message is out.
  send({ kind: 'failed', message: error instanceof Error ? error.message : String(error), code: (error as NodeJS.ErrnoException).code });
  port.close();
}
if (edge !== undefined) serve(edge);

function serve(edge: HeaderEdge): void {
  send({ kind: 'ready', port: edge.port });
  port.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null) return edge.direct(message as DirectMessage);
    if (message !== 'close') return;
    void edge.close().then(() => {
      send({ kind: 'closed' });
      port.close();
    });
  });
}
