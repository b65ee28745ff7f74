// The 32-bit hash of an order id that keys the order-id table (orderIds.ts). Computed once per command that
// names an id (place, cancel) and kept on the Order, so finishing an order never reads its id again.
//
// Order ids are EIP-712 order hashes: `0x` + 64 hex digits, already uniformly random. For that shape the
// hash is built from the first 16 and the last 8 hex digits, decoded (24 character reads, not 66: each read is
// a checked access, not a plain byte load) and mixed; any other string (tests, hand-written commands) is
// hashed over all its characters. The first digits sit next to the string's header, in the cache line a
// lookup touches anyway. The last ones are there for ids of that shape that are not hashes: a tool that
// numbers its ids in their last digits (`0x` + a prefix + zeros + a counter) would otherwise put every one
// in one slot, and each lookup would walk all of them (seen in the benchmarks' generated orders: the id table
// took an eighth of the request thread). Only the table's speed depends on the hash: lookups compare the full id on a hash match, so a
// collision is never a wrong answer.
//
// The hash is keyed: `key` comes from the host (a random number per process, engine/README.md), never from a
// command, so a trader cannot steer ids onto one slot of the table by grinding order salts (unkeyed, about as
// many keccak evaluations per accepted order as the table has slots would do it). The key changes no event and
// no state hash: only where ids sit in the table. The first 16 hex digits (64 bits) go in, so ids sharing
// their first 8 digits, which a determined trader can grind for, still spread.

/** The value of a hex digit for '0'-'9', 'a'-'f' and 'A'-'F'; a deterministic nibble for anything else. */
function nibble(c: number): number {
  return ((c & 15) + 9 * (c >> 6)) & 15;
}

/** 8 hex digits from `at` as an unsigned 32-bit value (big-endian, as written). */
function hex8(id: string, at: number): number {
  let v = 0;
  for (let i = at; i < at + 8; i++) v = (v << 4) | nibble(id.charCodeAt(i));
  return v;
}

/** Finalises 32 bits so that every input bit reaches the low bits the table indexes with. */
function avalanche(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The id's hash under `key`: a non-zero int32 (the table reserves 0 for an empty slot). */
export function orderIdHash(id: string, key: number): number {
  const n = id.length;
  let h: number;
  if (n === 66) {
    h = avalanche(avalanche(avalanche(hex8(id, 2) ^ key) ^ hex8(id, 10)) ^ hex8(id, 58));
  } else {
    h = key ^ n;
    for (let i = 0; i < n; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
    h = avalanche(h);
  }
  return h === 0 ? 1 : h;
}
