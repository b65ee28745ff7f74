// One thread of bench:ws's client (bench/ws/subscriberPool.ts holds the threads): it opens its share of the
// subscribers, each a RawWsClient over TCP that subscribes and reads every frame, and keeps the receipts of
// price changes while the run drives: each one's `timestamp` (the record's time, the server's key to its
// durable moment) and receipt time, read from the frame's bytes without parsing the JSON.
//
// Protocol with the pool (parentPort): → 'subscribed' once every subscriber has its first frame; ← 'drive'
// → 'driving'; while driving in max mode, → {seen} (the fewest price changes any of its subscribers has) every
// 5 ms; ← 'finish' → WorkerReceipts (arrays transferred); ← 'close' closes the sockets and ends the thread.

import { parentPort, workerData } from 'node:worker_threads';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { RawWsClient } from './rawWsClient.js';

export interface WorkerSetup {
  readonly port: number;
  readonly path: string;
  readonly subscribe: string;
  readonly subscribers: number;
  /** Keep (timestamp, receipt) pairs; false: count only (max mode). */
  readonly record: boolean;
}

export interface WorkerReceipts {
  readonly kind: 'receipts';
  /** Receipts of price changes: the record time each carried, and when it arrived (monoMs). */
  readonly ts: Float64Array;
  readonly at: Float64Array;
  /** Price changes received, summed over this thread's subscribers. */
  readonly delivered: number;
  readonly held: number;
  readonly first: number;
  readonly last: number;
  readonly messageBytes: number;
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
}

export type WorkerMessage = { kind: 'subscribed' } | { kind: 'driving' } | { kind: 'seen'; seen: number } | WorkerReceipts;
export type PoolMessage = 'drive' | 'finish' | 'close';

const PRICE_CHANGE = Buffer.from('{"event_type":"price_change"');
const TIMESTAMP = Buffer.from('"timestamp":"');

function grow(a: Float64Array): Float64Array<ArrayBuffer> {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}

async function main(setup: WorkerSetup): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('subscriberWorker runs in a worker thread');
  const post = (m: WorkerMessage, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);
  const counts = new Uint32Array(setup.subscribers);
  let ts = new Float64Array(setup.record ? 1 << 18 : 0);
  let at = new Float64Array(setup.record ? 1 << 18 : 0);
  let n = 0;
  let delivered = 0;
  let first = Infinity;
  let last = 0;
  let messageBytes = 0;
  let driving = false;
  let subscribed = 0;
  const clients: RawWsClient[] = [];
  const delay = monitorEventLoopDelay({ resolution: 1 });

  const onText = (k: number, payload: Buffer, receivedMs: number): void => {
    if (!driving || payload.compare(PRICE_CHANGE, 0, PRICE_CHANGE.length, 0, PRICE_CHANGE.length) !== 0) return;
    counts[k] = (counts[k] as number) + 1;
    delivered++;
    messageBytes = payload.length;
    if (receivedMs < first) first = receivedMs;
    if (receivedMs > last) last = receivedMs;
    if (!setup.record) return;
    const i = payload.lastIndexOf(TIMESTAMP);
    if (n === ts.length) {
      ts = grow(ts);
      at = grow(at);
    }
    ts[n] = Number(payload.toString('latin1', i + TIMESTAMP.length, payload.length - 2));
    at[n] = receivedMs;
    n++;
  };

  const connectOne = async (k: number): Promise<void> => {
    let firstFrame = true;
    const client = await RawWsClient.connect(setup.port, setup.path, (payload, receivedMs) => {
      if (firstFrame) {
        firstFrame = false;
        if (++subscribed === setup.subscribers) post({ kind: 'subscribed' });
        return;
      }
      onText(k, payload, receivedMs);
    });
    client.send(setup.subscribe);
    clients.push(client);
  };
  for (let k = 0; k < setup.subscribers; k += 100) await Promise.all(Array.from({ length: Math.min(100, setup.subscribers - k) }, (_, j) => connectOne(k + j)));

  let acker: NodeJS.Timeout | undefined;
  port.on('message', (m: PoolMessage) => {
    if (m === 'drive') {
      driving = true;
      delay.enable();
      if (!setup.record) {
        acker = setInterval(() => {
          let min = Infinity;
          for (let k = 0; k < counts.length; k++) if ((counts[k] as number) < min) min = counts[k] as number;
          post({ kind: 'seen', seen: min });
        }, 5);
      }
      post({ kind: 'driving' });
    } else if (m === 'finish') {
      driving = false;
      delay.disable();
      clearInterval(acker);
      const tsOut = ts.slice(0, n);
      const atOut = at.slice(0, n);
      post(
        {
          kind: 'receipts',
          ts: tsOut,
          at: atOut,
          delivered,
          held: clients.filter((c) => !c.closed).length,
          first,
          last,
          messageBytes,
          loopDelayP99Ms: delay.percentile(99) / 1e6,
          loopDelayMaxMs: delay.max / 1e6,
        },
        [tsOut.buffer, atOut.buffer],
      );
    } else {
      for (const c of clients) c.close();
      port.close();
    }
  });
}

await main(workerData as WorkerSetup);
