// A worker for threadHeaps.test.ts: holds `holdDoubles` numbers on its heap (8 bytes each), answers heap
// questions under `name` unless it is null, says 'ready', and leaves when told.

import { parentPort, workerData } from 'node:worker_threads';
import { answerHeapQueries } from '../../threads/threadHeaps.js';

const { name, holdDoubles } = workerData as { name: string | null; holdDoubles: number };
const held: number[] = Array.from({ length: holdDoubles }, (_, i) => i + 0.5);
(globalThis as { held?: number[] }).held = held;
if (name !== null) answerHeapQueries(name);
parentPort?.postMessage('ready');
parentPort?.on('message', () => process.exit(0));
