// The L2 HMAC comparisons that travel with a batch of signature checks (signatureChecks.ts): POST /order leaves
// its request's HMAC to the signature worker (authenticate.ts requireL2 with deferMac), which compares it beside
// the order's signature, so the request thread neither hashes the body nor touches OpenSSL's HMAC for it.
//
// A batch's HMACs follow its jobs in the memory the worker shares (signatureMemory.ts); each record:
//   u32 index of the job in the batch | u16 key length | key | 32 bytes presented |
//   u32 message length | message (UTF-8) | u32 body length | body
// The worker's answer is the indexes whose HMAC does not match, judged by auth/l2Hmac.ts macMatches() on the
// record's bytes (test/trading/macJob.test.ts).

import { macMatches, type L2Mac } from '../../auth/index.js';

const PRESENTED_BYTES = 32;

function bodyBytes(body: string | Uint8Array | undefined): number {
  if (body === undefined) return 0;
  return typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
}

/** Bytes of `mac`'s record. */
export function macRecordBytes(mac: L2Mac): number {
  return 4 + 2 + mac.key.length + PRESENTED_BYTES + 4 + bodyBytes(mac.message) + 4 + bodyBytes(mac.body);
}

/** Writes `mac`'s record for job `index` at `offset` of `out`; returns the offset after it. */
export function writeMacRecord(out: Buffer, offset: number, index: number, mac: L2Mac): number {
  if (mac.key.length > 0xffff) throw new RangeError('an HMAC key longer than 65,535 bytes');
  if (mac.presented.length !== PRESENTED_BYTES) throw new RangeError('a presented HMAC must be 32 bytes');
  let at = out.writeUInt32LE(index, offset);
  at = out.writeUInt16LE(mac.key.length, at);
  out.set(mac.key, at);
  at += mac.key.length;
  out.set(mac.presented, at);
  at += PRESENTED_BYTES;
  at = writeSized(out, at, mac.message);
  return writeSized(out, at, mac.body);
}

/** Writes `data` (UTF-8 for text) after its u32 length at `at`; returns the offset after it. */
function writeSized(out: Buffer, at: number, data: string | Uint8Array | undefined): number {
  let length = 0;
  if (typeof data === 'string') length = out.write(data, at + 4, 'utf8');
  else if (data !== undefined) {
    out.set(data, at + 4);
    length = data.byteLength;
  }
  out.writeUInt32LE(length, at);
  return at + 4 + length;
}

/** The job indexes of `records` (consecutive records written by writeMacRecord) whose HMAC does not match. */
export function refusedMacs(records: Buffer): number[] {
  const refused: number[] = [];
  let at = 0;
  while (at < records.length) {
    const index = records.readUInt32LE(at);
    const keyLength = records.readUInt16LE(at + 4);
    at += 6;
    const key = records.subarray(at, at + keyLength);
    at += keyLength;
    const presented = records.subarray(at, at + PRESENTED_BYTES);
    at += PRESENTED_BYTES;
    const messageLength = records.readUInt32LE(at);
    const message = records.subarray(at + 4, at + 4 + messageLength);
    at += 4 + messageLength;
    const bodyLength = records.readUInt32LE(at);
    const body = records.subarray(at + 4, at + 4 + bodyLength);
    at += 4 + bodyLength;
    if (!macMatches({ key, message, body, presented })) refused.push(index);
  }
  return refused;
}
