// The HMAC records a batch of signature checks carries to the worker (api/trading/macJob.ts): packed and judged
// there, each gives the verdict auth/l2Hmac.ts macMatches() gives on the request thread, for any key, message
// and body (text with any characters, bytes, empty, absent), matching or not.

import fc from 'fast-check';
import t from 'tap';
import { createHmac } from 'node:crypto';
import { macMatches, type L2Mac } from '../../auth/index.js';
import { macRecordBytes, refusedMacs, writeMacRecord } from '../../api/trading/macJob.js';

const bodyArb = fc.oneof(
  fc.constant(undefined),
  fc.constant(''),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.uint8Array({ maxLength: 300 }),
);

/** A MAC whose presented bytes are the true HMAC, or (tamper) one with a byte changed. */
const macArb: fc.Arbitrary<L2Mac> = fc
  .record({ key: fc.uint8Array({ minLength: 0, maxLength: 80 }), message: fc.string({ unit: 'binary', maxLength: 60 }), body: bodyArb, tamper: fc.option(fc.nat(31), { nil: undefined }) })
  .map(({ key, message, body, tamper }) => {
    const keyBytes = Buffer.from(key);
    const mac = createHmac('sha256', keyBytes).update(message, 'utf8');
    if (body !== undefined && body.length > 0) mac.update(body);
    const presented = mac.digest();
    if (tamper !== undefined) presented[tamper] = (presented[tamper] ?? 0) ^ 0x5a;
    return { key: keyBytes, message, body, presented };
  });

t.test('a packed batch judges each HMAC as macMatches does', async (tt) => {
  let refusedSeen = 0;
  let passedSeen = 0;
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(1000), macArb), { maxLength: 12 }), (items) => {
      // Written as a batch is, after other bytes (its jobs), into a buffer larger than the records.
      const bytes = items.reduce((n, [, mac]) => n + macRecordBytes(mac), 0);
      const memory = Buffer.alloc(100 + bytes + 50, 0xee);
      let end = 100;
      for (const [index, mac] of items) end = writeMacRecord(memory, end, index, mac);
      tt.equal(end, 100 + bytes, 'the records take the bytes macRecordBytes says');
      const expected = items.filter(([, mac]) => !macMatches(mac)).map(([index]) => index);
      const got = refusedMacs(memory.subarray(100, end));
      refusedSeen += expected.length;
      passedSeen += items.length - expected.length;
      return JSON.stringify(got) === JSON.stringify(expected);
    }),
    { numRuns: 300 },
  );
  tt.ok(refusedSeen > 50 && passedSeen > 50, `both verdicts exercised (${passedSeen} matching, ${refusedSeen} not)`);
});

t.test('a record takes exactly the bytes it says, and its fields come back', async (tt) => {
  const mac: L2Mac = { key: Buffer.from('k3y'), message: '1700000000POST/order', body: '{"é":"✓"}', presented: Buffer.alloc(32, 1) };
  const out = Buffer.alloc(macRecordBytes(mac) + 3, 0xee);
  tt.equal(writeMacRecord(out, 0, 7, mac), macRecordBytes(mac));
  tt.equal(out.readUInt32LE(0), 7);
  tt.equal(out.readUInt16LE(4), 3);
  tt.equal(out.subarray(6, 9).toString(), 'k3y');
  tt.same([...out.subarray(out.length - 3)], [0xee, 0xee, 0xee], 'nothing written past the record');
  tt.same(refusedMacs(out.subarray(0, macRecordBytes(mac))), [7], 'a presented value that is not the HMAC');
  tt.throws(() => writeMacRecord(Buffer.alloc(200), 0, 0, { ...mac, presented: Buffer.alloc(31) }), RangeError);
});
