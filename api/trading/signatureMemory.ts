// The memory a signature worker (signatureWorker.ts) shares with the request thread (signatureChecks.ts): the
// two talk through it alone, never by message. A postMessage to a worker asleep costs the posting thread
// several times a futex wake (serialising, queueing, libuv's async handle: ~44 µs against ~12 µs on the AMD
// EPYC, measured), and at a steady rate the request thread pays it for each order.
//
// Layout (Int32 words, then the slots' regions):
//   word POSTED: the last batch posted (batches are numbered 1, 2, ...); -1 - k (stopAfter(k)) asks the
//   worker to end once it has answered batch k, the last posted
//   word ANSWERED: the last batch answered
//   for each of SLOTS slots, HEADER_WORDS words: count, jobs bytes, MAC bytes (request thread); refused
//   count, problems bytes (worker)
//   for each slot, SLOT_BYTES in (the packed jobs, then the MAC records: macJob.ts) and SLOT_BYTES out (the
//   order ids, 32 bytes each; the refused MACs' job indexes, u32 LE each; the problems, JSON [index, detail][])
// Batch k uses slot k % SLOTS. The worker answers batches in order; the request thread posts batch k only
// once it has read batch k - SLOTS's answer, so each side writes a slot while the other does not read it.
// An answer's bytes out fit in its slot: each job's share of them (32 + 4 bytes, a short detail) is below
// the JOB_BYTES it took in.

import { JOB_BYTES } from './signatureCheck.js';

/** Batches a worker holds at once: one it works on and one queued behind it. */
export const SLOTS = 2;
export const POSTED = 0;
export const ANSWERED = 1;

/** POSTED's value that asks the worker to end once it has answered batch `last` (0: none was posted). */
export function stopAfter(last: number): number {
  return -1 - last;
}

/** The last batch to answer, from a POSTED value: itself, or the one a stop names. */
export function lastToAnswer(posted: number): number {
  return posted < 0 ? -1 - posted : posted;
}

const HEADER_AT = 8;
const HEADER_WORDS = 8;
/** Header words of a slot, from its first. */
export const COUNT = 0;
export const JOBS_BYTES = 1;
export const MACS_BYTES = 2;
export const REFUSED_COUNT = 3;
export const PROBLEMS_BYTES = 4;
/** Bytes in (and out) of one slot: ~9,000 jobs. Pages are committed only as they are touched. */
export const SLOT_BYTES = 4 << 20;
const WORD_BYTES = (HEADER_AT + SLOTS * HEADER_WORDS) * 4;

/** The shared memory of one worker, as either side sees it. */
export class SignatureMemory {
  readonly words: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(WORD_BYTES + 2 * SLOTS * SLOT_BYTES)) {
    this.words = new Int32Array(buffer, 0, WORD_BYTES / 4);
  }

  /** The word `field` of the header of batch `batch`'s slot. */
  header(batch: number, field: number): number {
    return HEADER_AT + (batch % SLOTS) * HEADER_WORDS + field;
  }

  /** The bytes in of batch `batch`'s slot. */
  input(batch: number): Buffer {
    return Buffer.from(this.buffer, WORD_BYTES + (batch % SLOTS) * SLOT_BYTES, SLOT_BYTES);
  }

  /** The bytes out of batch `batch`'s slot. */
  output(batch: number): Buffer {
    return Buffer.from(this.buffer, WORD_BYTES + (SLOTS + (batch % SLOTS)) * SLOT_BYTES, SLOT_BYTES);
  }
}

/** Jobs of one batch at most, whatever their MACs take. */
export const MAX_JOBS = Math.floor(SLOT_BYTES / JOB_BYTES);
