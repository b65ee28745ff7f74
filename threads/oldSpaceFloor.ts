// The old-generation floor (`--initial-old-space-size`, scripts/node-flags) is for the main thread, whose live
// heap is small while its allocation rate is not: without it, V8's limit sits so close to the live heap that it
// starts a full collection every second or two (docs/deployment.md). V8's flags are the process's, and each
// isolate reads this one when its heap is made, so every worker thread would get the same floor and let its heap
// fill up to it before its first full collection: at light load the projector's and the snapshot copies' heaps
// grew by ~1.5 MB a minute towards it, each holding up to ~128 MB mostly of garbage. Clearing the flag once the
// main isolate has been made gives the threads started afterwards V8's own sizing, and leaves the main thread's.

import { setFlagsFromString } from 'node:v8';

/** Call before any worker thread starts: the main thread keeps its floor, the workers get V8's own limits. */
export function keepOldSpaceFloorToMainThread(): void {
  setFlagsFromString('--initial-old-space-size=0');
}
