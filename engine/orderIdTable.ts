// The slots behind OrderIds: an open-addressing hash table from order id to its open Order or, for a
// finished order still refused as a duplicate, its id string and a status code.
//
// Why not a Map<string, ...>: with ~76k ids held (open orders plus the 60 s duplicate window) a Map lookup
// misses the cache on its bucket, on its entry and, for every other key in the chain, on that key's string
// (V8 compares the strings, all 66 characters long). Here each slot's 32-bit hash (orderIdHash.ts) sits
// in a typed array: linear probing reads consecutive hashes from one or two cache lines, and an id is
// compared only where the whole hash matches, so a miss (a new order's duplicate check) reads no string
// and a hit reads only the entry it returns. Deleting moves the entries behind the hole back (no
// tombstones to clean up); the table doubles at half full and never shrinks.

import type { Order } from './order.js';

const INITIAL_SLOTS = 1024;

export class OrderIdTable {
  /** Per slot: the id's hash (never 0), or 0 for an empty slot. Length: a power of two. */
  private hashes = new Int32Array(INITIAL_SLOTS);
  /** Per slot: the open Order, or the id of a finished order. */
  private refs: (Order | string | undefined)[] = new Array<Order | string | undefined>(INITIAL_SLOTS).fill(undefined);
  /** Per slot holding a finished id: its status code (the caller's numbering). */
  private codes = new Uint8Array(INITIAL_SLOTS);
  /** Occupied slots. */
  private used = 0;

  /** The slot holding `id` (whose hash is `h`), or -1. */
  find(id: string, h: number): number {
    const hashes = this.hashes;
    const mask = hashes.length - 1;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const x = hashes[at] as number;
      if (x === 0) return -1;
      if (x === h) {
        const ref = this.refs[at] as Order | string;
        if ((typeof ref === 'string' ? ref : ref.id) === id) return at;
      }
    }
  }

  /** What slot `at` holds: an open Order or a finished id. */
  refAt(at: number): Order | string {
    return this.refs[at] as Order | string;
  }

  codeAt(at: number): number {
    return this.codes[at] as number;
  }

  /** Makes slot `at` hold an open order (the same id). */
  setOrder(at: number, order: Order): void {
    this.refs[at] = order;
  }

  /** Makes slot `at` hold a finished id (the same id) with status `code`. */
  setDone(at: number, id: string, code: number): void {
    this.refs[at] = id;
    this.codes[at] = code;
  }

  /** Puts a new entry in the first free slot of its probe sequence; returns the slot. Contract: absent. */
  insert(h: number, ref: Order | string): number {
    if ((this.used + 1) * 2 > this.hashes.length) this.resize(this.hashes.length * 2);
    const hashes = this.hashes;
    const mask = hashes.length - 1;
    let at = h & mask;
    while (hashes[at] !== 0) at = (at + 1) & mask;
    hashes[at] = h;
    this.refs[at] = ref;
    this.used += 1;
    return at;
  }

  /**
   * Empties slot `at` and moves back every later entry of the same run that may move (one whose home slot
   * is not cyclically between the hole and itself), so that every probe sequence stays unbroken.
   */
  removeAt(at: number): void {
    const hashes = this.hashes;
    const refs = this.refs;
    const codes = this.codes;
    const mask = hashes.length - 1;
    let hole = at;
    for (let j = (at + 1) & mask; ; j = (j + 1) & mask) {
      const x = hashes[j] as number;
      if (x === 0) break;
      if (((j - (x & mask)) & mask) >= ((j - hole) & mask)) {
        hashes[hole] = x;
        refs[hole] = refs[j];
        codes[hole] = codes[j] as number;
        hole = j;
      }
    }
    hashes[hole] = 0;
    refs[hole] = undefined;
    codes[hole] = 0;
    this.used -= 1;
  }

  /** The open orders, in slot order. */
  orders(): Order[] {
    const out: Order[] = [];
    for (const ref of this.refs) if (typeof ref === 'object') out.push(ref);
    return out;
  }

  /** Rebuilds the table with `capacity` slots (a power of two). */
  private resize(capacity: number): void {
    const oldHashes = this.hashes;
    const oldRefs = this.refs;
    const oldCodes = this.codes;
    const hashes = new Int32Array(capacity);
    const refs = new Array<Order | string | undefined>(capacity).fill(undefined);
    const codes = new Uint8Array(capacity);
    const mask = capacity - 1;
    for (let i = 0; i < oldHashes.length; i++) {
      const h = oldHashes[i] as number;
      if (h === 0) continue;
      let at = h & mask;
      while (hashes[at] !== 0) at = (at + 1) & mask;
      hashes[at] = h;
      refs[at] = oldRefs[i];
      codes[at] = oldCodes[i] as number;
    }
    this.hashes = hashes;
    this.refs = refs;
    this.codes = codes;
  }
}
