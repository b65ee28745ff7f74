// How the projector reads the log: from a log that hands out encoded records (journal, Kafka) it decodes only
// each record's events, from any other EventLog it takes read()'s records whole; both give the same tables.
// A log that ends before the positions it claims stops the projector with the gap named, and the projector
// (whose state is then past its tables) refuses further work.

import t from 'tap';
import type { EventLog, LogRecord } from '../../log/eventLog.js';
import { Projector } from '../../projections/projector.js';
import { FEE_ACCOUNT, crossingCommands, dumpTables, freshDatabase, loggedSession, sessionFor } from '../support/projectionFixtures.js';

/** The EventLog methods of `inner` only (no readEncoded); read() can be made to end early. */
function plainLog(inner: EventLog, lastReadable = Number.POSITIVE_INFINITY): EventLog {
  return {
    get lastPos() {
      return inner.lastPos;
    },
    append: (records) => inner.append(records),
    read: async function* (from: number): AsyncGenerator<LogRecord> {
      for await (const record of inner.read(from)) {
        if (record.pos > lastReadable) return;
        yield record;
      }
    },
    follow: (from, signal) => inner.follow(from, signal),
    close: () => inner.close(),
  };
}

t.test('decoding events only and reading whole records give the same tables', async (t) => {
  const session = await loggedSession([...sessionFor(515, 300), ...crossingCommands(120)]);
  t.teardown(() => session.journal.close());
  const encoded = await freshDatabase();
  const whole = await freshDatabase();
  const fromJournal = new Projector(encoded.ch, encoded.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 97 });
  const fromRead = new Projector(whole.ch, whole.db, plainLog(session.journal), { feeAccount: FEE_ACCOUNT, maxBatch: 97 });
  await fromJournal.start();
  await fromRead.start();
  t.equal(await fromJournal.catchUp(), session.records.length, 'every record projected from the journal');
  t.equal(await fromRead.catchUp(), session.records.length, 'every record projected through read()');
  const tables = await dumpTables(encoded.ch, encoded.db);
  t.ok((tables.fills ?? []).length > 0, 'the session has fills');
  t.same(await dumpTables(whole.ch, whole.db), tables, 'the same tables');
});

t.test('a log that ends early: the gap is named and the projector stops', async (t) => {
  const session = await loggedSession([...sessionFor(516, 200), ...crossingCommands(60)]);
  t.teardown(() => session.journal.close());
  const { ch, db } = await freshDatabase();
  const short = session.records.length - 25;
  const projector = new Projector(ch, db, plainLog(session.journal, short), { feeAccount: FEE_ACCOUNT, maxBatch: 50 });
  await projector.start();
  await t.rejects(projector.catchUp(), new RegExp(`no longer holds positions ${short + 1}\\.\\.`), 'the missing positions are named');
  t.ok(projector.position <= short, 'nothing past the gap is committed');
  await t.rejects(projector.catchUp(), /stopped after a failure/, 'further work is refused');
  const again = new Projector(ch, db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 50 });
  await again.start();
  await again.catchUp();
  const reference = await freshDatabase();
  const clean = new Projector(reference.ch, reference.db, session.journal, { feeAccount: FEE_ACCOUNT, maxBatch: 50 });
  await clean.start();
  await clean.catchUp();
  t.same(await dumpTables(ch, db), await dumpTables(reference.ch, reference.db), 'a new projector on the whole log completes the same tables');
});
