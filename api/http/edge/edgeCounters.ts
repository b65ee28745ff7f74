// The header edge's counters, kept in a buffer: a plain ArrayBuffer when the edge runs on the request
// thread, a SharedArrayBuffer when it runs on a thread of its own (edgeThread.ts), so that the request
// thread reads them as they are, without messages. One writer (the edge's thread); readers elsewhere may
// see a count one request old, never a torn one (aligned 64-bit slots; counts are integers below 2^53).

import { EDGE_ERRORS, type EdgeErrorCode } from './edgeErrors.js';

const NAMES = ['connectionsOpen', 'connectionsTotal', 'requests', 'underscoreHeads', 'upgrades', 'internalErrors', 'wsSlowConsumers', 'upstreamReads', 'holds', 'heldRequests'] as const;
type CounterName = (typeof NAMES)[number];
const CODES = Object.keys(EDGE_ERRORS) as EdgeErrorCode[];

/** Bytes a counter buffer needs. */
export const EDGE_COUNTER_BYTES = (NAMES.length + CODES.length) * 8;

export type EdgeCounters = Record<CounterName, number> & { readonly refused: Record<EdgeErrorCode, number> };

/** Counters over `buffer` (EDGE_COUNTER_BYTES, zeros at first): reading and writing the fields reads and writes it. */
export function edgeCounters(buffer: ArrayBufferLike): EdgeCounters {
  if (buffer.byteLength < EDGE_COUNTER_BYTES) throw new RangeError(`edge counters need ${EDGE_COUNTER_BYTES} bytes`);
  const slots = new Float64Array(buffer, 0, NAMES.length + CODES.length);
  const accessors = (names: readonly string[], first: number): PropertyDescriptorMap =>
    Object.fromEntries(
      names.map((name, i) => [
        name,
        {
          enumerable: true,
          get: () => slots[first + i] as number,
          set: (value: number) => {
            slots[first + i] = value;
          },
        },
      ]),
    );
  const refused = Object.defineProperties({}, accessors(CODES, NAMES.length)) as Record<EdgeErrorCode, number>;
  return Object.defineProperties({ refused }, accessors(NAMES, 0)) as EdgeCounters;
}
