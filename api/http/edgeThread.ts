// The header edge (headerEdge.ts) on a thread of its own. The edge only moves bytes between sockets, yet on
// the request thread it took about a quarter of that thread's time per order (bench:orders): every request
// crosses it twice, and its socket reads and writes are system calls. On its own thread it uses the
// machine's other core, and the request thread keeps its time for the requests themselves.
//
// Contract: the same HeaderEdge as startHeaderEdge; `stats` reads the counters the edge keeps in a shared
// buffer (edge/edgeCounters.ts). Start-up errors (the port in use) reject start as they would in-thread. A worker that dies afterwards leaves the public port unserved:
// onFailure is told, and the service treats it as fatal.

import { moduleWorker } from '../../threads/moduleWorker.js';
import { EDGE_COUNTER_BYTES, edgeCounters } from './edge/edgeCounters.js';
import { statsOf, type HeaderEdge, type HeaderEdgeOptions, type HeaderEdgeStats } from './headerEdge.js';
import type { EdgeThreadMessage } from './edgeWorker.js';
import type { DirectMessage } from './edge/wsDirect.js';

export function startHeaderEdgeThread(options: HeaderEdgeOptions, onFailure: (error: Error) => void): Promise<HeaderEdge> {
  const counterBuffer = new SharedArrayBuffer(EDGE_COUNTER_BYTES);
  const counters = edgeCounters(counterBuffer);
  const worker = moduleWorker(import.meta.url, 'edgeWorker', { workerData: { ...options, counterBuffer } satisfies HeaderEdgeOptions });
  let closing: Promise<void> | undefined;
  let closed: (() => void) | undefined;
  let state: 'starting' | 'running' | 'closing' | 'done' = 'starting';
  return new Promise<HeaderEdge>((resolve, reject) => {
    const fail = (error: Error): void => {
      const was = state;
      state = 'done';
      if (was === 'starting') reject(error);
      else if (was === 'running') onFailure(error);
      closed?.();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (state === 'closing') closed?.();
      else if (state !== 'done') fail(new Error(`the header edge's thread exited with code ${code}`));
    });
    worker.on('message', (message: EdgeThreadMessage) => {
      switch (message.kind) {
        case 'failed': {
          state = 'done';
          reject(Object.assign(new Error(message.message), { code: message.code }));
          return;
        }
        case 'ready': {
          state = 'running';
          resolve({
            port: message.port,
            get stats(): HeaderEdgeStats {
              return statsOf(counters);
            },
            direct(message: DirectMessage): void {
              if (state === 'running') worker.postMessage(message);
            },
            close(): Promise<void> {
              closing ??= new Promise<void>((done) => {
                if (state !== 'running') return done();
                state = 'closing';
                closed = done;
                worker.postMessage('close');
              });
              return closing;
            },
          });
          return;
        }
        case 'closed':
          state = 'done';
          closed?.();
      }
    });
  });
}
