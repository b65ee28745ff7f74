// Golden files of encoded log records (version 1): the bytes written today must decode the same way
// forever, and a record of an unknown version is refused with a message that names it.
// UPDATE_GOLDEN=1 rewrites test/golden/records-v1.hex (only when the format deliberately changes).

import t from 'tap';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { RECORD_VERSION, UnknownRecordVersionError, decodeCommand, decodeRecord, encodeRecord, positionOf } from '../../log/recordCodec.js';
import { recordsFor, sessionCommands } from '../support/records.js';
import { Engine } from '../../engine/index.js';

const FILE = new URL('../golden/records-v1.hex', import.meta.url);

function goldenRecords() {
  const engine = new Engine();
  const cmds = sessionCommands(12);
  return [
    ...recordsFor(cmds, engine),
    ...recordsFor([{ type: 'CancelAll', time: 1_700_000_001_000, account: '0xa' }, { type: 'Withdraw', time: 1_700_000_001_000, account: '0xb', amount: 1 }], engine, 13),
  ];
}

if (process.env.UPDATE_GOLDEN === '1' || !existsSync(FILE)) {
  writeFileSync(FILE, goldenRecords().map((r) => encodeRecord(r).toString('hex')).join('\n') + '\n');
}

t.test('golden version-1 records decode to the records they were made from', async (t) => {
  const lines = readFileSync(FILE, 'utf8').trim().split('\n');
  const expected = goldenRecords();
  t.equal(lines.length, expected.length);
  lines.forEach((hex, i) => {
    const bytes = Buffer.from(hex, 'hex');
    t.equal(bytes[0], RECORD_VERSION, 'version byte');
    t.same(decodeRecord(bytes), expected[i], `record ${i + 1}`);
    t.same(decodeCommand(bytes), { pos: expected[i]?.pos, command: expected[i]?.command });
    t.equal(positionOf(bytes), expected[i]?.pos);
    t.equal(encodeRecord(decodeRecord(bytes)).toString('hex'), hex, 'encoding is stable');
  });
  t.ok(expected.some((r) => r.events.some((e) => e.type === 'TradeExecuted')), 'the golden records include fills');
});

t.test('an unknown version is refused clearly', async (t) => {
  const bytes = encodeRecord(goldenRecords()[0] as ReturnType<typeof goldenRecords>[number]);
  bytes[0] = 2;
  t.throws(() => decodeRecord(bytes), UnknownRecordVersionError);
  t.throws(() => decodeCommand(bytes), /log record version 2 is not supported by this build \(it reads version 1\)/);
  t.throws(() => decodeRecord(Buffer.alloc(0)), /empty log record/);
  t.throws(() => decodeRecord(Buffer.from([1, 0, 0])), /truncated/);
});
